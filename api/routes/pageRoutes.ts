/**
 * Pages, the basic part: create under a pond, read, rename / re-slug, and the pond's page
 * list filtered by the bulk policy. Tree moves and the trash lifecycle live elsewhere.
 */
import { z } from 'zod';
import { createPage, updatePage } from '../commands/pageCommands.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { timelineCursor } from '../http/cursorCodec.ts';
import { isoTimestampField } from '../http/fieldSchemas.ts';
import { loadPageDetail } from '../pages/pageDetail.ts';
import { DEFAULT_PAGE_LIST_LIMIT, listVisiblePages, MAX_PAGE_LIST_LIMIT } from '../pages/pageListing.ts';
import { slugSchema } from '../ponds/slugs.ts';
import { onePlacement, placementFields } from './pagePlacementSchema.ts';

export const PAGE_TITLE_MAX_LENGTH = 300;
// Markdown handed over at creation: turned into the page's document, its first update-log row
// and its derived data within the creation (parsed and rendered before the pond lock is taken).
export const PAGE_MARKDOWN_MAX_LENGTH = 1_000_000;

const titleSchema = z.string().trim().min(1).max(PAGE_TITLE_MAX_LENGTH);

const createPageBody = z.strictObject({
  title: titleSchema,
  slug: slugSchema.optional(),
  parentId: z.uuid().nullable().optional(),
  markdown: z.string().max(PAGE_MARKDOWN_MAX_LENGTH).optional(),
  ...placementFields,
}).refine(onePlacement.check, onePlacement.issue);

const updatePageBody = z
  .strictObject({ title: titleSchema.optional(), slug: slugSchema.optional() })
  .refine((patch) => patch.title !== undefined || patch.slug !== undefined);

const listPagesQuery = z.object({
  createdSince: isoTimestampField.optional(),
  updatedSince: isoTimestampField.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIST_LIMIT).default(DEFAULT_PAGE_LIST_LIMIT),
  cursor: timelineCursor.field,
});

export const pageRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/ponds/:id/pages',
    access: { kind: 'pond', capability: 'write' },
    body: createPageBody,
    handler: async ({ body, actor, resource, services, locale }) => {
      const page = await createPage(services.sequelize, {
        pond: resource.pond,
        access: resource.access,
        userId: actor.user.id,
        input: body,
        locale,
      });
      return { status: 201, body: await loadPageDetail(services.sequelize, page, resource.access) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/pages/:id',
    access: { kind: 'page', capability: 'read' },
    handler: async ({ resource, services }) => ({ body: await loadPageDetail(services.sequelize, resource.page, resource.access) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/pages/:id',
    access: { kind: 'page', capability: 'write' },
    body: updatePageBody,
    handler: async ({ body, actor, resource, services }) => {
      const page = await updatePage(services.sequelize, { page: resource.page, userId: actor.user.id, title: body.title, slug: body.slug });
      return { body: await loadPageDetail(services.sequelize, page, resource.access) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/pages',
    access: { kind: 'pond', capability: 'visible' },
    query: listPagesQuery,
    handler: async ({ query, resource, services }) => ({
      body: await listVisiblePages(services.sequelize, resource.access, {
        createdSince: query.createdSince ?? null,
        updatedSince: query.updatedSince ?? null,
        limit: query.limit,
        cursor: query.cursor ?? null,
      }),
    }),
  }),
];
