/**
 * `GET /home/content` and the built-in welcome behind it (api/publicPages/homeContent.ts):
 * the saved landing text rendered, or the welcome in the instance default locale (never the
 * caller's: the landing document is the same for everyone), names read literally, markup
 * escaped, and the setup gate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { documentToHtml, markdownToDocument } from '../../content-pipeline/index.ts';
import { defaultHomeMarkdown } from '../publicPages/homeContent.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('defaultHomeMarkdown', () => {
  test('English and German, each naming the instance in its heading', () => {
    const english = defaultHomeMarkdown('en', 'Dorfteich Nord');
    const german = defaultHomeMarkdown('de', 'Dorfteich Nord');
    assert.match(english, /^# Welcome to Dorfteich Nord\n\n/);
    assert.match(german, /^# Willkommen bei Dorfteich Nord\n\n/);
    assert.notEqual(english, german);
    assert.match(english, /\[Sign in\]\(\/login\)/);
    assert.match(german, /\[Melde dich an\]\(\/login\)/);
  });

  test('the instance name reads literally: no emphasis, link, HTML or replacement pattern, one line', () => {
    const name = '*Teich* [x](javascript:alert(1)) <b>$& $1</b>\n# zwei';
    const html = documentToHtml(markdownToDocument(defaultHomeMarkdown('en', name)));
    const heading = /^<h1[^>]*>(.*?)<\/h1>/.exec(html)?.[1];
    assert.equal(heading, 'Welcome to *Teich* [x](javascript:alert(1)) &#x3C;b>$&#x26; $1&#x3C;/b> # zwei');
    assert.equal((html.match(/<h1/g) ?? []).length, 1);
  });
});

describe('GET /home/content', () => {
  let instance: TestInstance;
  let admin: TestClient;
  const visitor = () => new TestClient(instance.baseUrl);
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  test('while setup is pending there is no landing page: 503 setup_required', async () => {
    const response = await visitor().get('/home/content');
    assert.equal(response.status, 503);
    assert.equal(response.body.error.code, 'setup_required');
    admin = await completeSetup(instance);
  });

  test('an empty setting: the built-in welcome in the instance default locale, whatever the caller speaks', async () => {
    for (const language of ['en', 'de']) {
      const response = await visitor().get('/home/content', { headers: { 'accept-language': language } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), ['html', 'isDefault', 'markdown']);
      assert.equal(response.body.isDefault, true);
      assert.equal(response.body.markdown, defaultHomeMarkdown('en', 'Testteich'));
      assert.equal(response.body.html, documentToHtml(markdownToDocument(response.body.markdown)));
      assert.match(response.body.html, /<h1 id="[^"]+">Welcome to Testteich<\/h1>/);
    }
  });

  test('the welcome follows instance.defaultLocale and instance.name', async () => {
    assert.equal((await admin.patch('/admin/settings', { 'instance.defaultLocale': 'de', 'instance.name': 'Mühlenteich' })).status, 200);
    try {
      const response = await visitor().get('/home/content', { headers: { 'accept-language': 'en' } });
      assert.equal(response.body.isDefault, true);
      assert.equal(response.body.markdown, defaultHomeMarkdown('de', 'Mühlenteich'));
      assert.match(response.body.html, /Willkommen bei Mühlenteich<\/h1>/);
    } finally {
      assert.equal((await admin.patch('/admin/settings', { 'instance.defaultLocale': 'en', 'instance.name': 'Testteich' })).status, 200);
    }
  });

  test('a saved text is served as saved, rendered; a blank one counts as empty', async () => {
    const markdown = '# Unser Teich\n\nHier **wächst** Wissen.';
    assert.equal((await admin.patch('/admin/settings', { 'home.content': markdown })).status, 200);
    const saved = await visitor().get('/home/content');
    assert.equal(saved.status, 200);
    assert.deepEqual(saved.body, { html: '<h1 id="h-unser-teich">Unser Teich</h1><p>Hier <strong>wächst</strong> Wissen.</p>', markdown, isDefault: false });
    // The same for a signed-in caller: nothing depends on who asks.
    assert.deepEqual((await admin.get('/home/content')).body, saved.body);

    assert.equal((await admin.patch('/admin/settings', { 'home.content': ' \n\t\n' })).status, 200);
    const blank = await visitor().get('/home/content');
    assert.equal(blank.body.isDefault, true);
    assert.equal(blank.body.markdown, defaultHomeMarkdown('en', 'Testteich'));
  });

  test('markup in the saved text stays text', async () => {
    const markdown = 'Hallo <script>alert(1)</script>\n\n<iframe src="https://evil.example"></iframe>\n\n[x](javascript:alert(2))';
    assert.equal((await admin.patch('/admin/settings', { 'home.content': markdown })).status, 200);
    const response = await visitor().get('/home/content');
    assert.equal(response.body.isDefault, false);
    assert.equal(response.body.markdown, markdown);
    const html: string = response.body.html;
    assert.deepEqual([...new Set(html.match(/<[a-z][^>]*>/gi))].sort(), ['<a>', '<p>'], html);
    assert.match(html, /Hallo &#x3C;script>alert\(1\)&#x3C;\/script>/);
  });

  test('reset to the default, the welcome is back', async () => {
    assert.equal((await admin.patch('/admin/settings', { 'home.content': null })).status, 200);
    assert.equal((await visitor().get('/home/content')).body.isDefault, true);
  });
});
