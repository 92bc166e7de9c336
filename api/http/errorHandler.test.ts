/**
 * The error envelope `{ error: { code, message, details } }` through HTTP: body-parser
 * failures, validation, unknown routes, unexpected errors, message localization, and the
 * headers every response carries.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { pino } from 'pino';
import { sessionCookieAuthentication } from '../auth/authenticateRequest.ts';
import { errorMessagesDe } from '../i18n/errorMessages.de.ts';
import { errorMessagesEn } from '../i18n/errorMessages.en.ts';
import { User } from '../models/index.ts';
import { ADMIN, completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { ApiError } from './apiError.ts';
import { createErrorHandler } from './errorHandler.ts';
import { requestLogging } from './requestLogging.ts';
import { defineRoute, registerRoutes } from './routeTable.ts';
import { securityHeaders } from './securityHeaders.ts';

function assertSecurityHeaders(response: TestResponse, label: string): void {
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', label);
  assert.equal(response.headers.get('x-frame-options'), 'DENY', label);
  assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, label);
  assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, label);
  assert.equal(response.headers.get('x-powered-by'), null, label);
}

describe('error envelope and headers (setup pending)', () => {
  let instance: TestInstance;
  let client: TestClient;
  before(async () => {
    instance = await startTestInstance();
    client = new TestClient(instance.baseUrl);
  });
  after(() => instance.close());

  test('malformed JSON is 400 invalid_request', async () => {
    const response = await client.request('POST', '/auth/login', { rawBody: '{"login": "admin",' });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: { code: 'invalid_request', message: errorMessagesEn.invalid_request, details: { reason: 'malformed_json' } } });
  });

  test('a validation failure is 400 validation_failed listing each field', async () => {
    const response = await client.post('/auth/login', { login: 42 });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    const fields = response.body.error.details.fields as { path: string; code: string; message: string }[];
    assert.deepEqual(fields.map((field) => field.path).sort(), ['login', 'password']);
    for (const field of fields) {
      assert.equal(typeof field.code, 'string');
      assert.equal(typeof field.message, 'string');
    }
  });

  test('an unknown API route is 404 not_found', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/setup/nope', '/api/elsewhere']) {
      const response = await client.get(path);
      assert.equal(response.status, 404, path);
      assert.deepEqual(response.body, { error: { code: 'not_found', message: errorMessagesEn.not_found, details: {} } }, path);
    }
  });

  test('a body over 1 MB is 413 payload_too_large', async () => {
    const response = await client.request('POST', '/auth/login', { rawBody: JSON.stringify({ login: 'x'.repeat(1_100_000), password: 'y' }) });
    assert.equal(response.status, 413);
    assert.equal(response.body.error.code, 'payload_too_large');
  });

  test('an unsupported charset is 415 unsupported_media_type', async () => {
    const response = await client.request('POST', '/auth/login', { rawBody: '{}', headers: { 'content-type': 'application/json; charset=latin9' } });
    assert.equal(response.status, 415);
    assert.equal(response.body.error.code, 'unsupported_media_type');
  });

  test('a body just under 1 MB is parsed', async () => {
    const response = await client.request('POST', '/auth/login', { rawBody: JSON.stringify({ login: 42, pad: 'x'.repeat(1_000_000) }) });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
  });

  test('Accept-Language picks the message language; no usable header falls back to the instance default', async () => {
    const cases: [string | undefined, string][] = [
      ['de', errorMessagesDe.not_found],
      ['en', errorMessagesEn.not_found],
      ['de-CH, en;q=0.5', errorMessagesDe.not_found],
      ['fr, en;q=0.8, de;q=0.5', errorMessagesEn.not_found],
      ['fr', errorMessagesEn.not_found],
      [undefined, errorMessagesEn.not_found],
    ];
    assert.notEqual(errorMessagesDe.not_found, errorMessagesEn.not_found);
    for (const [header, message] of cases) {
      const response = await client.get('/nope', { headers: header ? { 'accept-language': header } : {} });
      assert.equal(response.body.error.message, message, String(header));
    }
  });

  test('setup_required is localized too', async () => {
    const response = await client.get('/users/me', { headers: { 'accept-language': 'de' } });
    assert.equal(response.status, 503);
    assert.equal(response.body.error.message, errorMessagesDe.setup_required);
  });

  test('every response carries the security headers and a request id', async () => {
    const responses: [string, TestResponse][] = [
      ['200', await client.get('/healthz')],
      ['400', await client.post('/auth/login', {})],
      ['404', await client.get('/nope')],
      ['413', await client.request('POST', '/auth/login', { rawBody: `"${'x'.repeat(1_100_000)}"` })],
      ['503', await client.get('/ponds')],
      ['non-API 404', await client.get('/api/../elsewhere')],
    ];
    for (const [label, response] of responses) assertSecurityHeaders(response, label);
    const ids = new Set(responses.map(([, response]) => response.headers.get('x-request-id')));
    assert.equal(ids.size, responses.length, 'request ids are unique');
  });

  test('a sane incoming X-Request-Id is kept, an unsafe one replaced', async () => {
    const kept = await client.get('/healthz', { headers: { 'x-request-id': 'trace-0123456789' } });
    assert.equal(kept.headers.get('x-request-id'), 'trace-0123456789');
    const replaced = await client.get('/healthz', { headers: { 'x-request-id': 'bad id <script>' } });
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  test('an https base URL adds Strict-Transport-Security; plain http does not', async () => {
    assert.equal((await client.get('/healthz')).headers.get('strict-transport-security'), null);
    await instance.close();
    instance = await startTestInstance({ env: { BASE_URL: 'https://wiki.example.org' } });
    client = new TestClient(instance.baseUrl);
    assert.match((await client.get('/healthz')).headers.get('strict-transport-security') ?? '', /max-age=\d+/);
  });
});

describe('message locale after setup', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  test('without a header the instance default locale applies', async () => {
    const admin = new TestClient(instance.baseUrl);
    assert.equal((await admin.post('/setup/admin', ADMIN)).status, 201);
    assert.equal((await admin.post('/setup/instance', { name: 'Teich', baseUrl: instance.baseUrl, defaultLocale: 'de' })).status, 200);
    const response = await new TestClient(instance.baseUrl).get('/nope');
    assert.equal(response.body.error.message, errorMessagesDe.not_found);
    const english = await new TestClient(instance.baseUrl).get('/nope', { headers: { 'accept-language': 'en' } });
    assert.equal(english.body.error.message, errorMessagesEn.not_found);
  });

  test("the signed-in user's locale beats Accept-Language", async () => {
    await instance.close();
    instance = await startTestInstance();
    await completeSetup(instance);
    const { client } = await createVerifiedUser(instance, { locale: 'de' });
    const response = await client.patch('/users/me', { digestFrequency: 'weekly' }, { headers: { 'accept-language': 'en' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.message, errorMessagesDe.validation_failed);
  });
});

describe('unexpected errors', () => {
  let instance: TestInstance;
  let server: Server;
  let baseUrl: string;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    instance = await startTestInstance();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        callback();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const app = express();
    app.disable('x-powered-by');
    app.use(requestLogging(logger));
    app.use(securityHeaders({ https: false }));
    const router = express.Router();
    router.use(express.json());
    const probe = { access: { kind: 'public' }, setupExempt: true, skipAuthentication: true } as const;
    registerRoutes(
      router,
      [
        defineRoute({ ...probe, method: 'get', path: '/boom', handler: async () => { throw new Error('db password is hunter2'); } }),
        defineRoute({ ...probe, method: 'get', path: '/items/:id', handler: async ({ params }) => ({ body: params }) }),
        defineRoute({ ...probe, method: 'get', path: '/unavailable', handler: async () => { throw new ApiError('setup_required'); } }),
        defineRoute({ ...probe, method: 'get', path: '/limited', handler: async () => { throw new ApiError('rate_limited', undefined, { scope: 'test' }, { 'Retry-After': '42' }); } }),
        defineRoute({
          ...probe,
          method: 'post',
          path: '/twins',
          // A write that runs into a unique index and catches nothing (as a forgotten race would).
          handler: async () => {
            const twin = { username: 'twin', email: 'twin@example.org', displayName: 'Twin', locale: null, status: 'ACTIVE' as const, passwordHash: null, emailVerifiedAt: null };
            await User.create(twin);
            await User.create({ ...twin, email: 'other-twin@example.org' });
          },
        }),
      ],
      instance.services,
      { authenticate: sessionCookieAuthentication },
    );
    app.use('/api/v1', router);
    app.use(createErrorHandler(logger));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await instance.close();
  });

  test('a thrown Error is 500 internal_error without stack or message, and is logged with the request id', async () => {
    const response = await new TestClient(baseUrl).get('/boom');
    assert.equal(response.status, 500);
    assert.deepEqual(response.body, { error: { code: 'internal_error', message: errorMessagesEn.internal_error, details: {} } });
    assert.ok(!response.text.includes('hunter2'));
    assert.ok(!/\bat\s.+\.ts:\d+/.test(response.text), 'no stack frames in the body');
    const requestId = response.headers.get('x-request-id');
    const logged = logLines.find((line) => line.msg === 'unhandled error');
    assert.ok(logged, 'the error is logged');
    assert.equal(logged.reqId, requestId);
    assert.match(JSON.stringify(logged.err), /hunter2/);
    assert.ok(logLines.some((line) => line.msg === 'request' && line.reqId === requestId && line.status === 500));
  });

  test('a 503 we answer on purpose is logged as a warning, a 500 as an error', async () => {
    const unavailable = await new TestClient(baseUrl).get('/unavailable');
    assert.equal(unavailable.status, 503);
    const failed = await new TestClient(baseUrl).get('/boom');
    const levelOf = (requestId: string | null) => logLines.find((line) => line.msg === 'request' && line.reqId === requestId)?.level;
    assert.equal(levelOf(unavailable.headers.get('x-request-id')), 40);
    assert.equal(levelOf(failed.headers.get('x-request-id')), 50);
  });

  test('a malformed percent-encoding in a path parameter is 400 invalid_request, not a logged 500', async () => {
    const logged = logLines.length;
    assert.deepEqual((await new TestClient(baseUrl).get('/items/caf%C3%A9')).body, { id: 'café' });
    const response = await new TestClient(baseUrl).get('/items/%E0%A4%A');
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'invalid_request');
    assert.ok(!logLines.slice(logged).some((line) => line.msg === 'unhandled error'));
  });

  test('a unique violation nobody caught is the index\'s 409 code, not a 500', async () => {
    const logged = logLines.length;
    const response = await new TestClient(baseUrl).post('/twins', {}, { origin: null });
    assert.equal(response.status, 409, response.text);
    assert.deepEqual(response.body, { error: { code: 'username_taken', message: errorMessagesEn.username_taken, details: {} } });
    assert.ok(!logLines.slice(logged).some((line) => line.msg === 'unhandled error'));
  });

  test('an ApiError keeps its status, details and extra headers', async () => {
    const response = await new TestClient(baseUrl).get('/limited', { headers: { 'accept-language': 'de' } });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('retry-after'), '42');
    assert.deepEqual(response.body, { error: { code: 'rate_limited', message: errorMessagesDe.rate_limited, details: { scope: 'test' } } });
  });
});
