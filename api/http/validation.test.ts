/**
 * What the route wrapper refuses before any handler runs, for every route alike: text with a
 * NUL or a lone surrogate in any field of params, query or body (400 naming the field, in
 * German and English), timestamps outside the years Postgres reads, bodies that are not JSON
 * where a route takes one (415), a JSON `null` or a non-object where an object is due (400),
 * bodies over 1 MB (413) and JSON nested too deep (400). And the one place that stores text
 * it cannot refuse, the audit log, stores it made safe instead of failing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordAudit } from '../audit/auditLog.ts';
import { AuditEntry, Page } from '../models/index.ts';
import { assertError, fieldPaths } from '../testing/pondTestSetup.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { MAX_INPUT_DEPTH } from './inputText.ts';
// Probe actions outside the catalogue: recordAudit itself stores whatever action it is handed.
import type { AuditAction } from '../audit/auditActions.ts';

const ENGLISH = 'This text contains a character that cannot be stored (a NUL character or a broken surrogate pair). Please remove it.';
const GERMAN = 'Dieser Text enthält ein Zeichen, das nicht gespeichert werden kann (ein NUL-Zeichen oder ein kaputtes Surrogatpaar). Bitte entferne es.';

describe('input the route wrapper refuses', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let anonymous: TestClient;
  let pondId: string;
  let pageId: string;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    anonymous = new TestClient(instance.baseUrl);
    const pond = await admin.post('/ponds', { name: 'Rule pond' });
    assert.equal(pond.status, 201, pond.text);
    pondId = pond.body.id;
    const page = await admin.post(`/ponds/${pondId}/pages`, { title: 'Rule page' });
    assert.equal(page.status, 201, page.text);
    pageId = page.body.id;
  });
  after(() => instance.close());

  const inLanguage = (language: 'de' | 'en') => ({ headers: { 'accept-language': language } });

  function textProblems(response: TestResponse): { path: string; code: string; message: string }[] {
    assertError(response, 400, 'validation_failed');
    return response.body.error.details.fields;
  }

  describe('NUL and lone surrogates', () => {
    test('in a body field: 400 naming the field with our wording in English and German, and nothing stored', async () => {
      assert.deepEqual(textProblems(await admin.post('/ponds', { name: 'a\u0000b' }, inLanguage('en'))), [{ path: 'name', code: 'invalid_text', message: ENGLISH }]);
      assert.deepEqual(textProblems(await admin.post('/ponds', { name: 'a\u0000b' }, inLanguage('de'))), [{ path: 'name', code: 'invalid_text', message: GERMAN }]);
      for (const title of ['x\ud800', '\udc00x', '\udfff\ud800', 'x\u0000']) {
        assert.deepEqual(fieldPaths(await admin.patch(`/pages/${pageId}`, { title })), ['title'], JSON.stringify(title));
      }
      assert.equal((await Page.findByPk(pageId))!.title, 'Rule page');
      // A lone surrogate would have been stored as U+FFFD, a NUL as the two characters \0.
      assert.equal(await Page.count({ where: { pondId } }), 1);
    });

    test('nested fields, array items, object keys and several at once are each named', async () => {
      assert.deepEqual(fieldPaths(await admin.patch(`/ponds/${pondId}`, { settings: { sidebarView: '\udc00' } })), ['settings.sidebarView']);
      assert.deepEqual(fieldPaths(await admin.request('PUT', `/pages/${pageId}/labels`, { body: { labelIds: ['\u0000'] } })), ['labelIds.0']);
      assert.deepEqual(fieldPaths(await admin.post('/ponds', { name: 'Fine', ['key\u0000']: 1 })), ['key\uFFFD']);
      assert.deepEqual(fieldPaths(await admin.post(`/ponds/${pondId}/pages`, { title: 'a\u0000', markdown: 'b\ud800' })).sort(), ['markdown', 'title']);
    });

    test('in queries and path parameters, also where no schema names the field', async () => {
      assert.deepEqual(fieldPaths(await admin.get(`/ponds/${pondId}/pages?createdSince=%00`)), ['query.createdSince']);
      assert.deepEqual(fieldPaths(await admin.get(`/ponds/${pondId}/pages?utm_source=a%00b`)), ['query.utm_source']);
      assert.deepEqual(fieldPaths(await anonymous.get('/legal/imprint%00')), ['params.kind']);
      assert.deepEqual(fieldPaths(await admin.get(`/search?q=${encodeURIComponent('Wort\u0000')}`)), ['query.q']);
    });

    test('a failed sign-in naming an account with a NUL is refused, not audited into a 500', async () => {
      const before = await AuditEntry.count();
      assert.deepEqual(fieldPaths(await anonymous.post('/auth/login', { login: 'ad\u0000min', password: 'whatever it is' })), ['login']);
      assert.deepEqual(fieldPaths(await anonymous.post('/auth/login', { login: 'ad\ud800min', password: 'whatever it is' })), ['login']);
      assert.equal(await AuditEntry.count(), before);
    });

    test('the audit log stores what it is handed with NUL and lone surrogates replaced, never failing', async () => {
      await recordAudit({ actor: { id: null, name: 'an\u0000on' }, action: 'test.unstorable' as AuditAction, details: { login: 'a\u0000b\ud800', nested: { ['k\u0000']: ['\udc00', 3] } } });
      const entry = await AuditEntry.findOne({ where: { action: 'test.unstorable' as AuditAction } });
      assert.ok(entry);
      assert.equal(entry.actorName, 'an\uFFFDon');
      assert.deepEqual(entry.details, { login: 'a\uFFFDb\uFFFD', nested: { 'k\uFFFD': ['\uFFFD', 3] } });
    });
  });

  describe('timestamps', () => {
    test('years Postgres does not read are 400 naming the field; the years 1 to 9999 are taken', async () => {
      for (const since of ['0000-01-01', '0000-12-31T23:59:59Z', '0000-06-01T00:00:00+02:00']) {
        for (const field of ['createdSince', 'updatedSince']) {
          const response = await admin.get(`/ponds/${pondId}/pages?${field}=${encodeURIComponent(since)}`, inLanguage('de'));
          assert.deepEqual(textProblems(response), [{ path: `query.${field}`, code: 'date_out_of_range', message: 'Gib ein Datum zwischen den Jahren 1 und 9999 an.' }], since);
        }
      }
      assert.equal((await admin.get(`/ponds/${pondId}/pages?createdSince=0001-01-01`)).body.items.length, 1);
      assert.equal((await admin.get(`/ponds/${pondId}/pages?updatedSince=${encodeURIComponent('9999-12-31T23:59:59.999+14:00')}`)).body.items.length, 0);
    });
  });

  describe('bodies', () => {
    const versions = () => `/pages/${pageId}/versions`;
    const raw = (client: TestClient, method: string, path: string, contentType: string | null, body: string) =>
      client.request(method, path, { rawBody: body, headers: contentType === null ? {} : { 'content-type': contentType } });

    test('a route that takes a body refuses one that is not JSON with 415, and JSON that is not an object with 400', async () => {
      const before = (await admin.get(versions())).body.items.length;
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
        assertError(await raw(admin, 'POST', versions(), type, '{"label":"typed wrongly"}'), 415, 'unsupported_media_type');
      }
      for (const body of ['null', '[]', '"label"', '42', 'true']) assertError(await raw(admin, 'POST', versions(), 'application/json', body), 400, 'validation_failed');
      assert.equal((await admin.get(versions())).body.items.length, before, 'none of them made a version');
    });

    test('no body at all stands for an empty object; a +json type is JSON', async () => {
      const unnamed = await admin.post(versions());
      assert.equal(unnamed.status, 201, unnamed.text);
      assert.equal(unnamed.body.label, null);
      const empty = await raw(admin, 'POST', versions(), 'application/json', '');
      assert.equal(empty.status, 201, empty.text);
      const patched = await raw(admin, 'POST', versions(), 'application/merge-patch+json', '{"label":"Through +json"}');
      assert.equal(patched.status, 201, patched.text);
      assert.equal(patched.body.label, 'Through +json');
      // A route without a body ignores one of any type.
      assert.equal((await raw(admin, 'PUT', `/pages/${pageId}/favorite`, 'text/plain', 'ignored')).status, 204);
    });

    test('a body over 1 MB answers 413, JSON nested deeper than the limit 400; neither shows internals', async () => {
      const huge = await raw(admin, 'POST', versions(), 'application/json', JSON.stringify({ label: 'x'.repeat(1_100_000) }));
      assertError(huge, 413, 'payload_too_large');
      const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
      const tooDeep = await raw(admin, 'POST', `/ponds/${pondId}/pages`, 'application/json', `{"title":"Deep","extra":${deep(MAX_INPUT_DEPTH)}}`);
      assertError(tooDeep, 400, 'invalid_request');
      assert.equal(tooDeep.body.error.details.reason, 'nested_too_deep');
      assertError(await raw(admin, 'POST', versions(), 'application/json', '['.repeat(100_000) + ']'.repeat(100_000)), 400, 'invalid_request');
      for (const response of [huge, tooDeep]) assert.doesNotMatch(response.text, /\bat \S+ \(|node_modules|\.ts:\d+/);
      // Deep, but within the limit: the schema decides (an unknown key here).
      assertError(await raw(admin, 'POST', `/ponds/${pondId}/pages`, 'application/json', `{"title":"Deep","extra":${deep(MAX_INPUT_DEPTH - 2)}}`), 400, 'validation_failed');
    });
  });
});
