/**
 * Search in one pond for the public REST API and MCP's `search` tool (spec: Public REST API:
 * "Highlights are wrapped in `**`"). The search engine is the same seam the internal search
 * route calls (api/search/searchEngine.ts), restricted to the pond, so the permission filter,
 * the ranking and the cursor are the ones the app has.
 */
import { QueryTypes } from 'sequelize';
import { pageUrl, publicBaseUrl } from '../../feeds/feedUrls.ts';
import type { SearchCursor } from '../../http/cursorCodec.ts';
import type { SubjectAccess } from '../../policies/accessPolicy.ts';
import { DEFAULT_SEARCH_LIMIT } from '../../routes/searchRoutes.ts';
import { HIT_END, HIT_START } from '../../search/searchEngine.ts';
import { resolveApiPond, type ApiCall } from '../apiCall.ts';
import type { ApiSearchHit } from '../views/searchViews.ts';

const HIGHLIGHT = '**';
const HIT_MARKS = new RegExp(`[${HIT_START}${HIT_END}]`, 'g');

/** The engine's private-use hit marks as Markdown bold (`highlight`), or dropped. */
export function markdownHighlights(text: string, highlight: boolean): string {
  return text.replace(HIT_MARKS, highlight ? HIGHLIGHT : '');
}

/**
 * The parents' slugs of the given pages where the caller may read the parent (the page list's
 * rule: an unreadable parent is named as no parent); one query for a whole result page.
 */
export async function readableParentSlugs(call: ApiCall, access: SubjectAccess, pageIds: readonly string[]): Promise<Map<string, string>> {
  if (pageIds.length === 0) return new Map();
  const rows = await call.services.sequelize.query<{ id: string; parent_id: string; parent_slug: string; parent_trashed_at: Date | null }>(
    `SELECT child.id, parent.id AS parent_id, parent.slug AS parent_slug, parent.trashed_at AS parent_trashed_at
       FROM pages child JOIN pages parent ON parent.id = child.parent_id
      WHERE child.id IN (:ids)`,
    { replacements: { ids: [...new Set(pageIds)] }, type: QueryTypes.SELECT },
  );
  const slugs = new Map<string, string>();
  for (const row of rows) {
    if (access.page({ id: row.parent_id, trashedAt: row.parent_trashed_at }, 'read').allowed) slugs.set(row.id, row.parent_slug);
  }
  return slugs;
}

export interface ApiSearchQuery {
  /** Words AND-ed, "phrases", -exclusion (websearch style). */
  q: string;
  limit?: number | undefined;
  /** Where the previous answer ended (`searchCursor` of api/http/cursorCodec.ts decodes its `nextCursor`). */
  cursor?: SearchCursor | null | undefined;
}

/** The pages of the pond matching `q` that the caller may read, best first, with `**` around each match in the snippet. */
export async function searchApiPages(call: ApiCall, pondSlug: string, query: ApiSearchQuery): Promise<{ items: ApiSearchHit[]; nextCursor: string | null }> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  const result = await call.services.search.search({
    subject: call.subject,
    query: query.q,
    pondId: pond.id,
    limit: query.limit ?? DEFAULT_SEARCH_LIMIT,
    cursor: query.cursor ?? null,
  });
  const parents = await readableParentSlugs(call, access, result.items.map((hit) => hit.id));
  const baseUrl = await publicBaseUrl(call.services);
  return {
    items: result.items.map((hit) => ({
      id: hit.id,
      slug: hit.slug,
      // The title is the page's name, which clients show and compare as it is.
      title: markdownHighlights(hit.title, false),
      snippet: markdownHighlights(hit.snippet, true),
      parent: parents.get(hit.id) ?? null,
      url: pageUrl(baseUrl, pond.slug, hit.slug),
      labels: hit.labels,
    })),
    nextCursor: result.nextCursor,
  };
}
