/**
 * The response-validating client must be able to fail: a tiny fake route table gives a
 * document, a plain HTTP server answers each path rightly or wrongly, and every wrong answer
 * must throw an AssertionError that names the route and status.
 */
import assert, { AssertionError } from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { openApiDocumentOf, type OpenApiDocument } from '../publicApi/openApiDocument.ts';
import { PublicApiClient } from './publicApiClient.ts';

const thing = z.object({ id: z.uuid(), name: z.string(), seenAt: z.iso.datetime({ offset: true }) });
const handler = async () => undefined;

const fakeRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/things/:thingId',
    access: { kind: 'token', scope: 'read' },
    params: z.object({ thingId: z.string() }),
    describe: { summary: 'Read a thing', tag: 'Things', response: { status: 200, schema: thing, description: 'The thing' } },
    handler,
  }),
  defineRoute({
    method: 'delete',
    path: '/things/:thingId',
    access: { kind: 'token', scope: 'write' },
    // 202, not 204: Node's server drops a 204's body, and the test needs one to arrive.
    describe: { summary: 'Delete a thing', tag: 'Things', response: { status: 202, schema: null, description: 'Will be gone' } },
    handler,
  }),
  defineRoute({
    method: 'get',
    path: '/things/:thingId/export.zip',
    access: { kind: 'token', scope: 'read' },
    describe: { summary: 'Export a thing', tag: 'Things', response: { status: 200, schema: null, mediaType: 'application/zip', description: 'A ZIP' } },
    handler,
  }),
];

const THING = { id: '0b7e4a52-3d4c-4f1e-9a57-2a8f0e6c1d3b', name: 'A thing', seenAt: '2025-03-01T10:00:00Z' };
const ERROR = { error: { code: 'not_found', message: 'Not found' } };

/** What the fake server answers per request path (below the prefix). */
const answers: Record<string, { status: number; body?: unknown; raw?: string; type?: string; headers?: Record<string, string> }> = {
  '/things/good': { status: 200, body: THING },
  '/things/wrong-type': { status: 200, body: { ...THING, name: 42 } },
  '/things/extra-field': { status: 200, body: { ...THING, secret: 'x' } },
  '/things/bad-uuid': { status: 200, body: { ...THING, id: 'not-a-uuid' } },
  '/things/missing': { status: 404, body: ERROR },
  '/things/teapot': { status: 418, body: ERROR },
  '/things/bad-error': { status: 404, body: { error: 'not_found' } },
  '/things/limited': { status: 429, body: { error: { code: 'rate_limited', message: 'Later' } }, headers: { 'Retry-After': '12' } },
  '/things/limited-no-header': { status: 429, body: { error: { code: 'rate_limited', message: 'Later' } } },
  '/things/not-json': { status: 200, raw: '<html></html>', type: 'text/html' },
  '/things/good/export.zip': { status: 200, raw: 'PK\u0003\u0004', type: 'application/zip' },
  '/things/text/export.zip': { status: 200, raw: 'not a zip', type: 'text/plain' },
  '/nowhere': { status: 404, body: ERROR },
  '/nowhere-ok': { status: 200, body: { fine: true } },
};

let server: Server;
let baseUrl: string;
let document: OpenApiDocument;
let client: PublicApiClient;
let lastAuthorization: string | undefined;

before(async () => {
  server = createServer((req, res) => {
    lastAuthorization = req.headers.authorization;
    const path = (req.url ?? '').split('?')[0]!.replace('/api/public/v1', '');
    const answer = req.method === 'DELETE' ? (path === '/things/good' ? { status: 202 } : { status: 202, raw: 'surprise', type: 'text/plain' }) : answers[path];
    if (!answer) {
      res.writeHead(500).end();
      return;
    }
    const body = answer.raw ?? (answer.body === undefined ? undefined : JSON.stringify(answer.body));
    res.writeHead(answer.status, { ...(body !== undefined ? { 'content-type': answer.type ?? 'application/json; charset=utf-8' } : {}), ...answer.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  document = openApiDocumentOf(fakeRoutes, { serverUrl: baseUrl, version: '0.0.0' });
  client = new PublicApiClient(baseUrl, 'dt_pat_fake', { document });
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function assertFails(call: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof AssertionError, `expected an AssertionError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('PublicApiClient', () => {
  test('an answer that matches passes, and the bearer token is sent', async () => {
    const answer = await client.get('/things/good');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, THING);
    assert.equal(lastAuthorization, 'Bearer dt_pat_fake');
    await client.get('/things/good', { token: null });
    assert.equal(lastAuthorization, undefined);
    await client.get('/api/public/v1/things/good', { token: 'dt_pat_other' });
    assert.equal(lastAuthorization, 'Bearer dt_pat_other');
  });

  test('a body that does not match the schema fails, naming the route, status and field', async () => {
    await assertFails(() => client.get('/things/wrong-type'), /GET \/things\/\{thingId\} \(getThingsByThingId.*answered 200.*\/name must be string/s);
    await assertFails(() => client.get('/things/extra-field'), /answered 200.*must NOT have additional properties/s);
    await assertFails(() => client.get('/things/bad-uuid'), /answered 200.*\/id must match format "uuid"/s);
    await assertFails(() => client.get('/things/not-json'), /answered 200: expected application\/json, got text\/html/);
  });

  test('an undocumented status fails; documented errors must be the envelope, with their headers', async () => {
    await client.get('/things/missing');
    await assertFails(() => client.get('/things/teapot'), /answered 418: the operation does not document this status/);
    await assertFails(() => client.get('/things/bad-error'), /answered 404: the body does not match.*NotFound/s);
    await client.get('/things/limited');
    await assertFails(() => client.get('/things/limited-no-header'), /answered 429: the required header Retry-After is missing/);
  });

  test('a body-less answer must be empty, a file answer must carry its media type', async () => {
    await client.delete('/things/good');
    await assertFails(() => client.delete('/things/other'), /DELETE \/things\/\{thingId\}.*answered 202: the document says this answer has no body/s);
    const zip = await client.get('/things/good/export.zip');
    assert.deepEqual([...zip.bytes.slice(0, 2)], [0x50, 0x4b]);
    await assertFails(() => client.get('/things/text/export.zip'), /answered 200: expected application\/zip, got text\/plain/);
  });

  test('a path no route has must answer the error envelope', async () => {
    assert.equal((await client.get('/nowhere')).status, 404);
    await assertFails(() => client.get('/nowhere-ok'), /GET \/nowhere-ok \(no such route\) answered 200/);
    // A method the path does not have is no route either.
    await assertFails(() => client.patch('/things/good', {}), /PATCH \/things\/good \(no such route\) answered 200/);
  });
});
