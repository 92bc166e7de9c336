/**
 * The landing page at `/` for visitors (issue 35): in the browser's language (Accept-Language,
 * as on /login), Sign in always and Sign up only while registration is open, the public ponds
 * and the recently changed public pages (newest first, nothing private named), empty states
 * while there are none; axe on desktop-en and phone-de; the caching of a page that names only
 * public things (a generated document per language: api/publicPages/landingDocument.test.ts),
 * and a signed-in browser still gets its home at the same URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { publicFixture, type PublicFixture } from '../../api/publicPages/publicTestFixture.ts';
import { ADMIN, completeSetup } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES } from './browserSession.ts';

describe('the landing page for visitors', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let browser: Browser;
  let fixture: PublicFixture;

  before(async () => {
    await ensureSiteBuilt();
    instance = await startTestInstance({ site: true });
    admin = await completeSetup(instance, { registration: 'closed' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await instance?.close();
  });

  const setRegistration = async (mode: 'open' | 'closed') => assert.equal((await admin.request('PATCH', '/admin/settings', { body: { 'registration.mode': mode } })).status, 200);

  for (const shape of SCREEN_SHAPES) {
    test(`closed registration, no public pond: Sign in only, both lists empty, in the browser's language (${shape.name})`, { timeout: 60_000 }, async () => {
      const { context, page, t, problems, check, visit } = await openSession(browser, shape, 'landing-empty');
      try {
        await visit(`${instance.baseUrl}/`);
        assert.equal(await page.locator('html').getAttribute('lang'), shape.locale);
        await page.getByRole('heading', { level: 1, name: t('home.landingHeading', { instance: 'Testteich' }) }).waitFor();
        const actions = page.getByRole('navigation', { name: t('home.landingActions') });
        assert.equal(await actions.getByRole('link', { name: t('nav.signIn') }).getAttribute('href'), '/login');
        assert.equal(await actions.getByRole('link', { name: t('nav.signUp') }).count(), 0, 'no Sign up while registration is closed');
        await page.getByText(t('home.publicPondsEmpty')).waitFor();
        await page.getByText(t('home.publicRecentEmpty')).waitFor();
        await check('landing');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  test('open registration and public pages: listed newest first; private ponds and pages are never named', { timeout: 120_000 }, async () => {
    await setRegistration('open');
    fixture = await publicFixture(instance, admin);
    // The guide changes last: it leads the recent list.
    assert.equal((await admin.request('PATCH', `/pages/${fixture.pages.guide}`, { body: { title: 'Guide to the pond' } })).status, 200);
    for (const shape of SCREEN_SHAPES) {
      const { context, page, t, problems, check, visit } = await openSession(browser, shape, 'landing');
      try {
        await visit(`${instance.baseUrl}/`);
        assert.equal(await page.locator('html').getAttribute('lang'), shape.locale);
        const actions = page.getByRole('navigation', { name: t('home.landingActions') });
        assert.equal(await actions.getByRole('link', { name: t('nav.signIn') }).getAttribute('href'), '/login');
        assert.equal(await actions.getByRole('link', { name: t('nav.signUp') }).getAttribute('href'), '/signup');
        const ponds = page.getByRole('region', { name: t('home.publicPondsHeading') });
        assert.deepEqual(await ponds.getByRole('link').allTextContents(), ['Handbook']);
        assert.equal(await ponds.getByRole('link', { name: 'Handbook' }).getAttribute('href'), '/handbook');
        await ponds.getByText(t('home.publicPageCount', { count: '2' })).waitFor();
        const recent = page.getByRole('region', { name: t('home.publicRecentHeading') });
        assert.deepEqual(await recent.getByRole('link').allTextContents(), ['Guide to the pond', 'Installation']);
        assert.equal(await recent.getByRole('link', { name: 'Installation' }).getAttribute('href'), '/handbook/install');
        const text = (await page.locator('main').textContent()) ?? '';
        for (const hidden of ['Secret plans', 'Private', 'Notes']) assert.ok(!text.includes(hidden), `${hidden} is not named`);
        await check('landing');
        // Keyboard: Sign in is reachable and shows its focus.
        await actions.getByRole('link', { name: t('nav.signIn') }).focus();
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('href')), '/login');
        await page.getByRole('link', { name: 'Handbook' }).click();
        await page.waitForURL(`${instance.baseUrl}/handbook`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  });

  test('over HTTP: German for Accept-Language de, cacheable per language and cookie; closing registration removes Sign up; members get their home', { timeout: 60_000 }, async () => {
    const visitor = await fetch(`${instance.baseUrl}/`, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    assert.equal(visitor.status, 200);
    const html = await visitor.text();
    assert.match(html, /<html[^>]* lang="de"/);
    assert.ok(html.includes('Willkommen bei Testteich'));
    assert.ok(html.includes('Öffentliche Teiche'));
    assert.equal(visitor.headers.get('cache-control'), 'public, no-cache');
    assert.match(visitor.headers.get('vary') ?? '', /Cookie/);
    assert.match(visitor.headers.get('vary') ?? '', /Accept-Language/);
    const english = await (await fetch(`${instance.baseUrl}/`, { headers: { 'accept-language': 'en-GB' } })).text();
    assert.ok(english.includes('Welcome to Testteich') && english.includes('Public ponds'));

    await setRegistration('closed');
    const closed = await (await fetch(`${instance.baseUrl}/`, { headers: { 'accept-language': 'en' } })).text();
    assert.ok(closed.includes('href="/login"'));
    assert.ok(!closed.includes('href="/signup"'), 'no Sign up link once registration is closed');

    const member = await fetch(`${instance.baseUrl}/`, { headers: { cookie: `dt_session=${admin.sessionCookie}`, 'accept-language': 'en' } });
    const memberHtml = await member.text();
    assert.ok(memberHtml.includes(`Hello, ${ADMIN.displayName}`), 'a signed-in browser gets its home');
    assert.equal(member.headers.get('cache-control'), 'private, no-store');
    assert.match(member.headers.get('vary') ?? '', /Accept-Language, Cookie/, 'the member home varies as the visitor document does');
    assert.match(visitor.headers.get('content-security-policy') ?? '', /^default-src 'none'/, "the visitor's landing page is a generated document");
  });
});
