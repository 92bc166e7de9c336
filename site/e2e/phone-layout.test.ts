/**
 * The app's frame in Chromium (issue 35): on a phone the header is one row (name, search
 * button, bell, account: their boxes share one line), the search behind its button opens,
 * takes input, Escape closes it and gives focus back to the button; on a page with several
 * paragraphs the first line of the editor's text starts within the 390×844 window; nothing
 * scrolls sideways. On a desktop of 1280 px the header does not wrap either. Form fields share
 * one look (a text field and a select on the settings screen: border, radius, height, font),
 * and the pond cards of one row on the home screen are equally high. On a pond screen the
 * phone's drawer button (the pond's name) shares the header row and opens the drawer below it.
 * Without JavaScript the phone header is the same one row and its search button is a link to
 * the results page. Axe on every screen; screenshots as `frame-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { editorContent, openEditor } from './editorPage.ts';
import { checkBothSchemes, expectNoSidewaysScroll } from './screenChecks.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

const screenshotDirectory = process.env.DT_SCREENSHOT_DIR ?? fileURLToPath(new URL('../../test-output/e2e/', import.meta.url));

const PARAGRAPHS = Array.from({ length: 6 }, (_, index) => `Absatz ${index + 1}: Am Teich wachsen Schilf, Seerosen und Sumpfdotterblumen, und die Frösche quaken.`);

interface Box {
  name: string;
  top: number;
  bottom: number;
  left: number;
  right: number;
}

async function boxOf(name: string, locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  assert.ok(box, `${name} is shown`);
  return { name, top: box.y, bottom: box.y + box.height, left: box.x, right: box.x + box.width };
}

/** All boxes share one line: each starts above where every other ends. */
function assertOneRow(boxes: Box[], where: string): void {
  const lowestTop = Math.max(...boxes.map((box) => box.top));
  const highestBottom = Math.min(...boxes.map((box) => box.bottom));
  assert.ok(lowestTop < highestBottom, `${where}: one row, but ${boxes.map((box) => `${box.name} ${Math.round(box.top)}–${Math.round(box.bottom)}`).join(', ')}`);
}

/** The header's items, in the order they are shown: the name, the search (its button on a phone, its box otherwise), the bell, the account menu. */
async function headerItems(page: Page, phone: boolean, t: (key: 'search.open' | 'search.headerLabel') => string): Promise<Box[]> {
  return [
    await boxOf('name', page.locator('.brand')),
    phone ? await boxOf('search button', page.getByRole('button', { name: t('search.open') })) : await boxOf('search box', page.getByRole('combobox', { name: t('search.headerLabel') })),
    await boxOf('bell', page.locator('.bell-button')),
    await boxOf('account', page.locator('.user-menu-button')),
  ];
}

describe('app frame', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`header row, search, first text line, fields and cards (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance, { locale: shape.locale });
      const pond = (await client.post('/ponds', { name: 'Dorfteich am Waldrand' })).body as { id: string; slug: string };
      await client.post('/ponds', { name: 'Garten' });
      await client.post('/ponds', { name: 'Ein Teich mit einem sehr langen Namen, der auf der Karte umbricht' });
      const created = await client.post(`/ponds/${pond.id}/pages`, { title: 'Pflanzen am Ufer', markdown: PARAGRAPHS.join('\n\n') });
      assert.equal(created.status, 201, created.text);
      const pageUrl = `${instance.baseUrl}/${pond.slug}/${(created.body as { slug: string }).slug}`;

      const session = await openSession(browser, shape, 'frame');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      const phone = shape.isMobile;
      try {
        // Screenshots of the three screens first, so they exist even when an assertion below fails.
        await session.visit(`${instance.baseUrl}/`);
        await session.screenshot('home');
        await openEditor(session, pageUrl);
        await session.screenshot('page');
        // What the window shows before any scrolling: the frame above the text.
        await page.screenshot({ path: path.join(screenshotDirectory, `frame-${shape.name}-page-window.png`) });
        await session.visit(`${instance.baseUrl}/settings`);
        await session.screenshot('settings');

        // Home: the header in one row, no sideways scroll, the cards of a row equally high.
        await session.visit(`${instance.baseUrl}/`);
        assertOneRow(await headerItems(page, phone, t), `home header (${shape.name})`);
        await expectNoSidewaysScroll(page, `home (${shape.name})`);
        // The personal pond and the three above; cards whose boxes overlap vertically are one row: same top, same height.
        const cards = await page.locator('.pond-card').evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().toJSON() as DOMRect));
        assert.equal(cards.length, 4);
        for (const card of cards) {
          for (const other of cards.filter((candidate) => candidate.top < card.bottom && card.top < candidate.bottom)) {
            assert.ok(Math.abs(other.top - card.top) < 1 && Math.abs(other.height - card.height) < 1, `cards of one row align: ${JSON.stringify([card, other])}`);
          }
        }
        if (!phone) assert.ok(cards.slice(0, 3).every((card) => Math.abs(card.top - cards[0]!.top) < 1), 'three cards share the first row at 1280 px');

        // The page: one header row, the first line of the text within the window.
        await openEditor(session, pageUrl);
        const pageHeader = await headerItems(page, phone, t);
        // On a phone the pond's drawer button joins the header row, so the chrome above the page is one row.
        if (phone) pageHeader.push(await boxOf('pond drawer button', page.locator('summary.app-sidebar-toggle')));
        assertOneRow(pageHeader, `page header (${shape.name})`);
        await expectNoSidewaysScroll(page, `page (${shape.name})`);
        const firstLine = editorContent(page).locator(':scope > *').first();
        assert.equal((await firstLine.textContent())?.trim(), PARAGRAPHS[0]);
        const firstLineTop = (await firstLine.boundingBox())!.y;
        assert.ok(firstLineTop >= 0 && firstLineTop <= shape.viewport.height, `the first text line starts at ${firstLineTop}px, within the ${shape.viewport.height}px window`);
        assert.equal(await page.evaluate(() => window.scrollY), 0, 'measured without scrolling');
        if (phone) {
          // The drawer opens below the header, with the pond's screens in it, and closes again.
          const headerBottom = (await boxOf('header', page.locator('.site-header'))).bottom;
          await page.locator('summary.app-sidebar-toggle').tap();
          const overview = page.locator('.app-sidebar').getByRole('link', { name: t('app.pondHome') });
          await overview.waitFor();
          assert.ok((await boxOf('overview link', overview)).top >= headerBottom, 'the open drawer lies below the header');
          await expectNoSidewaysScroll(page, `page with the drawer open (${shape.name})`);
          await session.check('drawer-open');
          await page.locator('summary.app-sidebar-toggle').tap();
          assert.equal(await overview.isVisible(), false);
        }

        // Search: behind a button on the phone; opened it takes input, Escape closes the list, then the field, and focus returns.
        const box = page.getByRole('combobox', { name: t('search.headerLabel') });
        if (phone) {
          const opener = page.getByRole('button', { name: t('search.open') });
          assert.equal(await box.isVisible(), false, 'the box waits behind its button');
          assert.equal(await opener.getAttribute('aria-expanded'), 'false');
          await opener.focus();
          await page.keyboard.press('Enter');
          assert.equal(await opener.getAttribute('aria-expanded'), 'true');
          assert.ok(await box.evaluate((element) => element === document.activeElement), 'the box takes focus when opened');
          await page.keyboard.type('Pflanzen');
          await page.getByRole('option', { name: /Pflanzen am Ufer/ }).waitFor();
          assert.equal(await box.inputValue(), 'Pflanzen');
          assertOneRow([await boxOf('search box', box), await boxOf('bell', page.locator('.site-header-inner'))], 'the open box lies over the header row');
          await session.check('search-open');
          await page.keyboard.press('Escape');
          assert.equal(await box.getAttribute('aria-expanded'), 'false', 'the first Escape closes the list');
          assert.ok(await box.isVisible());
          await page.keyboard.press('Escape');
          assert.equal(await box.isVisible(), false, 'the second Escape closes the field');
          assert.equal(await opener.getAttribute('aria-expanded'), 'false');
          assert.ok(await opener.evaluate((element) => element === document.activeElement), 'focus back on the search button');
          // A tap opens it too; a tap elsewhere closes it.
          await opener.tap();
          assert.ok(await box.isVisible());
          // Near the bottom of the window, below the suggestions, which come back with the box (the text stayed).
          await page.touchscreen.tap(shape.viewport.width / 2, shape.viewport.height - 20);
          assert.equal(await box.isVisible(), false, 'a tap outside closes the field');
        } else {
          assert.equal(await page.getByRole('button', { name: t('search.open') }).isVisible(), false, 'the box itself is shown on a desktop');
          await box.fill('Pflanzen');
          await page.getByRole('option', { name: /Pflanzen am Ufer/ }).waitFor();
          await box.press('Escape');
          assert.equal(await box.getAttribute('aria-expanded'), 'false');
          assert.ok(await box.isVisible(), 'on a desktop the box stays');
        }

        // Settings: a text field and a select look alike.
        await session.visit(`${instance.baseUrl}/settings`);
        // Fields in light and dark: axe, their focus rings, no sideways scroll (screenshots settings and settings-dark).
        await checkBothSchemes(session, 'settings');
        // At rest: no pointer over a field, and the focus walk's border transitions (0.12 s) run out.
        await page.mouse.move(1, 1);
        await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'));
        const looks = await page.evaluate(() => {
          const look = (element: Element | null) => {
            if (!element) return null;
            const style = getComputedStyle(element);
            return {
              border: `${style.borderTopWidth} ${style.borderTopStyle} ${style.borderTopColor}`,
              radius: style.borderTopLeftRadius,
              height: element.getBoundingClientRect().height,
              font: `${style.fontSize} ${style.fontFamily}`,
              background: style.backgroundColor,
            };
          };
          return { text: look(document.querySelector('main input[type="password"]')), select: look(document.querySelector('main select')) };
        });
        assert.ok(looks.text && looks.select, 'the settings screen has a text field and a select');
        assert.deepEqual(looks.select, looks.text, 'a select looks like a text field');
        assert.notEqual(looks.text.border.split(' ')[0], '0px', 'fields have a border');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  test('without JavaScript the phone header is one row too, and its search button leads to the results page (phone-de)', { timeout: 60_000 }, async () => {
    await resetRateLimits(instance);
    const { client } = await createVerifiedUser(instance, { locale: 'de' });
    const pond = (await client.post('/ponds', { name: 'Stiller Teich' })).body as { id: string; slug: string };
    const created = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Ohne Skript', markdown: PARAGRAPHS.join('\n\n') })).body as { slug: string };
    const phoneShape = SCREEN_SHAPES.find((shape) => shape.isMobile)!;
    const t = createTranslator('de');
    const context = await browser.newContext({ locale: phoneShape.browserLocale, viewport: phoneShape.viewport, isMobile: true, hasTouch: true, javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
    try {
      const page = await context.newPage();
      await page.goto(`${instance.baseUrl}/${pond.slug}/${created.slug}`);
      const searchLink = page.getByRole('link', { name: t('search.open') });
      assertOneRow(
        [
          await boxOf('name', page.locator('.brand')),
          await boxOf('pond drawer button', page.locator('summary.app-sidebar-toggle')),
          await boxOf('search link', searchLink),
          await boxOf('bell', page.locator('.bell-button')),
          await boxOf('account', page.locator('.user-menu-button')),
        ],
        'page header without JavaScript',
      );
      const firstLine = page.locator('#page-body > *').first();
      assert.ok((await firstLine.boundingBox())!.y <= phoneShape.viewport.height, 'the first text line within the window');
      await Promise.all([page.waitForURL(`${instance.baseUrl}/search`), searchLink.tap()]);
      await page.locator('#search-q').waitFor();
    } finally {
      await context.close();
    }
  });
});
