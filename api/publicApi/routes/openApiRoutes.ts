/**
 * `GET /openapi.json`: the API's description (spec: Public REST API). Open to anyone and
 * served even while the instance switch is off (publicApiRouter.ts lets this one path past
 * it): describing the API grants access to nothing, and a client or the reference page can
 * read it before anyone holds a token. It reads no credential at all, so a stale token sent
 * along cannot turn the description into a 401.
 */
import { z } from 'zod';
import { publicBaseUrl } from '../../feeds/feedUrls.ts';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { buildOpenApiDocument } from '../openApiDocument.ts';

/** What the document says of itself: an OpenAPI 3.1 document (its full schema is the OpenAPI specification's). */
const openApiDocumentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

export const openApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/openapi.json',
    access: { kind: 'public' },
    skipAuthentication: true,
    describe: {
      summary: 'This OpenAPI document',
      description: 'The OpenAPI 3.1 description of this API. Needs no token and is served even while the API is switched off.',
      tag: 'OpenAPI',
      response: { status: 200, schema: openApiDocumentSchema, description: 'The OpenAPI 3.1 document' },
    },
    handler: async ({ services }) => ({ body: buildOpenApiDocument({ serverUrl: await publicBaseUrl(services) }) }),
  }),
];
