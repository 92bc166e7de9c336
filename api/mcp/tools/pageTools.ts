/**
 * Ponds and pages as MCP tools (spec: MCP endpoint): `list_ponds`, `list_pages` (with `parent`
 * slugs, `created_since`, `updated_since`), `read_page`, `create_page` (optional parent slug)
 * and `update_page` (title, content replaced or appended, `parent` slug or null). Each is a
 * thin mapping onto the public API's operations (api/publicApi/operations/pageOperations.ts),
 * so REST and MCP answer the same views under the same rules.
 */
import { z } from 'zod';
import { timelineCursor } from '../../http/cursorCodec.ts';
import { isoTimestampField } from '../../http/fieldSchemas.ts';
import { MAX_PAGE_LIST_LIMIT } from '../../pages/pageListing.ts';
import { createApiPage, listApiPages, listApiPonds, readApiPage, updateApiPage } from '../../publicApi/operations/pageOperations.ts';
import { defineTool, type AnyMcpTool } from '../toolWrapper.ts';
import { markdownField, pageField, parentSlugField, pondField, titleField } from './toolFields.ts';

/** Smaller than REST's default page: a list an agent reads whole should fit its context. */
const MCP_PAGE_LIST_LIMIT = 100;

const listPonds = defineTool({
  name: 'list_ponds',
  description:
    "Lists the ponds (workspaces) this token can reach: the token owner's ponds that have MCP access switched on, within the token's pond restriction. Call it first: every other tool takes a pond's `slug`.",
  input: z.object({}),
  write: false,
  run: (call) => listApiPonds(call),
});

const listPages = defineTool({
  name: 'list_pages',
  description:
    "Lists the live pages of a pond that the token owner may read, oldest first, as { items, nextCursor }. Each item has id, slug, title, parent (the parent page's slug, null at the top level), createdAt, updatedAt and url. Pass nextCursor back as `cursor` for the next part of the list.",
  input: z.object({
    pond: pondField,
    parent: parentSlugField.optional().describe("Only the direct children of the page with this slug"),
    created_since: isoTimestampField.optional().describe('Only pages created at or after this time (ISO 8601, e.g. 2025-01-31 or 2025-01-31T12:00:00Z)'),
    updated_since: isoTimestampField.optional().describe('Only pages changed at or after this time (ISO 8601)'),
    limit: z.number().int().min(1).max(MAX_PAGE_LIST_LIMIT).default(MCP_PAGE_LIST_LIMIT).describe('How many pages at most'),
    cursor: timelineCursor.field.describe('`nextCursor` of the previous answer, to continue the list'),
  }),
  write: false,
  run: (call, input) =>
    listApiPages(call, input.pond, { parent: input.parent, createdSince: input.created_since, updatedSince: input.updated_since, limit: input.limit, cursor: input.cursor }),
});

const readPage = defineTool({
  name: 'read_page',
  description: "Reads one page: its title, parent slug, labels, timestamps, url and its whole body as Markdown (default) or as sanitized HTML.",
  input: z.object({
    pond: pondField,
    page: pageField,
    format: z.enum(['markdown', 'html']).default('markdown').describe('The format of `content`'),
  }),
  write: false,
  run: (call, input) => readApiPage(call, input.pond, input.page, input.format),
});

const createPage = defineTool({
  name: 'create_page',
  description:
    'Creates a page from Markdown at the end of its sibling group and returns it (with its new slug). Wikilinks are written [[slug]]. Needs a write token and write access to the pond.',
  input: z.object({
    pond: pondField,
    title: titleField.describe('The page title'),
    markdown: markdownField.optional().describe('The body as Markdown; absent: an empty page'),
    parent: parentSlugField.optional().describe("Nest the new page under the page with this slug; absent: at the top level"),
  }),
  write: true,
  run: (call, input) => createApiPage(call, input.pond, { title: input.title, markdown: input.markdown, parent: input.parent }),
  writtenPage: (_input, result) => String(result.slug),
});

const updateInput = z
  .object({
    pond: pondField,
    page: pageField,
    title: titleField.optional().describe('A new title (the slug stays)'),
    content: markdownField.optional().describe('Markdown for the body; `mode` says whether it replaces the body or is added at its end'),
    mode: z
      .enum(['replace', 'append'])
      .optional()
      .describe("Required with `content`: 'replace' swaps the whole body (earlier states stay in the page history), 'append' adds `content` after the body and keeps everything"),
    parent: parentSlugField.nullable().optional().describe('Move the page: a slug nests it under that page, null moves it to the top level; it goes to the end of its new sibling group'),
  })
  .superRefine((input, context) => {
    // Replacing a body by mistake loses work an editor can only get back from the history, so an agent must say which it means.
    if (input.content !== undefined && input.mode === undefined)
      context.addIssue({ code: 'custom', path: ['mode'], message: "mode is required when content is given: 'replace' or 'append'" });
    if (input.content === undefined && input.mode !== undefined) context.addIssue({ code: 'custom', path: ['content'], message: 'mode needs content' });
    if (input.title === undefined && input.content === undefined && input.parent === undefined)
      context.addIssue({ code: 'custom', path: [], message: 'nothing to change: give title, content (with mode) or parent' });
  });

const updatePage = defineTool({
  name: 'update_page',
  description:
    "Changes a page's title, body and/or place and returns the page as it is afterwards. The body changes go through the live document, so people editing the page at the same moment keep their work. Needs a write token and write access to the page.",
  input: updateInput,
  write: true,
  destructive: true,
  run: (call, input) =>
    updateApiPage(call, input.pond, input.page, {
      title: input.title,
      ...(input.mode === 'append' ? { append: input.content } : { content: input.content }),
      parent: input.parent,
    }),
});

export const pageTools: AnyMcpTool[] = [listPonds, listPages, readPage, createPage, updatePage];
