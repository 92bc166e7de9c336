/**
 * Pages by slug (spec: Public REST API, page rules): list with `parent`, `createdSince` and
 * `updatedSince`; read as Markdown or HTML; create from Markdown; PATCH of title, content
 * (replace, or the explicit `append`) and `parent`; DELETE to the trash.
 */
import { z } from 'zod';
import { timelineCursor } from '../../http/cursorCodec.ts';
import { isoTimestampField } from '../../http/fieldSchemas.ts';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { DEFAULT_PAGE_LIST_LIMIT, MAX_PAGE_LIST_LIMIT } from '../../pages/pageListing.ts';
import { slugSchema } from '../../ponds/slugs.ts';
import { PAGE_MARKDOWN_MAX_LENGTH, PAGE_TITLE_MAX_LENGTH } from '../../routes/pageRoutes.ts';
import { apiCallOf } from '../apiCall.ts';
import { createApiPage, listApiPages, readApiPage, trashApiPage, updateApiPage } from '../operations/pageOperations.ts';
import { apiList, apiPageDetail, apiPageSummary } from '../publicApiViews.ts';
import { pondSlugParams } from './pondApiRoutes.ts';

const pageParams = pondSlugParams.extend({ pageSlug: z.string().describe("The page's slug") });
const title = z.string().trim().min(1).max(PAGE_TITLE_MAX_LENGTH).describe('The page title');
const markdown = z.string().max(PAGE_MARKDOWN_MAX_LENGTH);
const parentSlug = z.string().min(1).max(100).describe("The parent page's slug");

const listQuery = z.object({
  parent: parentSlug.optional().describe("Only the children of the page with this slug"),
  createdSince: isoTimestampField.optional().describe('Only pages created at or after this time (ISO 8601)'),
  updatedSince: isoTimestampField.optional().describe('Only pages changed at or after this time (ISO 8601)'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIST_LIMIT).default(DEFAULT_PAGE_LIST_LIMIT).describe('Page size'),
  cursor: timelineCursor.field.describe('`nextCursor` of the previous answer'),
});

const readQuery = z.object({ format: z.enum(['markdown', 'html']).default('markdown').describe('The body format of `content`') });

const createBody = z.strictObject({
  title,
  markdown: markdown.optional().describe('The first content, as Markdown'),
  parent: parentSlug.nullable().optional().describe('Nest the new page under this page; absent or null: the top level'),
  slug: slugSchema.optional().describe('The address; derived from the title when absent'),
});

const updateBody = z
  .strictObject({
    title: title.optional(),
    content: markdown.optional().describe('Replaces the whole body (stored as a version labelled "API update"; open editors follow)'),
    append: markdown.optional().describe('Added after the body; never replaces anything'),
    parent: parentSlug.nullable().optional().describe('A slug nests the page under that page, null moves it to the top level; at the end of the new sibling group'),
  })
  .refine((patch) => !(patch.content !== undefined && patch.append !== undefined), { message: 'content and append exclude each other', path: ['append'] })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), { message: 'nothing to change' });

export const pageApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug/pages',
    access: { kind: 'token', scope: 'read' },
    params: pondSlugParams,
    query: listQuery,
    describe: {
      summary: 'List pages',
      description: 'The live pages of the pond the token owner may read, oldest first, paged by `cursor`. `parent` is the parent page\'s slug.',
      tag: 'Pages',
      response: { status: 200, schema: apiList(apiPageSummary), description: 'A page of the list' },
      errors: [400],
    },
    handler: async (context) => ({ body: await listApiPages(apiCallOf(context), context.params.pondSlug, context.query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:pondSlug/pages',
    access: { kind: 'token', scope: 'write' },
    params: pondSlugParams,
    body: createBody,
    describe: {
      summary: 'Create a page from Markdown',
      tag: 'Pages',
      response: { status: 201, schema: apiPageDetail, description: 'The new page, with its content as Markdown' },
      errors: [400, 409],
    },
    handler: async (context) => ({ status: 201, body: await createApiPage(apiCallOf(context), context.params.pondSlug, context.body) }),
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug/pages/:pageSlug',
    access: { kind: 'token', scope: 'read' },
    params: pageParams,
    query: readQuery,
    describe: {
      summary: 'Read a page',
      description: 'The page with its body as Markdown (default) or as sanitized HTML.',
      tag: 'Pages',
      response: { status: 200, schema: apiPageDetail, description: 'The page' },
      errors: [400],
    },
    handler: async (context) => ({ body: await readApiPage(apiCallOf(context), context.params.pondSlug, context.params.pageSlug, context.query.format) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/ponds/:pondSlug/pages/:pageSlug',
    access: { kind: 'token', scope: 'write' },
    params: pageParams,
    body: updateBody,
    describe: {
      summary: 'Change a page',
      description:
        'Title, content and place. `content` replaces the body, `append` adds to its end; both go through the live document, so open editors converge and the history keeps every earlier state. `parent` moves the page (409 `page_cycle` under its own descendant; 404 for an unknown parent).',
      tag: 'Pages',
      response: { status: 200, schema: apiPageDetail, description: 'The page after the change, with its content as Markdown' },
      errors: [400, 409],
    },
    handler: async (context) => ({ body: await updateApiPage(apiCallOf(context), context.params.pondSlug, context.params.pageSlug, context.body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/ponds/:pondSlug/pages/:pageSlug',
    access: { kind: 'token', scope: 'write' },
    params: pageParams,
    describe: {
      summary: 'Move a page to the trash',
      description: "Its children move up to its place. Restore it in the app's trash within the retention time.",
      tag: 'Pages',
      response: { status: 204, schema: null, description: 'Trashed' },
    },
    handler: async (context) => {
      await trashApiPage(apiCallOf(context), context.params.pondSlug, context.params.pageSlug);
      return { status: 204 };
    },
  }),
];
