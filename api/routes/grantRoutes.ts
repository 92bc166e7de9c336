import type { AnyRoute } from '../http/routeTable.ts';

export const grantRoutes: AnyRoute[] = [];
