/**
 * The search seam: the one interface the routes, the public API and MCP call. Postgres is the
 * engine (postgresSearch.ts); another engine would implement `SearchEngine` and nothing else.
 */
import type { SearchCursor } from '../http/cursorCodec.ts';
import type { AccessSubject } from '../policies/accessPolicy.ts';

/** Hits in titles and snippets are wrapped in these private-use code points; clients split on them. */
export const HIT_START = '\uE000';
export const HIT_END = '\uE001';

export interface SearchRequest {
  subject: AccessSubject;
  /** The raw query: words AND-ed, "phrases", -exclusion (websearch style). */
  query: string;
  pondId?: string | null;
  /** Label ids; a page matches when it carries one of them or a descendant. */
  labelIds?: readonly string[];
  limit: number;
  /** Where the previous page ended (decoded by the route from the `nextCursor` it handed out). */
  cursor?: SearchCursor | null;
}

export interface SearchHit {
  id: string;
  /** The title with hits wrapped in HIT_START / HIT_END. */
  title: string;
  slug: string;
  pond: { id: string; slug: string; name: string };
  labels: { id: string; name: string; color: string }[];
  /** Plain text around the first hits, hits wrapped in HIT_START / HIT_END. */
  snippet: string;
  /** 'fulltext' matched words of the query; 'substring' matched through the fallback. */
  match: 'fulltext' | 'substring';
}

export interface SearchResult {
  items: SearchHit[];
  nextCursor: string | null;
}

export interface SearchEngine {
  search(request: SearchRequest): Promise<SearchResult>;
}
