/**
 * `POST /admin/settings/preview`: who may call it (401, 403, the CSRF rule for cookie
 * writes), what it accepts (JSON only, `{ markdown }` up to the settings' limit), and that it
 * renders exactly as the public landing and legal documents do: sanitized, raw HTML as text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { documentToHtml, markdownToDocument } from '../../content-pipeline/index.ts';
import { defaultHomeMarkdown } from '../publicPages/homeContent.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PATH = '/admin/settings/preview';

describe('POST /admin/settings/preview', () => {
  let instance: TestInstance;
  let admin: TestClient;
  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
  });
  after(() => instance.close());

  test('renders Markdown as the public documents do', async () => {
    const markdown = '# Willkommen\n\nDas ist **unser** Teich.\n\n- eins\n- zwei\n\n[Impressum](/legal/imprint)';
    const response = await admin.post(PATH, { markdown });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { html: documentToHtml(markdownToDocument(markdown)), isDefault: false });
    assert.match(response.body.html, /<h1 id="h-willkommen">Willkommen<\/h1>/);
    assert.match(response.body.html, /<p>Das ist <strong>unser<\/strong> Teich\.<\/p>/);
    assert.match(response.body.html, /<a href="\/legal\/imprint">Impressum<\/a>/);
  });

  test('an empty text renders as nothing, for a legal page too', async () => {
    for (const body of [{ markdown: '' }, { markdown: '', page: 'imprint' }, { markdown: ' \n', page: 'privacy' }]) {
      const response = await admin.post(PATH, body);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { html: '', isDefault: false }, JSON.stringify(body));
    }
  });

  test('for the landing page a blank text previews the built-in welcome; any other text itself', async () => {
    const blank = await admin.post(PATH, { markdown: ' \n\t', page: 'home' });
    assert.equal(blank.status, 200, blank.text);
    assert.deepEqual(blank.body, { html: documentToHtml(markdownToDocument(defaultHomeMarkdown('en', 'Testteich'))), isDefault: true });
    const written = await admin.post(PATH, { markdown: 'Hallo', page: 'home' });
    assert.deepEqual(written.body, { html: '<p>Hallo</p>', isDefault: false });
    // What GET /home/content would show once the same text is saved.
    assert.equal((await admin.patch('/admin/settings', { 'home.content': '' })).status, 200);
    assert.equal((await admin.get('/home/content')).body.html, blank.body.html);
  });

  test('markup in the Markdown stays text and script URLs lose their link', async () => {
    const markdown = '<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3))\n\n<a href="https://evil.example" onclick="alert(4)">x</a>';
    const response = await admin.post(PATH, { markdown });
    assert.equal(response.status, 200, response.text);
    const html: string = response.body.html;
    // Every real tag is a bare <p> or <a>: the rest arrived as text (`&#x3C;` is an escaped `<`).
    assert.deepEqual([...new Set(html.match(/<[a-z][^>]*>/gi))].sort(), ['<a>', '<p>'], html);
    assert.match(html, /&#x3C;script>alert\(1\)&#x3C;\/script>/);
    assert.match(html, /&#x3C;img src=x onerror=alert\(2\)>/);
    assert.match(html, /<a>click<\/a>/);
  });

  test('the text may be as long as a setting may: 200,000 characters', async () => {
    const atLimit = await admin.post(PATH, { markdown: 'a'.repeat(200_000) });
    assert.equal(atLimit.status, 200);
    assert.equal(atLimit.body.html, `<p>${'a'.repeat(200_000)}</p>`);
    const over = await admin.post(PATH, { markdown: 'a'.repeat(200_001) });
    assert.equal(over.status, 400);
    assert.equal(over.body.error.code, 'validation_failed');
    assert.deepEqual(over.body.error.details.fields.map((field: { path: string }) => field.path), ['markdown']);
  });

  const badBodies: [string, unknown, string][] = [
    ['no markdown', {}, 'markdown'],
    ['markdown not a string', { markdown: 42 }, 'markdown'],
    ['markdown null', { markdown: null }, 'markdown'],
    ['an unknown key', { markdown: 'x', key: 'home.content' }, ''],
    ['an array', ['x'], ''],
    ['an unknown page', { markdown: 'x', page: 'terms' }, 'page'],
  ];
  for (const [what, body, path] of badBodies) {
    test(`${what}: 400 validation_failed naming "${path}"`, async () => {
      const response = await admin.post(PATH, body);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error.code, 'validation_failed');
      assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), [path]);
    });
  }

  test('a body that is not JSON is 415 unsupported_media_type', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'text/markdown']) {
      const response = await admin.request('POST', PATH, { rawBody: 'markdown=%23+Hi', headers: { 'content-type': contentType } });
      assert.equal(response.status, 415, contentType);
      assert.equal(response.body.error.code, 'unsupported_media_type');
    }
  });

  test('without a session: 401 unauthenticated', async () => {
    const response = await new TestClient(instance.baseUrl).post(PATH, { markdown: '# x' });
    assert.equal(response.status, 401);
    assert.equal(response.body.error.code, 'unauthenticated');
    assert.equal(response.body.html, undefined);
  });

  test('a signed-in user who is not Site Admin: 403 forbidden, as for every /admin/settings route', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.post(PATH, { markdown: '# x' });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, 'forbidden');
    // The access rule answers before the body is looked at: no hint what the route accepts.
    const notJson = await client.request('POST', PATH, { rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(notJson.status, 403);
  });

  test("the admin's cookie from a foreign page, or without Origin, is refused (CSRF)", async () => {
    const foreign = await admin.post(PATH, { markdown: '# x' }, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.code, 'csrf_failed');
    const missing = await admin.post(PATH, { markdown: '# x' }, { origin: null });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.error.code, 'csrf_failed');
  });

  test('GET is not a preview', async () => {
    const response = await admin.get(PATH);
    assert.equal(response.status, 404);
  });
});
