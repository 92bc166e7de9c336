/** `GET /ponds/:pondSlug/search?q=&limit=&cursor=`: the pond's pages matching a query, best first. */
import { z } from 'zod';
import { searchCursor } from '../../http/cursorCodec.ts';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../routes/searchRoutes.ts';
import { MAX_QUERY_CHARS } from '../../search/searchQuery.ts';
import { apiCallOf } from '../apiCall.ts';
import { searchApiPages } from '../operations/searchOperations.ts';
import { apiList } from '../publicApiViews.ts';
import { apiSearchHit } from '../views/searchViews.ts';
import { pondSlugParams } from './pondApiRoutes.ts';

const searchQuery = z.object({
  q: z.string().trim().min(1).max(MAX_QUERY_CHARS).describe('Words (all must match), "phrases" in quotes, -word to exclude'),
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT).describe('Page size'),
  cursor: searchCursor.field.describe('`nextCursor` of the previous answer'),
});

export const searchApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug/search',
    access: { kind: 'token', scope: 'read' },
    params: pondSlugParams,
    query: searchQuery,
    describe: {
      summary: 'Search pages',
      description:
        "Full-text search over the titles, labels and bodies of the pond's pages the token owner may read, best matches first, with a substring fallback for parts of words. Each match in `snippet` is wrapped in `**`.",
      tag: 'Search',
      response: { status: 200, schema: apiList(apiSearchHit), description: 'A page of hits' },
      errors: [400],
    },
    handler: async (context) => ({ body: await searchApiPages(apiCallOf(context), context.params.pondSlug, context.query) }),
  }),
];
