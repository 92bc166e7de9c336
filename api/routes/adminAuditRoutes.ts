/**
 * The system panel's audit log (ARCHITECTURE.md: `GET /admin/system/audit`, Site Admins only;
 * spec: Audit entry, filterable by actor, action and time range). Newest first, keyset paged:
 * `{ items: [{ id, action, at, actor: { id, username } | null, ip, details }], nextCursor }`.
 * The filters are described in api/audit/auditList.ts.
 */
import { z } from 'zod';
import { DEFAULT_AUDIT_LIST_LIMIT, listAuditEntries, MAX_AUDIT_LIST_LIMIT, type AuditListView } from '../audit/auditList.ts';
import { auditCursor } from '../http/cursorCodec.ts';
import { isoTimestampField, storableString } from '../http/fieldSchemas.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';

const listAuditQuery = z.object({
  actor: storableString().trim().min(1).max(200).optional(),
  action: storableString().trim().min(1).max(200).optional(),
  from: isoTimestampField.optional(),
  to: isoTimestampField.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_LIST_LIMIT).default(DEFAULT_AUDIT_LIST_LIMIT),
  cursor: auditCursor.field,
});

export const adminAuditRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/admin/system/audit',
    access: { kind: 'siteAdmin' },
    query: listAuditQuery,
    handler: async ({ query, services }) => {
      const { items, next } = await listAuditEntries(services.sequelize, query);
      const body: AuditListView = { items, nextCursor: next ? auditCursor.encode(next) : null };
      return { body };
    },
  }),
];
