/**
 * Ponds: the caller's list, create, read, update (name, slug, fonts, settings), trash and
 * restore; and the font catalog ponds choose from.
 */
import type { Request } from 'express';
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import type { Actor } from '../auth/authenticateRequest.ts';
import { createSharedPond, restorePond, trashPond, updatePond, type PondActor } from '../commands/pondCommands.ts';
import { renderReadsOf } from '../http/inProcessFetch.ts';
import { defineRoute, rememberPondsOfRender, type AnyRoute } from '../http/routeTable.ts';
import { Pond, User } from '../models/index.ts';
import { listMemberPonds, seesPondAsMember, subjectAccessTo, type AccessSubject, type SubjectAccess } from '../policies/accessPolicy.ts';
import { ownPondRole } from '../policies/membership.ts';
import { pondPublicReading } from '../policies/publicReading.ts';
import { FONT_CATALOG, fontIdSchema } from '../ponds/fontCatalog.ts';
import { pondSettingsPatchSchema } from '../ponds/pondSettings.ts';
import { pondSlugSchema } from '../ponds/reservedSlugs.ts';
import { presentPond, presentPondSummary, presentPondToVisitor, type PondViewer } from '../presenters/pondPresenter.ts';

const pondNameSchema = z.string().trim().min(1).max(100);

const createPondBody = z.object({ name: pondNameSchema, slug: pondSlugSchema.optional() });

const updatePondBody = z
  .strictObject({
    name: pondNameSchema.optional(),
    slug: pondSlugSchema.optional(),
    fonts: z
      .strictObject({
        body: fontIdSchema('body').nullable().optional(),
        heading: fontIdSchema('heading').nullable().optional(),
        code: fontIdSchema('code').nullable().optional(),
      })
      .optional(),
    settings: pondSettingsPatchSchema.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined));

const listQuery = z.object({ trashed: z.enum(['true', 'false']).optional() });

async function viewerOf(access: SubjectAccess): Promise<PondViewer> {
  return {
    role: ownPondRole(access),
    capabilities: { write: access.pond('write').allowed, admin: access.pond('admin').allowed },
    publicReading: await pondPublicReading(Pond.sequelize!, access.data),
  };
}

/** `caller`: the signed-in user asking; a personal pond's owner is usually them, and then is not read again. */
async function presentPondFor(pond: Pond, access: SubjectAccess, caller?: User | null) {
  const owner = !pond.ownerId ? null : pond.ownerId === caller?.id ? caller : await User.findByPk(pond.ownerId, { attributes: ['id', 'username', 'displayName'] });
  return presentPond(pond, owner, await viewerOf(access));
}

/** The view after a write that may have changed the caller's access (trash state): resolved afresh. */
async function presentAfterAccessChange(sequelize: Sequelize, pond: Pond, subject: AccessSubject, fallback: SubjectAccess) {
  return presentPondFor(pond, (await subjectAccessTo(sequelize, subject, pond.id)) ?? fallback);
}

function pondActorOf(actor: Actor, req: Request): PondActor {
  return { user: actor.user, ip: req.ip };
}

export const pondRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds',
    access: { kind: 'session' },
    query: listQuery,
    handler: async ({ req, query, subject, services }) => {
      const listed = await listMemberPonds(services.sequelize, subject, { trashed: query.trashed === 'true' });
      // A page render reads one of these ponds next (`/ponds/:id`): the rows just read serve it.
      rememberPondsOfRender(renderReadsOf(req.socket), listed.map(({ pond }) => pond));
      return { body: { items: listed.map(({ pond, access }) => presentPondSummary(pond, ownPondRole(access))), nextCursor: null } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/ponds',
    access: { kind: 'session' },
    body: createPondBody,
    handler: async ({ req, actor, body, subject, services }) => {
      const pond = await createSharedPond(services.sequelize, body, pondActorOf(actor, req));
      const access = await subjectAccessTo(services.sequelize, subject, pond.id);
      return { status: 201, body: await presentPondFor(pond, access!) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/ponds/:id',
    access: { kind: 'pond', capability: 'visible' },
    handler: async ({ resource, actor }) => {
      if (seesPondAsMember(resource.access)) return { body: await presentPondFor(resource.pond, resource.access, actor?.user) };
      // A visitor: the owner by display name, and no settings (docs/access-model.md).
      const owner = resource.pond.ownerId ? await User.findByPk(resource.pond.ownerId, { attributes: ['id', 'displayName'] }) : null;
      return { body: presentPondToVisitor(resource.pond, owner, await viewerOf(resource.access)) };
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/ponds/:id',
    access: { kind: 'pond', capability: 'admin' },
    body: updatePondBody,
    handler: async ({ req, actor, body, resource, services }) => {
      const pond = await updatePond(services.sequelize, resource.pond.id, body, pondActorOf(actor, req));
      return { body: await presentPondFor(pond, resource.access) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/ponds/:id/trash',
    access: { kind: 'pond', capability: 'admin' },
    handler: async ({ req, actor, subject, resource, services }) => {
      const pond = await trashPond(services.sequelize, resource.pond.id, pondActorOf(actor, req));
      return { body: await presentAfterAccessChange(services.sequelize, pond, subject, resource.access) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/ponds/:id/restore',
    access: { kind: 'pond', capability: 'admin' },
    handler: async ({ req, actor, subject, resource, services }) => {
      const pond = await restorePond(services.sequelize, resource.pond.id, pondActorOf(actor, req));
      return { body: await presentAfterAccessChange(services.sequelize, pond, subject, resource.access) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/fonts',
    access: { kind: 'public' },
    handler: async () => ({ body: { items: FONT_CATALOG.map((font) => ({ ...font })) } }),
  }),
];
