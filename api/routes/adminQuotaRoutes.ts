/**
 * Quota overrides for Site Admins (ARCHITECTURE: Administration; logic in api/quotas/quotaAdmin.ts).
 *
 * - `GET /admin/quotas?user=<username or e-mail>` or `?pond=<slug>` (exactly one) →
 *   `{ target: { type, id, name, … }, quotas: [{ quota, override, default, effective, source, usage }] }`;
 *   404 for an unknown target (a deleted account is unknown).
 * - `PUT /admin/quotas/:targetType/:targetId/:quota` `{ value }` (an integer ≥ 0, or null for
 *   unlimited) → 200 with the target's report; audited `admin.quota_set`.
 * - `DELETE` of the same path clears the override → 200 with the report; audited `admin.quota_cleared`.
 */
import { z } from 'zod';
import { storableString } from '../http/fieldSchemas.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { notFound } from '../http/apiError.ts';
import { clearQuotaOverride, findQuotaTarget, quotaReport, reportFor, setQuotaOverride } from '../quotas/quotaAdmin.ts';
import { QUOTA_NAMES } from '../quotas/quotaLadder.ts';

const lookupQuery = z
  .object({
    user: storableString().trim().min(1).max(254).optional(),
    pond: storableString().trim().min(1).max(200).optional(),
  })
  .refine((query) => (query.user === undefined) !== (query.pond === undefined), { message: 'exactly one of user and pond', path: ['user'] });

const overrideParams = z.object({
  targetType: z.enum(['user', 'pond']),
  targetId: z.uuid(),
  quota: z.enum(QUOTA_NAMES),
});

const overrideBody = z.object({
  value: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
});

export const adminQuotaRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/admin/quotas',
    access: { kind: 'siteAdmin' },
    query: lookupQuery,
    handler: async ({ query, services }) => {
      const target = await findQuotaTarget(query);
      if (!target) throw notFound();
      return { body: await quotaReport(services.sequelize, target) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/admin/quotas/:targetType/:targetId/:quota',
    access: { kind: 'siteAdmin' },
    params: overrideParams,
    body: overrideBody,
    handler: async ({ params, body, actor, req, services }) => {
      await setQuotaOverride(services.sequelize, params.targetType, params.targetId, params.quota, body.value, { user: actor.user, ip: req.ip });
      return { body: await reportFor(services.sequelize, params.targetType, params.targetId) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/quotas/:targetType/:targetId/:quota',
    access: { kind: 'siteAdmin' },
    params: overrideParams,
    handler: async ({ params, actor, req, services }) => {
      await clearQuotaOverride(services.sequelize, params.targetType, params.targetId, params.quota, { user: actor.user, ip: req.ip });
      return { body: await reportFor(services.sequelize, params.targetType, params.targetId) };
    },
  }),
];
