import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { completeSetup } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('GET /legal/:kind', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  test('answers while setup is pending, with a localized notice instead of a 404', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    const english = await anonymous.get('/legal/imprint', { headers: { 'accept-language': 'de' } });
    assert.equal(english.status, 200);
    assert.match(english.headers.get('content-type') ?? '', /text\/html/);
    // One document for everyone: the instance default locale (English until setup says otherwise).
    assert.match(english.text, /<h1[^>]*>Imprint<\/h1>/);
    assert.match(english.text, /has not filled in this page yet/);
    assert.match(english.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.ok(!/<script/i.test(english.text));
    const human = await fetch(new URL('/legal/imprint', instance.baseUrl));
    assert.equal(human.status, 200);
    assert.equal(await human.text(), english.text, 'the human URL answers the same bytes');
  });

  test('an unknown kind is a validation error', async () => {
    const response = await new TestClient(instance.baseUrl).get('/legal/terms');
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
  });

  test('renders the configured Markdown, with raw HTML shown as text', async () => {
    const admin = await completeSetup(instance);
    const saved = await admin.patch('/admin/settings', { 'legal.imprint': '**Dorfteich e.V.**\\\nTeichweg 1\n\n<script>alert(1)</script>\n\n[Kontakt](mailto:info@example.org)' });
    assert.equal(saved.status, 200, saved.text);
    const page = await new TestClient(instance.baseUrl).get('/legal/imprint');
    assert.match(page.text, /<p><strong>Dorfteich e\.V\.<\/strong><br>Teichweg 1<\/p>/);
    assert.ok(!page.text.includes('<script>'), 'markup in the text is escaped');
    assert.match(page.text, /&#x3C;script>alert\(1\)&#x3C;\/script>/);
    assert.match(page.text, /<a href="mailto:info@example\.org">Kontakt<\/a>/);
    assert.match(page.text, /<title>Imprint · Testteich<\/title>/);
    const german = await admin.patch('/admin/settings', { 'instance.defaultLocale': 'de' });
    assert.equal(german.status, 200, german.text);
    const privacy = await new TestClient(instance.baseUrl).get('/legal/privacy');
    assert.match(privacy.text, /<h1[^>]*>Datenschutzerklärung<\/h1>/);
    assert.match(privacy.text, /noch nicht eingerichtet/);
  });
});
