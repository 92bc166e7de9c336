/**
 * The page tree: moves (`PATCH /pages/:id/position`), the trash lifecycle (trash, restore,
 * purge) and the pond's trash list. The rules are in the commands; see SPEC, States: Page.
 */
import { z } from 'zod';
import { movePage } from '../commands/pageMoveCommands.ts';
import { purgePage, restorePage, trashPage } from '../commands/pageTrashCommands.ts';
import { notFound } from '../http/apiError.ts';
import { trashCursor } from '../http/cursorCodec.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { Page } from '../models/index.ts';
import { loadPageDetail } from '../pages/pageDetail.ts';
import { DEFAULT_TRASH_LIMIT, listTrash, MAX_TRASH_LIMIT } from '../pages/trashListing.ts';
import { onePlacement, placementFields } from './pagePlacementSchema.ts';

const movePageBody = z
  .strictObject({ parentId: z.uuid().nullable().optional(), ...placementFields })
  .refine(onePlacement.check, onePlacement.issue)
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'at least one of parentId, before, after, index' });

const trashQuery = z.object({ mode: z.enum(['promote', 'subtree']).default('promote') });

const trashListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_TRASH_LIMIT).default(DEFAULT_TRASH_LIMIT),
  cursor: trashCursor.field,
});

export const pageTreeRoutes: AnyRoute[] = [
  defineRoute({
    method: 'patch',
    path: '/pages/:id/position',
    access: { kind: 'page', capability: 'write' },
    body: movePageBody,
    handler: async ({ body, actor, resource, services, locale }) => {
      const page = await movePage(services.sequelize, { pageId: resource.page.id, access: resource.access, userId: actor.user.id, input: body, locale });
      return { body: await loadPageDetail(services.sequelize, page, resource.access) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/pages/:id',
    access: { kind: 'page', capability: 'write' },
    query: trashQuery,
    handler: async ({ query, actor, resource, services }) => {
      const { trashedAt, pageIds } = await trashPage(services.sequelize, { pageId: resource.page.id, access: resource.access, userId: actor.user.id, mode: query.mode });
      return { body: { trashedAt: trashedAt.toISOString(), pageIds } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/pages/:id/restore',
    access: { kind: 'page', capability: 'write', allowTrashed: true },
    handler: async ({ resource, services }) => {
      const restoredPageIds = await restorePage(services.sequelize, { pageId: resource.page.id, access: resource.access });
      const page = await Page.findByPk(resource.page.id);
      if (!page) throw notFound();
      return { body: { page: await loadPageDetail(services.sequelize, page, resource.access), restoredPageIds } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/pages/:id/purge',
    access: { kind: 'page', capability: 'write', allowTrashed: true },
    handler: async ({ resource, services }) => {
      await purgePage(services.sequelize, resource.page.id, { dataDir: services.config.dataDir, logger: services.logger });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/trash',
    // Page-scope editors may have trashed pages too: they see what they may write.
    access: { kind: 'pond', capability: 'trash', session: true },
    query: trashListQuery,
    handler: async ({ query, resource, services, locale }) => {
      return { body: await listTrash(services.sequelize, resource.access, { limit: query.limit, cursor: query.cursor ?? null, locale: await locale() }) };
    },
  }),
];
