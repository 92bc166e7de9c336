/**
 * The system panel and the admin overview (Site Admins only):
 * - `GET /admin/system` (ARCHITECTURE.md) → `{ jobs, largestPonds }` (api/system/systemPanel.ts);
 *   the audit log is `GET /admin/system/audit`, the manual trigger `POST /admin/system/jobs/:name/run`.
 * - `GET /admin/overview` → `{ users: { ACTIVE, unconfirmed, disabled, deleted }, ponds, pages,
 *   storage: { bytes, files } }` (api/system/adminOverview.ts), the counts of the `/admin` screen.
 */
import { adminOverview } from '../system/adminOverview.ts';
import { systemPanel } from '../system/systemPanel.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';

export const adminSystemRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/admin/system',
    access: { kind: 'siteAdmin' },
    handler: async ({ services }) => ({ body: await systemPanel(services.sequelize) }),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/overview',
    access: { kind: 'siteAdmin' },
    handler: async ({ services }) => ({ body: await adminOverview(services.sequelize) }),
  }),
];
