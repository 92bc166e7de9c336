/** The search answer of the public REST API and MCP's `search` tool (operations/searchOperations.ts). */
import { z } from 'zod';
import { apiLabelRef } from '../publicApiViews.ts';

export const apiSearchHit = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    title: z.string().describe('The page title, without highlights'),
    snippet: z.string().describe('Plain text around the first matches; each match is wrapped in `**`'),
    parent: z.string().nullable().describe("The parent page's slug; null at the top level (or when the parent is not readable)"),
    url: z.url().describe('The page in the browser'),
    labels: z.array(apiLabelRef),
  })
  .meta({ id: 'SearchHit' });

export type ApiSearchHit = z.infer<typeof apiSearchHit>;
