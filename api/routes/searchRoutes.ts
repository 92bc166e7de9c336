/**
 * Search (spec: Search): `GET /search?q=&pondId=&labels=&limit=&cursor=` for a signed-in
 * caller. `labels` takes label ids, comma-separated or repeated; a page matches when it
 * carries one of them or a descendant. Hits in `title` and `snippet` are wrapped in U+E000
 * (start) and U+E001 (end).
 */
import { z } from 'zod';
import { searchCursor } from '../http/cursorCodec.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { accessSubjectOf } from '../policies/accessPolicy.ts';
import { MAX_QUERY_CHARS } from '../search/searchQuery.ts';

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;
const MAX_LABEL_FILTERS = 50;

const labelIdsField = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(',')).map((part) => part.trim()).filter((part) => part !== ''))
  .pipe(z.array(z.uuid()).max(MAX_LABEL_FILTERS))
  .optional();

const searchQuery = z.object({
  q: z.string().max(MAX_QUERY_CHARS).default(''),
  pondId: z.uuid().optional(),
  labels: labelIdsField,
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
  cursor: searchCursor.field,
});

export const searchRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/search',
    access: { kind: 'session' },
    query: searchQuery,
    handler: async ({ actor, query, services }) => ({
      body: await services.search.search({
        subject: accessSubjectOf(actor),
        query: query.q,
        pondId: query.pondId?.toLowerCase() ?? null,
        labelIds: [...new Set((query.labels ?? []).map((id) => id.toLowerCase()))],
        limit: query.limit,
        cursor: query.cursor ?? null,
      }),
    }),
  }),
];
