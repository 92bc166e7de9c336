/**
 * `GET /home/overview` (api/publicPages/homeContent.ts): what the landing page lists for
 * visitors. Only what the public may read (a denied page, a private pond, a trashed page are
 * never named), ponds and pages newest first, the page list bounded, empty lists while nothing
 * is public; the landing text with the built-in welcome in the caller's language, the saved
 * text as it is; the setup gate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { completeSetup } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { LANDING_PAGES_SHOWN } from './homeContent.ts';
import { createPage, grantPublic } from './publicTestFixture.ts';

describe('GET /home/overview', () => {
  let instance: TestInstance;
  let admin: TestClient;
  const visitor = () => new TestClient(instance.baseUrl);
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  test('while setup is pending: 503 setup_required', async () => {
    const response = await visitor().get('/home/overview');
    assert.equal(response.status, 503);
    assert.equal(response.body.error.code, 'setup_required');
    admin = await completeSetup(instance);
  });

  test('nothing public yet: empty lists; the welcome in the language the browser asks for', async () => {
    const english = await visitor().get('/home/overview', { headers: { 'accept-language': 'en-US' } });
    assert.equal(english.status, 200);
    assert.deepEqual({ ponds: english.body.ponds, recentPages: english.body.recentPages }, { ponds: [], recentPages: [] });
    assert.equal(english.body.content.isDefault, true);
    assert.match(english.body.content.html, /Welcome to Testteich/);
    const german = await visitor().get('/home/overview', { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    assert.match(german.body.content.html, /Willkommen bei Testteich/);
  });

  test('only what the public may read, newest first; the page list bounded', async () => {
    const older = (await admin.post('/ponds', { name: 'Older pond', slug: 'older-pond' })).body as { id: string };
    const newer = (await admin.post('/ponds', { name: 'Newer pond', slug: 'newer-pond' })).body as { id: string };
    const closed = (await admin.post('/ponds', { name: 'Closed pond', slug: 'closed-pond' })).body as { id: string };
    await grantPublic(admin, older.id, { type: 'pond' });
    await grantPublic(admin, newer.id, { type: 'pond' });
    await createPage(admin, older.id, { title: 'Old news', slug: 'old-news' });
    await createPage(admin, closed.id, { title: 'Closed notes', slug: 'closed-notes' });
    const denied = await createPage(admin, newer.id, { title: 'Denied page', slug: 'denied-page' });
    await grantPublic(admin, newer.id, { type: 'page', id: denied }, 'deny');
    const trashed = await createPage(admin, newer.id, { title: 'Trashed page', slug: 'trashed-page' });
    assert.equal((await admin.request('DELETE', `/pages/${trashed}`)).status, 200);
    const titles: string[] = [];
    for (let index = 1; index <= LANDING_PAGES_SHOWN + 2; index++) {
      titles.push(`Fresh ${index}`);
      await createPage(admin, newer.id, { title: `Fresh ${index}`, slug: `fresh-${index}` });
    }
    const response = await visitor().get('/home/overview');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.ponds.map((pond: { slug: string; pageCount: number }) => [pond.slug, pond.pageCount]), [['newer-pond', LANDING_PAGES_SHOWN + 2], ['older-pond', 1]]);
    const recent = response.body.recentPages as { pond: { slug: string; name: string }; slug: string; title: string; updatedAt: string }[];
    assert.equal(recent.length, LANDING_PAGES_SHOWN);
    assert.deepEqual(recent.map((page) => page.title), titles.reverse().slice(0, LANDING_PAGES_SHOWN));
    assert.deepEqual(recent[0]!.pond, { slug: 'newer-pond', name: 'Newer pond' });
    const sorted = [...recent].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
    assert.deepEqual(recent, sorted, 'newest first');
    const text = JSON.stringify(response.body);
    for (const hidden of ['Closed', 'closed-pond', 'Denied page', 'Trashed page']) assert.ok(!text.includes(hidden), `${hidden} is not named`);
  });

  test('a saved landing text is shown as it is, rendered and sanitized', async () => {
    assert.equal((await admin.request('PATCH', '/admin/settings', { body: { 'home.content': '# Unser Teich\n\n<script>x()</script>' } })).status, 200);
    const response = await visitor().get('/home/overview', { headers: { 'accept-language': 'en' } });
    assert.equal(response.body.content.isDefault, false);
    assert.match(response.body.content.html, /<h1[^>]*>Unser Teich<\/h1>/);
    assert.ok(!response.body.content.html.includes('<script>'));
  });
});
