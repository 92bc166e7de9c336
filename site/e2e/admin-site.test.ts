/**
 * `/admin/site` in Chromium: a Site Admin writes the landing page and the imprint in
 * Markdown, watches the preview the API renders, saves, reloads and finds the text saved;
 * the tabs work from the keyboard, a failing preview or save says so in words, unsaved
 * changes hold back leaving the page, and nothing works before the island has hydrated.
 * A visitor is sent to sign in, a signed-in non-admin gets the 404 page. On a desktop in
 * English and a phone in German, light and dark: axe finds nothing and every Tab stop shows
 * its focus ring. Screenshots as `admin-site-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import { completeSetup, createVerifiedUser } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, waitForIslands, type BrowserSession } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';

const PREVIEW_ROUTE = '**/api/v1/admin/settings/preview';
const en = createTranslator('en');

let instance: TestInstance;
let admin: TestClient;
let browser: Browser;

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true });
  admin = await completeSetup(instance);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

/** A browser session signed in with `client`'s session cookie. */
async function signedInSession(client: TestClient, shape = SCREEN_SHAPES[0]!, prefix = 'admin-site'): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  assert.ok(client.sessionCookie);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie, url: instance.baseUrl }]);
  return session;
}

function previewOf(page: Page, name: string) {
  return page.getByRole('region', { name });
}

describe('who reaches /admin/site', () => {
  test('a visitor is sent to sign in, and after signing in comes back', { timeout: 60_000 }, async () => {
    const direct = await fetch(`${instance.baseUrl}/admin/site`, { redirect: 'manual' });
    assert.equal(direct.status, 302);
    assert.equal(direct.headers.get('location'), '/login?next=%2Fadmin%2Fsite');

    const { context, page, t, problems } = await openSession(browser, SCREEN_SHAPES[0]!, 'admin-site');
    try {
      await page.goto(`${instance.baseUrl}/admin/site`);
      assert.equal(new URL(page.url()).pathname, '/login');
      await waitForIslands(page);
      await page.getByLabel(t('field.login')).fill('admin');
      await page.getByLabel(t('field.password')).fill('correct horse battery');
      await Promise.all([page.waitForURL((url) => url.pathname === '/admin/site'), page.getByRole('button', { name: t('login.submit') }).click()]);
      await page.getByRole('heading', { level: 1, name: t('adminSite.title') }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a signed-in user who is not Site Admin gets the 404 page, and no link to it', { timeout: 60_000 }, async () => {
    const { client } = await createVerifiedUser(instance);
    const direct = await fetch(`${instance.baseUrl}/admin/site`, { headers: { cookie: `dt_session=${client.sessionCookie}`, 'accept-language': 'en' } });
    assert.equal(direct.status, 404);
    const html = await direct.text();
    assert.ok(html.includes(en('notFound.title')), 'the site 404 page');
    for (const hint of [en('adminSite.title'), '/admin/site', 'home.content']) assert.ok(!html.includes(hint), `the 404 page mentions ${hint}`);

    const session = await signedInSession(client);
    try {
      await session.visit(`${instance.baseUrl}/admin/site`);
      await session.page.getByRole('heading', { level: 1, name: session.t('notFound.title') }).waitFor();
      await session.page.locator('.user-menu-button').click();
      await session.page.getByRole('menuitem', { name: session.t('nav.settings') }).waitFor();
      assert.equal(await session.page.getByRole('menuitem', { name: session.t('nav.siteAdmin') }).count(), 0, 'no Administration in the menu');
      await session.screenshot('not-admin');
    } finally {
      await session.context.close();
    }
  });
});

describe('the Site Admin edits the landing page and the imprint', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`type, preview, save, reload (${shape.name})`, { timeout: 120_000 }, async () => {
      // Each shape starts from empty texts.
      assert.equal((await admin.patch('/admin/settings', { 'home.content': null, 'legal.imprint': null })).status, 200);
      const session = await signedInSession(admin, shape);
      const { page, t, problems } = session;
      const homeText = page.getByLabel(t('adminSite.home.label'));
      const homePreview = previewOf(page, t('adminSite.previewRegion', { page: t('adminSite.home') }));
      // Each tab panel has its own Save and status; only the shown panel's count.
      const save = page.getByRole('button', { name: t('adminSite.save'), exact: true });
      const visibleText = (text: string) => page.getByText(text, { exact: true }).filter({ visible: true });
      try {
        // The header's user menu leads admins to the admin area; its navigation leads here and marks the screen shown.
        await session.visit(`${instance.baseUrl}/`);
        await page.locator('.user-menu-button').click();
        assert.equal(await page.getByRole('menuitem', { name: t('nav.siteAdmin') }).getAttribute('href'), '/admin');
        await page.keyboard.press('Escape');
        await session.visit(`${instance.baseUrl}/admin/site`);
        await waitForIslands(page);
        const adminNavigation = page.getByRole('navigation', { name: t('adminNav.label') });
        assert.equal(await adminNavigation.getByRole('link', { name: t('adminNav.site') }).getAttribute('aria-current'), 'page');
        assert.equal(await adminNavigation.locator('[aria-current]').count(), 1, 'only the screen shown is marked');
        assert.deepEqual(
          await adminNavigation.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href'))),
          ['/admin', '/admin/users', '/admin/quotas', '/admin/system', '/admin/settings', '/admin/integrations', '/admin/site'],
        );

        // Empty: the preview shows the built-in welcome, in the instance default locale (English here).
        await homePreview.getByRole('heading', { name: 'Welcome to Testteich' }).waitFor();
        await homePreview.getByText(t('adminSite.previewBuiltIn')).waitFor();
        assert.equal(await page.getByRole('tab', { selected: true }).getAttribute('id'), 'site-tab-home');
        assert.ok(await save.isDisabled(), 'nothing to save yet');
        await visibleText(t('adminSite.noChanges')).waitFor();
        await visibleText(t('adminSite.home.emptyNote')).waitFor();
        assert.equal(await page.getByRole('link', { name: t('adminSite.home.view') }).getAttribute('href'), '/');
        await checkBothSchemes(session, 'empty');

        // Typing: the preview says it is updating (its answer held back here), then shows the rendered text.
        let releasePreview = () => {};
        const held = new Promise<void>((resolve) => (releasePreview = resolve));
        await page.route(PREVIEW_ROUTE, async (route: Route) => {
          await held;
          await route.continue();
        });
        await homeText.fill('# Unser Teich\n\nHier **wächst** Wissen.\n\n<script>window.__injected = 1</script>\n\n- [Impressum](/legal/imprint)\n- Seerosen');
        await visibleText(t('adminSite.previewUpdating')).waitFor();
        await checkBothSchemes(session, 'preview-updating');
        releasePreview();
        await homePreview.getByRole('heading', { level: 1, name: 'Unser Teich' }).waitFor();
        await page.unroute(PREVIEW_ROUTE);
        assert.equal(await visibleText(t('adminSite.previewUpdating')).count(), 0);
        assert.equal(await homePreview.locator('strong').textContent(), 'wächst');
        assert.equal(await homePreview.getByRole('link', { name: 'Impressum' }).getAttribute('href'), '/legal/imprint');
        // The script arrived as text, and nothing ran.
        await homePreview.getByText('<script>window.__injected = 1</script>').waitFor();
        assert.equal(await page.evaluate(() => (window as { __injected?: number }).__injected), undefined);
        assert.equal(await homePreview.getByText(t('adminSite.previewBuiltIn')).count(), 0);

        assert.ok(await save.isEnabled());
        await visibleText(t('adminSite.unsaved')).waitFor();
        await page.getByRole('tab', { name: `${t('adminSite.home')} (${t('adminSite.unsavedMark')})` }).waitFor();
        await checkBothSchemes(session, 'edited');

        // Leaving with unsaved changes asks first; staying keeps the text.
        const dialogs: string[] = [];
        page.once('dialog', (dialog) => {
          dialogs.push(dialog.type());
          void dialog.dismiss();
        });
        await page.getByRole('link', { name: t('adminSite.home.view') }).click();
        await page.waitForTimeout(500);
        assert.deepEqual(dialogs, ['beforeunload']);
        assert.equal(new URL(page.url()).pathname, '/admin/site');

        // A failing save says so and keeps the text unsaved.
        await page.route('**/api/v1/admin/settings', (route: Route) => (route.request().method() === 'PATCH' ? route.abort() : route.continue()));
        await save.click();
        await page.getByRole('alert').filter({ hasText: t('error.network') }).waitFor();
        await page.unroute('**/api/v1/admin/settings');
        assert.equal((await admin.get('/home/content')).body.isDefault, true, 'nothing was saved');
        await checkBothSchemes(session, 'save-failed');

        await save.click();
        await visibleText(t('adminSite.saved')).waitFor();
        assert.ok(await save.isDisabled(), 'saved: nothing left to save');
        assert.equal(await page.getByRole('tab', { name: t('adminSite.home') }).textContent().then((text) => text?.includes(t('adminSite.unsavedMark'))), false);
        const home = (await admin.get('/home/content')).body;
        assert.equal(home.isDefault, false);
        assert.match(home.markdown, /^# Unser Teich\n/);
        await checkBothSchemes(session, 'saved');

        // The imprint tab, from the keyboard: arrows move between tabs and show them.
        await page.getByRole('tab', { selected: true }).focus();
        await page.keyboard.press('ArrowRight');
        const imprintTab = page.getByRole('tab', { name: t('adminSite.imprint') });
        assert.equal(await imprintTab.getAttribute('aria-selected'), 'true');
        assert.ok(await imprintTab.evaluate((tab) => tab === document.activeElement), 'focus moves with the selection');
        assert.ok(await homeText.isHidden(), "the landing page's panel is hidden");
        await page.keyboard.press('End');
        assert.equal(await page.getByRole('tab', { name: t('adminSite.privacy') }).getAttribute('aria-selected'), 'true');
        await page.keyboard.press('Home');
        await page.keyboard.press('ArrowLeft');
        assert.equal(await page.getByRole('tab', { name: t('adminSite.privacy') }).getAttribute('aria-selected'), 'true', 'ArrowLeft from the first tab wraps to the last');
        await page.keyboard.press('ArrowLeft');
        assert.ok(await imprintTab.evaluate((tab) => tab === document.activeElement));
        // Tab leaves the tab list for the panel's text field.
        await page.keyboard.press('Tab');
        const imprintText = page.getByLabel(t('adminSite.imprint.label'));
        assert.ok(await imprintText.evaluate((field) => field === document.activeElement), 'Tab goes from the tab to its text');
        const imprintPreview = previewOf(page, t('adminSite.previewRegion', { page: t('adminSite.imprint') }));
        await imprintPreview.getByText(t('adminSite.legalEmptyNote')).waitFor();
        assert.equal(await page.getByRole('link', { name: t('adminSite.imprint.view') }).getAttribute('href'), '/legal/imprint');
        await page.keyboard.type('**Dorfteich e. V.**');
        await imprintPreview.locator('strong', { hasText: 'Dorfteich e. V.' }).waitFor();
        await checkBothSchemes(session, 'imprint');

        // A failing preview says so in words; the next keystroke tries again. (The focus check has moved the focus.)
        await page.route(PREVIEW_ROUTE, (route: Route) => route.abort());
        await imprintText.press('Control+End');
        await page.keyboard.type(' Teichweg 1');
        const previewFailure = page.getByRole('alert').filter({ hasText: t('adminSite.previewFailed', { reason: t('error.network') }) });
        await previewFailure.waitFor();
        await checkBothSchemes(session, 'preview-failed');
        await page.unroute(PREVIEW_ROUTE);
        await imprintText.press('Control+End');
        await page.keyboard.type('!');
        await imprintPreview.getByText('Teichweg 1!').waitFor();
        await previewFailure.waitFor({ state: 'hidden' });

        await save.click();
        await visibleText(t('adminSite.saved')).waitFor();

        // Reloaded: both texts as saved, and nothing asks before leaving.
        page.on('dialog', (dialog) => {
          dialogs.push(`unexpected ${dialog.type()}`);
          void dialog.dismiss();
        });
        await page.reload();
        await waitForIslands(page);
        assert.match(await homeText.inputValue(), /^# Unser Teich\n\nHier \*\*wächst\*\* Wissen\./);
        await homePreview.getByRole('heading', { level: 1, name: 'Unser Teich' }).waitFor();
        await page.getByRole('tab', { name: t('adminSite.imprint') }).click();
        assert.equal(await page.getByLabel(t('adminSite.imprint.label')).inputValue(), '**Dorfteich e. V.** Teichweg 1!');
        assert.deepEqual(dialogs, ['beforeunload']);

        // The next visitor sees the new versions (the generated landing and legal documents).
        const landing = await fetch(`${instance.baseUrl}/`);
        assert.equal(landing.status, 200);
        const landingHtml = await landing.text();
        assert.match(landingHtml, /<h1 id="h-unser-teich">Unser Teich<\/h1>/);
        assert.ok(landingHtml.includes('&#x3C;script>window.__injected = 1&#x3C;/script>'), 'the script in the text stays text');
        assert.ok(!landingHtml.includes('Welcome to Testteich'));
        const imprint = await fetch(`${instance.baseUrl}/legal/imprint`);
        assert.equal(imprint.status, 200);
        assert.match(await imprint.text(), /<strong>Dorfteich e\. V\.<\/strong> Teichweg 1!/);
        assert.deepEqual(problems.filter((problem) => !problem.includes('Failed to load resource')), []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('before the island has hydrated the text cannot change and nothing can be saved', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ locale: 'en-US', javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    try {
      assert.ok(admin.sessionCookie);
      await context.addCookies([{ name: 'dt_session', value: admin.sessionCookie, url: instance.baseUrl }]);
      const page = await context.newPage();
      await page.goto(`${instance.baseUrl}/admin/site`);
      const text = page.getByLabel(en('adminSite.home.label'));
      assert.equal(await text.getAttribute('readonly'), '');
      const save = page.locator('main form button[type=submit]').first();
      assert.ok(await save.isDisabled());
      assert.equal(await save.getAttribute('formmethod'), 'post');
    } finally {
      await context.close();
    }
  });
});
