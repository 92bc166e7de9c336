/**
 * The OpenAPI document (spec: Public REST API, "each public route is listed in it and each
 * listed route exists"; Versioning): valid OpenAPI 3.1 by a real validator, both ways in step
 * with the route table (whatever the table holds when the suite runs), every `$ref` resolving,
 * and served at /openapi.json with the API switched off too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { PublicApiClient } from '../testing/publicApiClient.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { buildOpenApiDocument, openApiDocumentOf, openApiPathOf, type OpenApiDocument } from './openApiDocument.ts';
import { OPEN_API_PATH, publicApiRoutes } from './publicApiRoutes.ts';

const SERVER = 'https://teich.example.org';
const document = buildOpenApiDocument({ serverUrl: SERVER });
const routeName = (route: AnyRoute) => `${route.method.toUpperCase()} ${route.path}`;

/** Every `$ref` string in `value`, with where it sits. */
function refsIn(value: unknown, at = '#', into: { ref: string; at: string }[] = []): { ref: string; at: string }[] {
  if (Array.isArray(value)) value.forEach((item, index) => refsIn(item, `${at}/${index}`, into));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') into.push({ ref: item, at });
      else refsIn(item, `${at}/${key}`, into);
    }
  }
  return into;
}

function resolvePointer(root: unknown, ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `${ref} is not a local reference`);
  let current: unknown = root;
  for (const segment of ref.slice(2).split('/')) {
    const key = decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || !(key in current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

describe('the OpenAPI document', () => {
  test('is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
    // The validator dereferences in place; the built document is shared and frozen.
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    assert.equal(result.specification, 'OpenAPI');
    assert.deepEqual(result.warnings, []);
    assert.equal(document.openapi, '3.1.0');
  });

  test('every public route describes itself', () => {
    for (const route of publicApiRoutes) assert.ok(route.describe, `${routeName(route)} has no describe: the OpenAPI document needs one for every public route`);
  });

  test('lists every route of the table with its method, and nothing the table does not have', () => {
    for (const route of publicApiRoutes) {
      const operation = document.paths[openApiPathOf(route.path)]?.[route.method];
      assert.ok(operation, `${routeName(route)} is missing from the document`);
      assert.equal(operation.summary, route.describe!.summary);
      assert.deepEqual(operation.tags, [route.describe!.tag]);
      assert.ok(operation.responses[String(route.describe!.response.status)], `${routeName(route)}: its success status is not listed`);
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        assert.ok(
          publicApiRoutes.some((route) => route.method === method && openApiPathOf(route.path) === path),
          `${method.toUpperCase()} ${path} is in the document but no route of the table`,
        );
      }
    }
    const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation!.operationId));
    assert.equal(new Set(operationIds).size, operationIds.length, 'operationIds are unique');
  });

  test('every $ref resolves; named schemas are components, never $defs copies', () => {
    const refs = refsIn(document);
    assert.ok(refs.length > 0);
    for (const { ref, at } of refs) assert.notEqual(resolvePointer(document, ref), undefined, `${ref} (at ${at}) does not resolve`);
    assert.ok(!JSON.stringify(document).includes('"$defs"'), 'no $defs in the document');
    assert.ok(!JSON.stringify(document).includes('"$id"'), 'no $id in the document');
    for (const name of ['Error', 'Pond', 'PageSummary', 'Page', 'Me']) assert.ok(document.components.schemas[name], `components.schemas.${name}`);
    // Every component is used by something.
    const referred = new Set(refs.map(({ ref }) => ref));
    for (const name of Object.keys(document.components.schemas)) assert.ok(referred.has(`#/components/schemas/${name}`), `${name} is not used`);
  });

  test('token routes need the bearer token and answer the shared errors; the document itself needs nothing', () => {
    assert.deepEqual(document.security, [{ bearerAuth: [] }]);
    const scheme = document.components.securitySchemes.bearerAuth!;
    assert.equal(scheme.type, 'http');
    assert.equal(scheme.scheme, 'bearer');
    assert.match(scheme.description, /dt_pat_/);
    assert.equal(document.servers[0]!.url, `${SERVER}/api/public/v1`);
    for (const route of publicApiRoutes) {
      const operation = document.paths[openApiPathOf(route.path)]![route.method]!;
      if (route.access.kind === 'public') {
        assert.deepEqual(operation.security, [], `${routeName(route)} is open to anyone`);
        continue;
      }
      assert.equal(route.access.kind, 'token', `${routeName(route)}: a public API route needs a token or is public`);
      assert.deepEqual(operation.security, route.access.scope === 'write' ? [{ bearerAuth: ['write'] }] : undefined, `${routeName(route)}: the token role`);
      for (const status of ['401', '403', '404', '429', ...(route.describe!.errors ?? []).map(String)]) {
        assert.ok(operation.responses[status], `${routeName(route)} documents ${status}`);
      }
    }
    const errorSchema = { $ref: '#/components/schemas/Error' };
    for (const [name, response] of Object.entries(document.components.responses)) assert.deepEqual(response.content?.['application/json']?.schema, errorSchema, name);
    assert.equal(document.components.responses.TooManyRequests!.headers!['Retry-After']!.required, true);
    const openApiRoute = publicApiRoutes.find((route) => route.path === OPEN_API_PATH);
    assert.equal(openApiRoute?.access.kind, 'public', `${OPEN_API_PATH} is in the table and open`);
  });

  test('path parameters are declared and required; info names the service and its version', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(item)) {
        const declared = (operation!.parameters ?? []).filter((parameter) => parameter.in === 'path');
        assert.deepEqual(declared.map((parameter) => parameter.name).sort(), [...names].sort(), `${path} ${operation!.operationId}`);
        assert.ok(declared.every((parameter) => parameter.required));
      }
    }
    assert.equal(document.info.title, 'Dorfteich public API');
    assert.match(document.info.version, /^\d+\.\d+\.\d+/);
  });

  test('is built once per server URL', () => {
    assert.equal(buildOpenApiDocument({ serverUrl: SERVER }), document);
    const other = buildOpenApiDocument({ serverUrl: 'http://localhost:3000' });
    assert.notEqual(other, document);
    assert.equal(other.servers[0]!.url, 'http://localhost:3000/api/public/v1');
    assert.ok(Object.isFrozen(document.paths));
  });
});

describe('building from a route table', () => {
  const handler = async () => undefined;
  const shared = z.object({ name: z.string(), size: z.number().default(1) }).meta({ id: 'TestSized' });

  test('a route without describe fails, naming it', () => {
    const bare = defineRoute({ method: 'get', path: '/bare', access: { kind: 'token', scope: 'read' }, handler });
    assert.throws(() => openApiDocumentOf([bare], { serverUrl: SERVER }), /GET \/bare has no describe/);
  });

  test('requests read as input, answers as output; a named schema differing between them gets an Input twin; files are binary', async () => {
    const routes: AnyRoute[] = [
      defineRoute({
        method: 'post',
        path: '/sized/:key',
        access: { kind: 'token', scope: 'write' },
        query: z.object({ limit: z.coerce.number().int().min(1).default(10), when: z.iso.date().transform((date) => new Date(date)).optional() }),
        body: shared,
        describe: { summary: 'Make', tag: 'Test', response: { status: 201, schema: shared, description: 'Made' }, errors: [409] },
        handler,
      }),
      defineRoute({
        method: 'get',
        path: '/sized/:key/file.zip',
        access: { kind: 'token', scope: 'read' },
        describe: { summary: 'File', tag: 'Test', response: { status: 200, schema: null, mediaType: 'application/zip', description: 'A file' } },
        handler,
      }),
    ];
    const built: OpenApiDocument = openApiDocumentOf(routes, { serverUrl: SERVER });
    const result = await validate(structuredClone(built) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    const operation = built.paths['/sized/{key}']!.post!;
    assert.equal(operation.operationId, 'postSizedByKey');
    assert.deepEqual(operation.requestBody!.content['application/json']!.schema, { $ref: '#/components/schemas/TestSizedInput' });
    assert.deepEqual(built.components.schemas.TestSized!.required, ['name', 'size']);
    assert.deepEqual(built.components.schemas.TestSizedInput!.required, ['name']);
    const limit = operation.parameters!.find((parameter) => parameter.name === 'limit')!;
    assert.equal(limit.required, false);
    assert.equal(limit.schema.type, 'integer');
    assert.equal(operation.parameters!.find((parameter) => parameter.name === 'when')!.schema.format, 'date');
    assert.deepEqual(operation.parameters!.find((parameter) => parameter.name === 'key'), { name: 'key', in: 'path', required: true, schema: { type: 'string' } });
    assert.deepEqual(Object.keys(operation.responses), ['201', '400', '401', '403', '404', '409', '413', '415', '429']);
    const file = built.paths['/sized/{key}/file.zip']!.get!.responses['200']!;
    assert.ok(!('$ref' in file));
    assert.deepEqual(file.content, { 'application/zip': { schema: { type: 'string', format: 'binary', contentMediaType: 'application/zip' } } });
  });
});

describe('GET /api/public/v1/openapi.json', () => {
  let instance: TestInstance;
  let admin: TestClient;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
  });
  after(() => instance.close());

  test('answers the document to anyone while the API is switched off (the default), and while it is on', async () => {
    const anonymous = new PublicApiClient(instance.baseUrl);
    const answer = await anonymous.get('/openapi.json');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, buildOpenApiDocument({ serverUrl: instance.baseUrl }));
    assert.equal(answer.body.servers[0]!.url, `${instance.baseUrl}/api/public/v1`);
    // The switch is off: every other path answers 404 api_disabled.
    const me = await anonymous.get('/me');
    assert.equal(me.status, 404);
    assert.equal(me.body.error.code, 'api_disabled');
    // A stale or garbage token does not turn the description into a 401.
    assert.equal((await anonymous.get('/openapi.json', { token: 'dt_pat_garbage' })).status, 200);

    assert.equal((await admin.patch('/admin/settings', { 'api.enabled': true })).status, 200);
    assert.equal((await anonymous.get('/openapi.json')).status, 200);
    assert.equal((await anonymous.get('/me')).status, 401);
  });
});
