/** Issue 19: filled in by its own change. */
import type { AnyRoute } from '../http/routeTable.ts';

export const notificationRoutes: AnyRoute[] = [];
