/** `search` (spec: MCP endpoint): full-text search in one pond, through the public API's search operation. */
import { z } from 'zod';
import { searchCursor } from '../../http/cursorCodec.ts';
import { storableString } from '../../http/fieldSchemas.ts';
import { searchApiPages } from '../../publicApi/operations/searchOperations.ts';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../routes/searchRoutes.ts';
import { defineTool, type AnyMcpTool } from '../toolWrapper.ts';
import { pondField } from './toolFields.ts';

const search = defineTool({
  name: 'search',
  description:
    'Searches the pages of a pond the token owner may read, best match first, as { items, nextCursor }. Each hit has id, slug, title, parent slug, url, labels and a snippet with the matched words wrapped in **. Then read a hit with read_page.',
  input: z.object({
    pond: pondField,
    query: storableString().trim().min(1).max(500).describe('Words to find (all of them); "quoted phrases" match as a phrase, -word excludes a word'),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT).describe('How many hits at most'),
    cursor: searchCursor.field.describe('`nextCursor` of the previous answer, for more hits'),
  }),
  write: false,
  run: (call, input) => searchApiPages(call, input.pond, { q: input.query, limit: input.limit, cursor: input.cursor }),
});

export const searchTools: AnyMcpTool[] = [search];
