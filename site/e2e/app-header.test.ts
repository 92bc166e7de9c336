/**
 * The header in Chromium. Search suggestions: a partial word without its umlaut ("gart")
 * suggests the page "Gärtnerei am Teich" with the match highlighted and its pond, a newer
 * keystroke cancels the older request, a page of another user's pond never shows (though the
 * API finds it for its owner), Down and Enter open the page (so does a click or a tap), nothing
 * is chosen until a key chooses, Up chooses "Search for …", Up and Down wrap round, Up on the
 * closed list opens it at its end, Enter alone submits to /search, no match and an unreachable
 * API are said in words. The user menu:
 * opened, walked and closed by keyboard, closed by a press outside; the other language is saved
 * to the account and the page comes back in it; Sign out ends the session (the API answers 401
 * afterwards). Without JavaScript the menu still opens and the box still searches, and the
 * header sits exactly as it does once the islands are awake. On the phone the box waits behind
 * its search button (site/e2e/phone-layout.test.ts checks that button); here it is opened
 * first wherever the box is used. Desktop in
 * English, phone in German; axe with the list and the menu open. Screenshots as
 * `header-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page, Request, Route } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import { createTranslator, type Locale } from '../../editor/src/i18n/translator.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { revealSearchBox } from './headerSearch.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

const TITLE = 'Gärtnerei am Teich';
const isSearchCall = (url: URL) => url.pathname === '/api/v1/search';
const queryOf = (request: Request) => new URL(request.url()).searchParams.get('q');

/** A reader with a page titled TITLE, and a stranger with a page of the same word in a pond the reader does not belong to. */
async function readerAndStranger(locale: Locale) {
  await resetRateLimits(instance);
  const reader = await createVerifiedUser(instance);
  const stranger = await createVerifiedUser(instance);
  const pond = (await reader.client.post('/ponds', { name: locale === 'de' ? 'Gartenteich' : 'Garden pond' })).body as { id: string; slug: string; name: string };
  const created = (await reader.client.post(`/ponds/${pond.id}/pages`, { title: TITLE, markdown: 'Beete und Gewächshäuser.' })).body as { slug: string };
  const hidden = (await stranger.client.post('/ponds', { name: 'Verborgen' })).body as { id: string };
  assert.equal((await stranger.client.post(`/ponds/${hidden.id}/pages`, { title: 'Gärtnerei geheim', markdown: 'Secret.' })).status, 201);
  // The stranger's page is in the index: the API finds it for its owner, so its absence below is the permission filter's doing.
  const strangersHits = (await stranger.client.get('/search?q=gart&limit=6')).body as { items: { title: string }[] };
  assert.ok(strangersHits.items.some((hit) => hit.title.includes('geheim')));
  return { reader, pond, pageHref: `/${pond.slug}/${created.slug}` };
}

async function holdSearchesFor(page: Page, query: string): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(isSearchCall, async (route: Route) => {
    if (queryOf(route.request()) !== query) return route.continue();
    await held;
    await route.continue().catch(() => {});
  });
  return release;
}

describe('header', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`search suggestions and the user menu (${shape.name})`, { timeout: 120_000 }, async () => {
      const { reader, pond, pageHref } = await readerAndStranger(shape.locale);
      const session = await openSession(browser, shape, 'header');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
      const searchCalls: Request[] = [];
      const cancelled: (string | null)[] = [];
      page.on('request', (request) => isSearchCall(new URL(request.url())) && searchCalls.push(request));
      page.on('requestfailed', (request) => isSearchCall(new URL(request.url())) && cancelled.push(queryOf(request)));
      try {
        await session.visit(`${instance.baseUrl}/`);
        const box = page.getByRole('combobox', { name: t('search.headerLabel') });
        await revealSearchBox(page, t);
        const suggestion = page.getByRole('option', { name: new RegExp(TITLE) });

        // One character asks nothing; "gar" is held back until "gart" has replaced it.
        const release = await holdSearchesFor(page, 'gar');
        const garAsked = page.waitForRequest((request) => isSearchCall(new URL(request.url())) && queryOf(request) === 'gar');
        await box.pressSequentially('gar');
        await garAsked;
        await box.press('t');
        await suggestion.waitFor();
        release();
        await page.unroute(isSearchCall);
        // Chromium reports the abort as its own event, which may come after the newer answer was drawn.
        await waitFor(() => cancelled.includes('gar'), 5000, 'the older request ("gar") to be cancelled');
        assert.ok(searchCalls.every((request) => (queryOf(request) ?? '').length >= 2), 'no request for a single character');
        assert.equal(new URL(searchCalls.at(-1)!.url()).searchParams.get('limit'), '6');
        assert.equal(await box.getAttribute('aria-expanded'), 'true');
        assert.equal(await suggestion.locator('mark').textContent(), 'Gärtnerei', 'the match highlighted as written');
        assert.ok((await suggestion.textContent())?.includes(pond.name), 'the pond named');
        assert.equal(await page.getByRole('option', { name: /geheim/ }).count(), 0, 'the page of another pond never shows');
        const options = page.getByRole('listbox', { name: t('search.suggestions') }).getByRole('option');
        assert.equal(await options.count(), 2, 'the page and "Search for …"');
        assert.equal(await options.last().textContent().then((text) => text?.trim()), t('search.suggestAll', { query: 'gart' }));
        await session.check('suggestions');

        // Down chooses the page (the box keeps focus), Enter opens it.
        await box.press('ArrowDown');
        const firstId = await options.first().getAttribute('id');
        assert.equal(await box.getAttribute('aria-activedescendant'), firstId);
        assert.equal(await options.first().getAttribute('aria-selected'), 'true');
        await session.check('suggestion-chosen');
        await Promise.all([page.waitForURL(`${instance.baseUrl}${pageHref}`), box.press('Enter')]);
        await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();

        // A click (a tap on the phone) on a suggestion opens it too.
        await session.visit(`${instance.baseUrl}/`);
        await revealSearchBox(page, t);
        await box.fill('gart');
        await Promise.all([page.waitForURL(`${instance.baseUrl}${pageHref}`), shape.isMobile ? suggestion.tap() : suggestion.click()]);

        // Up from nothing chosen is "Search for …"; Enter with nothing chosen submits the form. Both reach the results.
        // Until a key chooses, no option is chosen (the list shows none, the box names none); Down past the last wraps
        // to the first and Up back; Up on the closed list opens it at the last.
        const chosenId = () => box.getAttribute('aria-activedescendant');
        await session.visit(`${instance.baseUrl}/`);
        await revealSearchBox(page, t);
        await box.fill('gart');
        await suggestion.waitFor();
        assert.equal(await chosenId(), null, 'nothing chosen before a key');
        assert.equal(await page.locator('[role="option"][aria-selected="true"], .suggest-option-active').count(), 0, 'no option shows as chosen');
        const lastId = await options.last().getAttribute('id');
        await box.press('ArrowUp');
        assert.equal(await chosenId(), lastId);
        await box.press('ArrowDown');
        assert.equal(await chosenId(), firstId, 'Down past the last wraps to the first');
        await box.press('ArrowUp');
        assert.equal(await chosenId(), lastId);
        await box.press('Escape');
        assert.equal(await box.getAttribute('aria-expanded'), 'false');
        await box.press('ArrowUp');
        assert.equal(await box.getAttribute('aria-expanded'), 'true');
        await waitFor(async () => (await chosenId()) === lastId, 5000, 'Up on the closed list to open it at the last option');
        await Promise.all([page.waitForURL(`${instance.baseUrl}/search?q=gart`), box.press('Enter')]);
        await page.locator('.search-hit').first().waitFor();
        await revealSearchBox(page, t);
        await box.fill('gart');
        await suggestion.waitFor();
        await Promise.all([page.waitForURL(/\/search\?q=gart$/), box.press('Enter')]);

        // No match said in words; Escape closes the list and leaves the text.
        await revealSearchBox(page, t);
        await box.fill('zzqxw');
        await page.locator('.suggest-note', { hasText: t('search.suggestNone', { query: 'zzqxw' }) }).waitFor();
        assert.equal(await page.getByRole('status').textContent(), t('search.suggestNone', { query: 'zzqxw' }), 'announced');
        assert.equal(await options.count(), 1, 'only "Search for …"');
        await box.press('Escape');
        assert.equal(await box.getAttribute('aria-expanded'), 'false');
        assert.equal(await box.inputValue(), 'zzqxw');

        // An unreachable API is said in words too.
        await page.route(isSearchCall, (route) => route.abort());
        await box.fill('gaertn');
        await page.locator('.suggest-note', { hasText: t('error.network') }).waitFor();
        await page.unroute(isSearchCall);
        await box.fill('');

        await checkUserMenu(session, shape.locale, reader.client, shape.isMobile);
        assert.deepEqual(
          problems.filter((problem) => !problem.includes('net::ERR_FAILED')),
          [],
        );
      } finally {
        await context.close();
      }
    });
  }

  test('without JavaScript the menu opens and the box searches; the header does not move when the islands wake (desktop-en)', { timeout: 60_000 }, async () => {
    const { reader } = await readerAndStranger('en');
    const t = createTranslator('en');
    const headerBoxes = async (javaScriptEnabled: boolean) => {
      const context = await browser.newContext({ locale: 'en-US', javaScriptEnabled });
      await context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
      const page = await context.newPage();
      await page.goto(`${instance.baseUrl}/`);
      if (javaScriptEnabled) await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]').length === 0);
      const boxes = await page.locator('.site-header, .brand, .header-search input, .user-menu-button').evaluateAll((elements) =>
        elements.map((element) => Object.values(element.getBoundingClientRect().toJSON()).join(' ')),
      );
      await context.close();
      return boxes;
    };
    assert.deepEqual(await headerBoxes(false), await headerBoxes(true));

    const context = await browser.newContext({ locale: 'en-US', javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    await context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
    try {
      const page = await context.newPage();
      await page.goto(`${instance.baseUrl}/`);
      const settings = page.getByRole('link', { name: t('nav.settings') });
      assert.equal(await settings.isVisible(), false);
      await page.locator('.user-menu-button').click();
      await settings.waitFor();
      assert.equal(await settings.getAttribute('href'), '/settings');
      await page.getByRole('combobox', { name: t('search.headerLabel') }).fill('gart');
      await Promise.all([page.waitForURL(/\/search\?q=gart$/), page.getByRole('combobox', { name: t('search.headerLabel') }).press('Enter')]);
      await page.locator('.search-hit', { hasText: TITLE }).waitFor();
    } finally {
      await context.close();
    }
  });
});

/** The menu by keyboard (bits-ui's DropdownMenu once awake), the other language, then Sign out. */
async function checkUserMenu(session: Awaited<ReturnType<typeof openSession>>, locale: Locale, client: Awaited<ReturnType<typeof createVerifiedUser>>['client'], isMobile: boolean): Promise<void> {
  const { page, t } = session;
  await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]').length === 0);
  const button = page.locator('.user-menu-button');
  const isOpen = async () => (await button.getAttribute('aria-expanded')) === 'true';
  const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
  assert.equal(await page.locator('details.user-menu').count(), 0, 'awake, the disclosure has become the menu');

  // Tab from the search box reaches the notification bell, then the menu's button; Enter opens at the first entry, Down walks and wraps, Escape closes and gives focus back.
  await revealSearchBox(page, t);
  await page.getByRole('combobox', { name: t('search.headerLabel') }).focus();
  await page.keyboard.press('Tab');
  assert.ok(await page.locator('.bell-button').evaluate((element) => element === document.activeElement), 'the bell follows the search box');
  await page.keyboard.press('Tab');
  assert.ok(await button.evaluate((element) => element === document.activeElement), 'the menu button follows the bell');
  assert.equal(await button.getAttribute('aria-haspopup'), 'menu');
  await page.keyboard.press('Enter');
  await page.getByRole('menu').waitFor();
  assert.ok(await isOpen());
  await waitFor(async () => (await focused()) === t('nav.settings'), 5_000, 'the first entry has focus');
  await page.keyboard.press('End');
  assert.equal(await focused(), t('nav.signOut'));
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), t('nav.settings'), 'Down wraps to the top');
  await page.keyboard.press('Escape');
  await waitFor(async () => !(await isOpen()), 5_000, 'Escape closes the menu');
  assert.ok(await button.evaluate((element) => element === document.activeElement), 'focus back on the button');

  // Space opens too; the language is a radio group with the current one checked; a press outside closes.
  await page.keyboard.press('Space');
  await page.getByRole('menuitemradio', { name: t(`language.${locale}`) }).waitFor();
  assert.ok(await isOpen());
  assert.equal(await page.getByRole('menuitemradio', { name: t(`language.${locale}`) }).getAttribute('aria-checked'), 'true');
  assert.equal(await page.getByRole('menuitemradio', { checked: true }).count(), 1);
  assert.equal(await page.getByRole('group', { name: t('nav.language') }).getByRole('menuitemradio').count(), 2);
  assert.equal(await page.locator('header.site-header [role="menu"]').count(), 1, 'the open menu sits in the banner landmark, as all content within landmarks');
  await session.check('menu');
  await page.mouse.click(5, 300);
  await waitFor(async () => !(await isOpen()), 5_000, 'a press outside closes the menu');

  // The other language by keyboard: saved to the account, the page comes back in it.
  const other: Locale = locale === 'en' ? 'de' : 'en';
  await button.focus();
  await page.keyboard.press('ArrowDown');
  await page.getByRole('menu').waitFor();
  for (let step = 0; step < 6 && (await focused()) !== t(`language.${other}`); step += 1) await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), t(`language.${other}`));
  await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
  await page.locator(`html[lang="${other}"]`).waitFor();
  assert.equal(((await client.get('/users/me')).body as { locale: string }).locale, other);
  const otherT = createTranslator(other);
  // On the phone the box waits behind its button, which is named in the other language too.
  await (isMobile ? page.getByRole('button', { name: otherT('search.open') }) : page.getByRole('combobox', { name: otherT('search.headerLabel') })).waitFor();

  // Sign out from the menu ends the session.
  await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]').length === 0);
  await button.click();
  await Promise.all([page.waitForURL(`${instance.baseUrl}/`), page.getByRole('menuitem', { name: otherT('nav.signOut') }).click()]);
  // The signed-out landing page (in the browser's language) has no user menu.
  await page.locator('h1').waitFor();
  assert.equal(await page.locator('.user-menu').count(), 0);
  assert.equal((await client.get('/users/me')).status, 401);
}
