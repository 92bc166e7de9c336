/**
 * Access rules of a pond (spec: Grant, Members and access): list, create and delete grants,
 * the enriched access-rule view, and the effective-permissions explanation. All for pond admins.
 */
import { z } from 'zod';
import { createGrant, deleteGrant, listGrants } from '../commands/grantCommands.ts';
import { createSectionGrant } from '../commands/sectionGrantCommands.ts';
import { notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { explainEffectivePermissions } from '../policies/accessExplanation.ts';
import { describeGrants } from '../policies/accessRuleNames.ts';
import { presentGrant } from '../presenters/grantPresenter.ts';
import { labelColor, labelName } from './labelRoutes.ts';

const subjectSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), id: z.uuid() }),
  z.object({ type: z.literal('signed-in') }),
  z.object({ type: z.literal('public') }),
]);

const scopeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('pond') }),
  z.object({ type: z.literal('label'), id: z.uuid() }),
  z.object({ type: z.literal('page'), id: z.uuid() }),
]);

const createGrantBody = z
  .object({
    subject: subjectSchema,
    role: z.enum(['pond_admin', 'editor', 'reader']),
    scope: scopeSchema,
    effect: z.enum(['allow', 'deny']),
  })
  .superRefine((grant, context) => {
    // Spec: a pond_admin grant must be pond-scope and for a user subject.
    if (grant.role === 'pond_admin' && (grant.scope.type !== 'pond' || grant.subject.type !== 'user')) {
      context.addIssue({ code: 'custom', path: ['role'], input: grant.role });
    }
  });

/**
 * A page and the pages inside it (`POST /ponds/:id/grants/page-section`): the label to put on
 * them by name (a root label of that name is reused), its colour if it is new, and the rule.
 * Label-scope rules stop at editor: pond_admin is a pond-scope role.
 */
const pageSectionGrantBody = z.object({
  pageId: z.uuid().transform((id) => id.toLowerCase()),
  label: z.object({ name: labelName, color: labelColor.optional() }),
  subject: subjectSchema,
  role: z.enum(['editor', 'reader']),
  effect: z.enum(['allow', 'deny']),
});

/** The colour a label made here gets unless one is given (the first of the label editor's palette). */
const SECTION_LABEL_COLOR = '#1b6480';

const effectivePermissionsQuery = z
  .object({
    subjectType: z.enum(['user', 'signed-in', 'public']),
    subjectId: z.uuid().optional(),
    pageId: z.string().optional(),
  })
  .superRefine((query, context) => {
    // A user subject names the user; the pseudo subjects name nobody.
    if ((query.subjectType === 'user') !== (query.subjectId !== undefined)) {
      context.addIssue({ code: 'custom', path: ['subjectId'], input: query.subjectId });
    }
  });

export const grantRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:id/grants',
    access: { kind: 'pond', capability: 'admin' },
    handler: async ({ resource }) => {
      const grants = await listGrants(resource.pond.id);
      return { body: { items: grants.map(presentGrant), nextCursor: null } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/grants/access-rules',
    access: { kind: 'pond', capability: 'admin' },
    handler: async ({ resource, locale }) => {
      const pond = resource.pond;
      const items = await describeGrants(pond, await listGrants(pond.id), await locale());
      return { body: { items, nextCursor: null } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:id/grants',
    access: { kind: 'pond', capability: 'admin' },
    body: createGrantBody,
    handler: async ({ body, actor, req, resource, locale }) => {
      const grant = await createGrant(resource.pond.id, body, { actor: actor.user, ip: req.ip, locale });
      return { status: 201, body: presentGrant(grant) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:id/grants/page-section',
    access: { kind: 'pond', capability: 'admin' },
    body: pageSectionGrantBody,
    handler: async ({ body, actor, req, resource, services, locale }) => {
      const { pageId, label, subject, role, effect } = body;
      const input = { pageId, labelName: label.name, labelColor: label.color ?? SECTION_LABEL_COLOR, subject, role, effect };
      const result = await createSectionGrant(services.sequelize, resource.pond.id, input, { actor: actor.user, ip: req.ip, locale });
      return { status: 201, body: result };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/ponds/:id/grants/:grantId',
    access: { kind: 'pond', capability: 'admin' },
    handler: async ({ params, actor, req, resource }) => {
      // A malformed id names no grant: 404 like a grant of another pond.
      if (!isUuid(params.grantId)) throw notFound();
      await deleteGrant(resource.pond.id, params.grantId, { actor: actor.user, ip: req.ip });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/effective-permissions',
    access: { kind: 'pond', capability: 'admin' },
    query: effectivePermissionsQuery,
    handler: async ({ query, resource, services, locale }) => ({
      body: await explainEffectivePermissions(services.sequelize, resource.pond, query, locale),
    }),
  }),
];
