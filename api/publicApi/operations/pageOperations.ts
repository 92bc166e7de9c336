/**
 * Ponds and pages for the public REST API and the MCP tools (spec: Public REST API, page
 * rules; MCP endpoint). One operation per action, on the same commands and policies as the
 * internal API: a page is addressed by its pond's slug and its own, `parent` is a slug, and
 * content changes go through the live document (pageContentCommands.ts) so open editors
 * converge and history stays append-only.
 */
import { QueryTypes } from 'sequelize';
import { appendPageContent, replacePageContent } from '../../commands/pageContentCommands.ts';
import { createPage, updatePage } from '../../commands/pageCommands.ts';
import { movePage } from '../../commands/pageMoveCommands.ts';
import { trashPage } from '../../commands/pageTrashCommands.ts';
import { publicBaseUrl, pageUrl, pondUrl } from '../../feeds/feedUrls.ts';
import { forbidden, notFound } from '../../http/apiError.ts';
import type { TimelineCursor } from '../../http/cursorCodec.ts';
import type { Page, Pond } from '../../models/index.ts';
import { listVisiblePages } from '../../pages/pageListing.ts';
import { findReadablePage } from '../../pages/slugLookup.ts';
import { listMemberPonds, type SubjectAccess } from '../../policies/accessPolicy.ts';
import { resolveApiPage, resolveApiPond, tokenReachesPond, type ApiCall } from '../apiCall.ts';
import type { ApiPageDetail, ApiPageSummary, ApiPond } from '../publicApiViews.ts';

export type PageFormat = 'markdown' | 'html';

function presentPond(baseUrl: string, pond: Pond): ApiPond {
  return { id: pond.id, slug: pond.slug, name: pond.name, url: pondUrl(baseUrl, pond.slug), personal: pond.kind === 'personal' };
}

/** The ponds the token's owner belongs to that the token reaches (opted in to the channel, within its restriction). */
export async function listApiPonds(call: ApiCall): Promise<{ items: ApiPond[]; nextCursor: null }> {
  const listed = await listMemberPonds(call.services.sequelize, call.subject);
  const baseUrl = await publicBaseUrl(call.services);
  return { items: listed.filter(({ pond }) => tokenReachesPond(call, pond)).map(({ pond }) => presentPond(baseUrl, pond)), nextCursor: null };
}

export async function getApiPond(call: ApiCall, pondSlug: string): Promise<ApiPond> {
  const { pond } = await resolveApiPond(call, pondSlug);
  return presentPond(await publicBaseUrl(call.services), pond);
}

/** Slugs of pages by id, for `parent` (one query for a whole list page). */
async function slugsById(call: ApiCall, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await call.services.sequelize.query<{ id: string; slug: string }>(`SELECT id, slug FROM pages WHERE id IN (:ids)`, {
    replacements: { ids: [...new Set(ids)] },
    type: QueryTypes.SELECT,
  });
  return new Map(rows.map((row) => [row.id, row.slug]));
}

export interface ListApiPagesFilter {
  /** A page's slug: only its children. */
  parent?: string | undefined;
  createdSince?: string | undefined;
  updatedSince?: string | undefined;
  limit?: number | undefined;
  cursor?: TimelineCursor | null | undefined;
}

/** The live pages of a pond the caller may read, oldest first, keyset-paged; `parent` is the parent's slug where the parent is readable. */
export async function listApiPages(call: ApiCall, pondSlug: string, filter: ListApiPagesFilter): Promise<{ items: ApiPageSummary[]; nextCursor: string | null }> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  const parentPage = filter.parent === undefined ? undefined : await findReadablePage(pond, access, filter.parent);
  const listing = await listVisiblePages(call.services.sequelize, access, {
    createdSince: filter.createdSince ?? null,
    updatedSince: filter.updatedSince ?? null,
    parentId: parentPage?.id,
    limit: filter.limit,
    cursor: filter.cursor ?? null,
  });
  const parents = parentPage ? new Map([[parentPage.id, parentPage.slug]]) : await slugsById(call, listing.items.flatMap((item) => (item.parentId ? [item.parentId] : [])));
  const baseUrl = await publicBaseUrl(call.services);
  return {
    items: listing.items.map((item) => ({
      id: item.id,
      slug: item.slug,
      title: item.title,
      parent: item.parentId ? (parents.get(item.parentId) ?? null) : null,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      url: pageUrl(baseUrl, pond.slug, item.slug),
    })),
    nextCursor: listing.nextCursor,
  };
}

/** The parent's slug as the caller may see it: null at the top level or when the parent is not readable. */
async function readableParentSlug(call: ApiCall, page: Page, access: SubjectAccess): Promise<string | null> {
  if (!page.parentId) return null;
  const [parent] = await call.services.sequelize.query<{ id: string; slug: string; trashed_at: Date | null }>(`SELECT id, slug, trashed_at FROM pages WHERE id = :id`, {
    replacements: { id: page.parentId },
    type: QueryTypes.SELECT,
  });
  if (!parent || !access.page({ id: parent.id, trashedAt: parent.trashed_at }, 'read').allowed) return null;
  return parent.slug;
}

async function presentPageDetail(call: ApiCall, pond: Pond, page: Page, access: SubjectAccess, format: PageFormat): Promise<ApiPageDetail> {
  const [row] = await call.services.sequelize.query<{ content: string | null; labels: { id: string; name: string; color: string }[] }>(
    `SELECT (SELECT ${format === 'html' ? 'c.html' : 'c.markdown'} FROM page_contents c WHERE c.page_id = :pageId) AS content,
            COALESCE((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY l.name, l.id)
                        FROM page_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.page_id = :pageId), '[]'::json) AS labels`,
    { replacements: { pageId: page.id }, type: QueryTypes.SELECT },
  );
  const baseUrl = await publicBaseUrl(call.services);
  return {
    id: page.id,
    slug: page.slug,
    title: page.title,
    parent: await readableParentSlug(call, page, access),
    createdAt: page.createdAt.toISOString(),
    updatedAt: page.updatedAt.toISOString(),
    url: pageUrl(baseUrl, pond.slug, page.slug),
    pond: pond.slug,
    format,
    // A page created with its first Markdown has its caches at once; an empty page has none yet.
    content: row?.content ?? page.initialMarkdown ?? '',
    labels: row?.labels ?? [],
  };
}

export async function readApiPage(call: ApiCall, pondSlug: string, pageSlug: string, format: PageFormat = 'markdown'): Promise<ApiPageDetail> {
  const { pond, page, access } = await resolveApiPage(call, pondSlug, pageSlug, 'read');
  return presentPageDetail(call, pond, page, access, format);
}

export interface CreateApiPageInput {
  title: string;
  markdown?: string | undefined;
  /** The parent's slug; absent: the top level. */
  parent?: string | null | undefined;
  slug?: string | undefined;
}

/** A new page from Markdown, at the end of its sibling group; needs write on the pond (as the internal route) and on the parent. */
export async function createApiPage(call: ApiCall, pondSlug: string, input: CreateApiPageInput): Promise<ApiPageDetail> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  if (!access.pond('write').allowed) throw forbidden();
  const parent = input.parent ? await findReadablePage(pond, access, input.parent) : null;
  const page = await createPage(call.services.sequelize, {
    pond,
    access,
    userId: call.actor.user.id,
    input: { title: input.title, slug: input.slug, parentId: parent?.id ?? null, markdown: input.markdown },
    locale: call.locale,
  });
  return presentPageDetail(call, pond, page, access, 'markdown');
}

export interface UpdateApiPageInput {
  title?: string | undefined;
  /** Replaces the whole body (a `MANUAL` version labelled "API update"). */
  content?: string | undefined;
  /** Added after the body; never replaces anything. */
  append?: string | undefined;
  /** A slug nests the page there, null moves it to the top level; either way at the end of the new sibling group. */
  parent?: string | null | undefined;
}

/**
 * Title, content and place of a page. Content and append are exclusive (the REST and MCP
 * schemas refuse both); the parent is resolved before anything changes, so an unknown parent (404) or a
 * cycle (409 `page_cycle`) leaves the page as it was. Each part is its own command, each in
 * its own transaction, in the order place, title, content.
 */
export async function updateApiPage(call: ApiCall, pondSlug: string, pageSlug: string, input: UpdateApiPageInput): Promise<ApiPageDetail> {
  const { sequelize } = call.services;
  const { pond, access } = await resolveApiPond(call, pondSlug);
  let page = await findReadablePage(pond, access, pageSlug);
  if (!access.page(page, 'write').allowed) throw forbidden();
  const userId = call.actor.user.id;
  if (input.parent !== undefined) {
    const parent = input.parent === null ? null : await findReadablePage(pond, access, input.parent);
    page = await movePage(sequelize, { pageId: page.id, access, userId, input: { parentId: parent?.id ?? null }, locale: call.locale });
  }
  if (input.title !== undefined) page = await updatePage(sequelize, { page, userId, title: input.title });
  if (input.content !== undefined) page = (await replacePageContent(sequelize, { pageId: page.id, userId, markdown: input.content })).page;
  if (input.append !== undefined) page = (await appendPageContent(sequelize, { pageId: page.id, userId, markdown: input.append })).page;
  return presentPageDetail(call, pond, page, access, 'markdown');
}

/** Moves the page to the trash; its children move up to its place (the internal default). */
export async function trashApiPage(call: ApiCall, pondSlug: string, pageSlug: string): Promise<void> {
  const { page, access } = await resolveApiPage(call, pondSlug, pageSlug, 'write');
  const trashed = await trashPage(call.services.sequelize, { pageId: page.id, access, userId: call.actor.user.id, mode: 'promote' });
  if (trashed.pageIds.length === 0) throw notFound();
}
