/**
 * Pages, the basic part: create under a pond, read, rename / re-slug, and the pond's page
 * list filtered by the bulk policy. Tree moves and the trash lifecycle live elsewhere.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { z } from 'zod';
import { createPage, updatePage } from '../commands/pageCommands.ts';
import { notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import type { Page, Pond } from '../models/index.ts';
import { timelineCursor } from '../http/cursorCodec.ts';
import { isoTimestampField } from '../http/fieldSchemas.ts';
import { DEFAULT_PAGE_LIST_LIMIT, listVisiblePages, MAX_PAGE_LIST_LIMIT } from '../pages/pageListing.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { slugSchema } from '../ponds/slugs.ts';
import { onePlacement, placementFields } from './pagePlacementSchema.ts';
import { presentPageDetail, type PageDetailView } from '../presenters/pagePresenter.ts';

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

interface DetailRow {
  slug: string;
  name: string;
  label_ids: string[];
  parent_trashed_at: Date | null;
}

/** The detail view: pond, labels and the parent's state in one query. */
export async function loadPageDetail(sequelize: Sequelize, page: Page, access: SubjectAccess): Promise<PageDetailView> {
  const rows = await sequelize.query<DetailRow>(
    `SELECT po.slug, po.name,
            ARRAY(SELECT label_id::text FROM page_labels WHERE page_id = :pageId ORDER BY label_id) AS label_ids,
            (SELECT trashed_at FROM pages WHERE id = :parentId) AS parent_trashed_at
       FROM ponds po WHERE po.id = :pondId`,
    { replacements: { pageId: page.id, parentId: page.parentId, pondId: page.pondId }, type: QueryTypes.SELECT },
  );
  const row = rows[0];
  if (!row) throw notFound();
  // The foreign key guarantees the parent row exists whenever parentId is set.
  const parentReadable = page.parentId !== null && access.page({ id: page.parentId, trashedAt: row.parent_trashed_at }, 'read').allowed;
  return presentPageDetail(page, {
    pond: { id: page.pondId, slug: row.slug, name: row.name } satisfies Pick<Pond, 'id' | 'slug' | 'name'>,
    labelIds: row.label_ids,
    parentReadable,
    canWrite: access.page(page, 'write').allowed,
  });
}

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
