/**
 * The read view for embeds (`GET /api/v1/read/:pondSlug/:pageSlug`), `/sitemap.xml` and
 * `/robots.txt`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { createPage, publicFixture, type PublicFixture } from './publicTestFixture.ts';

let instance: TestInstance;
let admin: TestClient;
let fixture: PublicFixture;

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  fixture = await publicFixture(instance, admin);
});

after(async () => {
  await instance.close();
});

test('the read view renders any page the caller may read, transclusions as the caller sees them', async () => {
  await createPage(admin, fixture.privatePond.id, { title: 'Part', slug: 'part', markdown: 'Private part text.' });
  await createPage(admin, fixture.privatePond.id, { title: 'Whole', slug: 'whole', markdown: 'Whole text.\n\n![[part]]\n' });
  const response = await admin.get(`/read/${fixture.privatePond.slug}/whole`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type')!, /^text\/html/);
  assert.match(response.text, /Whole text\./);
  assert.match(response.text, /Private part text\./);
  assert.equal(response.headers.get('cache-control'), 'private, no-store');
});

test('the read view: 401 without a session, 404 for an unreadable or missing page', async () => {
  const anonymous = await fetch(new URL(`/api/v1/read/${fixture.pond.slug}/guide`, instance.baseUrl));
  assert.equal(anonymous.status, 401);
  await resetRateLimits(instance);
  const stranger = await createVerifiedUser(instance);
  const hidden = await stranger.client.get(`/read/${fixture.privatePond.slug}/notes`);
  const missing = await stranger.client.get(`/read/${fixture.privatePond.slug}/no-such-page`);
  assert.equal(hidden.status, 404);
  assert.equal(missing.status, 404);
  assert.equal(hidden.body.error.code, 'not_found');
  // A public page is readable to every signed-in user too.
  assert.equal((await stranger.client.get(`/read/${fixture.pond.slug}/guide`)).status, 200);
});

test('the sitemap lists the public pages with lastmod, nothing private; robots.txt points at it', async () => {
  const sitemap = await fetch(new URL('/sitemap.xml', instance.baseUrl));
  assert.equal(sitemap.status, 200);
  assert.match(sitemap.headers.get('content-type')!, /application\/xml/);
  const xml = await sitemap.text();
  assert.match(xml, new RegExp(`<loc>${instance.baseUrl}/${fixture.pond.slug}/guide</loc><lastmod>\\d{4}-\\d\\d-\\d\\dT`));
  assert.match(xml, new RegExp(`<loc>${instance.baseUrl}/${fixture.pond.slug}/install</loc>`));
  assert.ok(!xml.includes('/secret<'), 'a page denied to the public is not listed');
  assert.ok(!xml.includes(fixture.privatePond.slug), 'a private pond is not listed');
  const robots = await fetch(new URL('/robots.txt', instance.baseUrl));
  assert.equal(robots.status, 200);
  const text = await robots.text();
  assert.match(text, new RegExp(`Sitemap: ${instance.baseUrl}/sitemap.xml`));
  assert.match(text, /Disallow: \/api\//);
});

test('the read view: an embedded page without text says so, in the caller’s language', async () => {
  await createPage(admin, fixture.privatePond.id, { title: 'Blank part', slug: 'blank-part' });
  await createPage(admin, fixture.privatePond.id, { title: 'Holder', slug: 'holder', markdown: 'Holder text.\n\n![[blank-part]]\n' });
  const note = (text: string) => `<div class="dt-transclusion" data-slug="blank-part" data-dt-title="Blank part"><p class="dt-transclusion-empty">${text}</p></div>`;
  for (const [language, text] of [['en', 'This embedded page has no text yet.'], ['de', 'Diese eingebettete Seite hat noch keinen Text.']]) {
    const response = await fetch(new URL(`/api/v1/read/${fixture.privatePond.slug}/holder`, instance.baseUrl), {
      headers: { cookie: `dt_session=${admin.sessionCookie}`, 'accept-language': language! },
    });
    assert.equal(response.status, 200);
    assert.ok((await response.text()).includes(note(text!)), language);
  }
});
