import type { AnyRoute } from '../http/routeTable.ts';

export const labelRoutes: AnyRoute[] = [];
