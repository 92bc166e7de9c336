/**
 * The OpenAPI 3.1 document of the public REST API (spec: Public REST API, Versioning), made
 * from the route table itself: each route's path, method, access rule, `describe` and zod
 * schemas, so the document cannot drift from what the routes validate and answer. The tests
 * validate it with a real OpenAPI 3.1 validator and every REST answer against it
 * (api/testing/publicApiClient.ts).
 */
import { readFileSync } from 'node:fs';
import type { AnyRoute, HttpMethod } from '../http/routeTable.ts';
import { errorResponseName, errorResponsesOf, type OpenApiResponse } from './openApiErrors.ts';
import { collectRefs, componentRef, rewriteRefs, SchemaConversion, COMPONENT_PREFIX, type JsonSchema } from './openApiSchemas.ts';
import { PUBLIC_API_PREFIX } from './publicApiRouter.ts';
import { publicApiRoutes } from './publicApiRoutes.ts';
import { apiErrorEnvelope } from './publicApiViews.ts';

export type { JsonSchema } from './openApiSchemas.ts';
export type { OpenApiResponse } from './openApiErrors.ts';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, OpenApiResponse | { $ref: string }>;
  /** `[]` on operations open to anyone, the `write` role on those that need a read-and-write token; read operations inherit the document's. */
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  security: Record<string, string[]>[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Partial<Record<HttpMethod, OpenApiOperation>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description: string }>;
  };
}

const SECURITY_SCHEME = 'bearerAuth';

/** The document's groups in reading order; a tag not listed here follows in the order routes use it. */
const TAGS: { name: string; description: string }[] = [
  { name: 'Me', description: 'The token and the account it acts for.' },
  { name: 'Ponds', description: 'Ponds the token reaches: its owner can read them, they have switched the API on, and the token is not restricted to another pond.' },
  { name: 'Pages', description: 'Pages by slug: list, read as Markdown or HTML, create from Markdown, change, move to the trash.' },
  { name: 'Search', description: 'Full-text search within a pond; hits in snippets are wrapped in `**`.' },
  { name: 'Labels', description: "The pond's label tree, and the labels of a page." },
  { name: 'Comments', description: 'Comment threads on pages.' },
  { name: 'Export', description: "A pond's pages as a ZIP of Markdown files." },
  { name: 'OpenAPI', description: 'This document.' },
];

const INFO_DESCRIPTION = [
  "Dorfteich's public REST API: ponds, pages, search, labels, comments and export for programs and scripts, with the permissions of the token's owner.",
  '',
  '**Authentication.** Every request except this document carries a personal access token: `Authorization: Bearer dt_pat_…`. Create one in Settings → Personal access tokens; a read token cannot change anything, and a token may be restricted to one pond.',
  '',
  "**Switches.** The instance must have the API switched on (else every route answers 404 `api_disabled`), and each pond switches it on for itself. A pond that has not, one outside the token's pond restriction and one the token's owner cannot read all answer 404 `not_found`, exactly as a missing pond does.",
  '',
  '**Rate limit.** Each token has a budget of requests per minute; past it the answer is 429 `rate_limited` with `Retry-After` (seconds).',
  '',
  "**Errors** share one shape, `{ \"error\": { \"code\", \"message\", \"details\" } }`: `code` is stable, `message` is in the caller's language.",
  '',
  '**Paging.** Lists answer `{ \"items\", \"nextCursor\" }`; pass `nextCursor` as `cursor` for the next page, until it is null.',
].join('\n');

/** Read once: the version the document announces is the service's own. */
const SERVICE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const documents = new Map<string, OpenApiDocument>();

/**
 * The document of `publicApiRoutes` for an instance reachable at `serverUrl` (its base URL, no
 * trailing slash). Built once per URL: the routes do not change while the process runs. The
 * result is frozen, as it is shared.
 */
export function buildOpenApiDocument(options: { serverUrl: string }): OpenApiDocument {
  let document = documents.get(options.serverUrl);
  if (!document) {
    document = deepFreeze(openApiDocumentOf(publicApiRoutes, options));
    documents.set(options.serverUrl, document);
  }
  return document;
}

/** Express's `:name` → OpenAPI's `{name}`. */
export function openApiPathOf(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Stable and unique per route: the method and the path's words, parameters as `By<Name>` (`GET /ponds/:pondSlug` → `getPondsByPondSlug`). */
export function operationIdOf(method: HttpMethod, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith(':') ? ['by', ...segment.slice(1).split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/)))
    .filter(Boolean);
  return method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

function routeName(route: AnyRoute): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

interface PlannedOperation {
  route: AnyRoute;
  operationId: string;
  keys: { params?: string; query?: string; body?: string; response?: string };
}

/** The document of any route table (the tests feed it small fake tables too). */
export function openApiDocumentOf(routes: readonly AnyRoute[], options: { serverUrl: string; version?: string }): OpenApiDocument {
  const requests = new SchemaConversion('input');
  const responses = new SchemaConversion('output');
  responses.add(apiErrorEnvelope, 'Error');
  const seenIds = new Set<string>();
  const planned: PlannedOperation[] = routes.map((route) => {
    if (!route.describe) throw new Error(`Public route ${routeName(route)} has no describe: every public route must describe itself for the OpenAPI document`);
    const operationId = operationIdOf(route.method, route.path);
    if (seenIds.has(operationId)) throw new Error(`Two public routes share the operationId ${operationId} (${routeName(route)})`);
    seenIds.add(operationId);
    const schema = route.describe.response.schema;
    return {
      route,
      operationId,
      keys: {
        params: route.params && requests.add(route.params, `${operationId}Params`),
        query: route.query && requests.add(route.query, `${operationId}Query`),
        body: route.body && requests.add(route.body, `${operationId}Body`),
        response: schema ? responses.add(schema, `${operationId}Response`) : undefined,
      },
    };
  });
  requests.convert();
  responses.convert();

  // A named schema reads the same both ways unless it has defaults or transforms; then the request side gets its own `<id>Input`.
  const outputs = responses.candidates();
  const inputs = requests.candidates();
  const renamed = new Map<string, string>();
  for (const [name, schema] of inputs) if (outputs.has(name) && JSON.stringify(outputs.get(name)) !== JSON.stringify(schema)) renamed.set(name, `${name}Input`);
  const toInputName = (ref: string) => {
    const name = ref.startsWith(COMPONENT_PREFIX) ? ref.slice(COMPONENT_PREFIX.length) : null;
    return name && renamed.has(name) ? `${COMPONENT_PREFIX}${renamed.get(name)}` : ref;
  };
  const requestSchema = (key: string) => rewriteRefs(requests.schemaOf(key), toInputName);
  const candidates = new Map<string, JsonSchema>(outputs);
  for (const [name, schema] of inputs) candidates.set(renamed.get(name) ?? name, rewriteRefs(schema, toInputName));

  const paths: OpenApiDocument['paths'] = {};
  const errorStatuses = new Set<number>();
  const usedTags: string[] = [];
  for (const { route, operationId, keys } of planned) {
    const describe = route.describe!;
    const parameters = [
      ...pathParameters(route, keys.params ? resolveSchema(requestSchema(keys.params), candidates) : undefined),
      ...queryParameters(route, keys.query ? resolveSchema(requestSchema(keys.query), candidates) : undefined),
    ];
    const open = route.access.kind === 'public';
    // OpenAPI 3.1 lets a non-OAuth requirement name roles: a write route needs a read-and-write token, a read route any token (the document's default).
    const writes = route.access.kind === 'token' && route.access.scope === 'write';
    const operation: OpenApiOperation = {
      operationId,
      summary: describe.summary,
      ...(describe.description ? { description: describe.description } : {}),
      tags: [describe.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(keys.body ? { requestBody: requestBodyOf(requestSchema(keys.body), candidates) } : {}),
      responses: { [String(describe.response.status)]: successResponse(describe.response, keys.response ? responses.schemaOf(keys.response) : null) },
      ...(open ? { security: [] } : writes ? { security: [{ [SECURITY_SCHEME]: ['write'] }] } : {}),
    };
    for (const status of errorStatusesOf(route)) {
      if (String(status) in operation.responses) throw new Error(`${routeName(route)} lists ${status} both as its answer and as an error`);
      operation.responses[String(status)] = { $ref: `#/components/responses/${errorResponseName(status)}` };
      errorStatuses.add(status);
    }
    const path = openApiPathOf(route.path);
    const item = (paths[path] ??= {});
    if (item[route.method]) throw new Error(`${routeName(route)} is in the table twice`);
    item[route.method] = operation;
    if (!usedTags.includes(describe.tag)) usedTags.push(describe.tag);
  }

  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 'Dorfteich public API', version: options.version ?? SERVICE_VERSION, description: INFO_DESCRIPTION },
    servers: [{ url: `${options.serverUrl.replace(/\/+$/, '')}${PUBLIC_API_PREFIX}` }],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [...TAGS.filter((tag) => usedTags.includes(tag.name)), ...usedTags.filter((name) => !TAGS.some((tag) => tag.name === name)).map((name) => ({ name }))],
    paths,
    components: {
      schemas: {},
      responses: errorResponsesOf([...errorStatuses].sort((a, b) => a - b), componentRef('Error')),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'dt_pat_…',
          description:
            'A personal access token, `dt_pat_` followed by the secret, sent as `Authorization: Bearer dt_pat_…`. Each user creates their own in Settings → Personal access tokens: read only, or read and write (operations that change something require the role `write`), optionally for one pond, optionally expiring.',
        },
      },
    },
  };
  document.components.schemas = reachableComponents(document, candidates);
  // Plain JSON from here on: what the route serves is exactly what the tests validate.
  return JSON.parse(JSON.stringify(document)) as OpenApiDocument;
}

/**
 * The statuses besides success: what every token route can answer (no or a bad token, scope,
 * switches and pond refusals, the rate limit), what the route table's validation can answer
 * for a route with a query or a body, and the route's own `describe.errors`.
 */
function errorStatusesOf(route: AnyRoute): number[] {
  const statuses = new Set<number>(route.describe?.errors ?? []);
  if (route.access.kind === 'token') for (const status of [401, 403, 404, 429]) statuses.add(status);
  if (route.query || route.body) statuses.add(400);
  if (route.body) for (const status of [413, 415]) statuses.add(status);
  for (const status of statuses) if (!Number.isInteger(status) || status < 400 || status > 599) throw new Error(`${routeName(route)} lists ${status} as an error status`);
  return [...statuses].sort((a, b) => a - b);
}

function successResponse(response: NonNullable<AnyRoute['describe']>['response'], schema: JsonSchema | null): OpenApiResponse {
  const mediaType = response.mediaType ?? 'application/json';
  if (schema) return { description: response.description, content: { [mediaType]: { schema } } };
  if (response.mediaType) {
    // A file or text body: a string, binary unless it is text.
    const fileSchema: JsonSchema = mediaType.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary', contentMediaType: mediaType };
    return { description: response.description, content: { [mediaType]: { schema: fileSchema } } };
  }
  return { description: response.description };
}

/** A schema with `$ref`s to components followed at its top (to read an object's properties). */
function resolveSchema(schema: JsonSchema, candidates: Map<string, JsonSchema>): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const name = current.$ref.slice(COMPONENT_PREFIX.length);
    const target = candidates.get(name);
    if (!target) throw new Error(`Dangling $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

function objectProperties(schema: JsonSchema | undefined, route: AnyRoute, part: string): { properties: Record<string, JsonSchema>; required: string[] } {
  if (!schema) return { properties: {}, required: [] };
  if (schema.type !== 'object' || typeof schema.properties !== 'object') throw new Error(`${routeName(route)}: the ${part} schema must be a zod object to become parameters`);
  return { properties: schema.properties as Record<string, JsonSchema>, required: (schema.required as string[] | undefined) ?? [] };
}

/** A property's own description becomes the parameter's (where readers of the document look for it). */
function parameterOf(name: string, location: 'path' | 'query', required: boolean, propertySchema: JsonSchema): OpenApiParameter {
  const { description, ...schema } = propertySchema;
  return { name, in: location, required, ...(typeof description === 'string' ? { description } : {}), schema };
}

function pathParameters(route: AnyRoute, schema: JsonSchema | undefined): OpenApiParameter[] {
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const { properties } = objectProperties(schema, route, 'params');
  for (const name of Object.keys(properties)) if (!names.includes(name)) throw new Error(`${routeName(route)}: params schema names ${name}, which is not in the path`);
  // A route without a params schema gets its path's parameters as Express hands them over: strings.
  return names.map((name) => parameterOf(name, 'path', true, properties[name] ?? { type: 'string' }));
}

function queryParameters(route: AnyRoute, schema: JsonSchema | undefined): OpenApiParameter[] {
  const { properties, required } = objectProperties(schema, route, 'query');
  return Object.entries(properties).map(([name, property]) => parameterOf(name, 'query', required.includes(name), property));
}

function requestBodyOf(schema: JsonSchema, candidates: Map<string, JsonSchema>): NonNullable<OpenApiOperation['requestBody']> {
  // A missing body counts as `{}` (validation.ts), so a body is required only when some field is.
  const resolved = resolveSchema(schema, candidates);
  const required = Array.isArray(resolved.required) && resolved.required.length > 0;
  return { required, content: { 'application/json': { schema } } };
}

/** The components the paths and responses reach (directly or through other components); a dangling `$ref` throws. */
function reachableComponents(document: OpenApiDocument, candidates: Map<string, JsonSchema>): Record<string, JsonSchema> {
  const reached: Record<string, JsonSchema> = {};
  const pending = [...collectRefs([document.paths, document.components.responses], new Set())];
  while (pending.length) {
    const name = pending.pop()!;
    if (name in reached) continue;
    const schema = candidates.get(name);
    if (!schema) throw new Error(`Dangling $ref ${COMPONENT_PREFIX}${name}`);
    reached[name] = schema;
    pending.push(...collectRefs(schema, new Set()));
  }
  return Object.fromEntries(Object.entries(reached).sort(([a], [b]) => a.localeCompare(b)));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
