/** Ponds the token reaches: `GET /ponds`, `GET /ponds/:pondSlug`. */
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { apiCallOf } from '../apiCall.ts';
import { getApiPond, listApiPonds } from '../operations/pageOperations.ts';
import { apiList, apiPond } from '../publicApiViews.ts';

export const pondSlugParams = z.object({ pondSlug: z.string().describe("The pond's slug") });

export const pondApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds',
    access: { kind: 'token', scope: 'read' },
    describe: {
      summary: 'List ponds',
      description: "The ponds the token's owner belongs to that have switched the API on and that the token is not restricted away from.",
      tag: 'Ponds',
      response: { status: 200, schema: apiList(apiPond), description: 'The ponds (one page: `nextCursor` is always null)' },
    },
    handler: async (context) => ({ body: await listApiPonds(apiCallOf(context)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug',
    access: { kind: 'token', scope: 'read' },
    params: pondSlugParams,
    describe: {
      summary: 'Read a pond',
      tag: 'Ponds',
      response: { status: 200, schema: apiPond, description: 'The pond' },
      errors: [404],
    },
    handler: async (context) => ({ body: await getApiPond(apiCallOf(context), context.params.pondSlug) }),
  }),
];
