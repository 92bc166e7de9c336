/**
 * Every route of the signed-in app, on a desktop in English and a phone in German, in the
 * light and the dark colour scheme: no serious or critical axe finding, a visible focus ring
 * on every Tab stop, the page's language, nothing wider than the window, no console error; and
 * a scan of the rendered DOM (text and the attributes people hear or read: aria-label,
 * placeholder, title, alt) for untranslated texts: a message key, a `{placeholder}` left
 * over, or a text of the other language's catalog. Screenshots as `app-routes-<shape>-<route>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { messagesDe } from '../../editor/src/i18n/messages.de.ts';
import { messagesEn } from '../../editor/src/i18n/messages.en.ts';
import type { Locale } from '../../editor/src/i18n/translator.ts';
import { expectAccessible } from './axe.ts';
import { expectVisibleFocus } from './focusIndicator.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

const KEYS = Object.keys(messagesEn);
/**
 * Texts of the other language that must not appear: long enough to be a sentence or a label of
 * its own, and different in the two catalogs (names like "Labels" or "Name" are both).
 */
function foreignTexts(locale: Locale): string[] {
  const [own, other] = locale === 'de' ? [messagesDe, messagesEn] : [messagesEn, messagesDe];
  return Object.entries(other)
    .filter(([key, text]) => text !== own[key as keyof typeof own] && !text.includes('{') && text.length >= 12)
    .map(([, text]) => text);
}

/** What a person reads or hears on the page: its text and the attributes assistive technology speaks. */
async function renderedTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts = [document.title, document.body.innerText];
    for (const element of document.querySelectorAll('[aria-label], [placeholder], [title], img[alt], [aria-description]')) {
      for (const name of ['aria-label', 'placeholder', 'title', 'alt', 'aria-description']) {
        const value = element.getAttribute(name);
        if (value) texts.push(value);
      }
    }
    return texts;
  });
}

export async function expectNoUntranslatedText(page: Page, locale: Locale, screen: string): Promise<void> {
  const texts = await renderedTexts(page);
  const joined = texts.join('\n');
  const keys = KEYS.filter((key) => new RegExp(`(^|[^\\w.])${key.replace(/\./g, '\\.')}($|[^\\w.])`).test(joined));
  assert.deepEqual(keys, [], `${screen}: message keys shown instead of texts`);
  assert.deepEqual(joined.match(/\{[a-zA-Z]+\}/g) ?? [], [], `${screen}: placeholders left in a text`);
  const foreign = foreignTexts(locale).filter((text) => joined.includes(text));
  assert.deepEqual(foreign, [], `${screen}: texts of the other language`);
}

describe('every app route, accessible and translated', () => {
  test('the scan itself finds a key, a placeholder and a text of the other language', { timeout: 30_000 }, async () => {
    const page = await browser.newPage();
    try {
      await page.setContent('<!doctype html><html lang="de"><head><title>t</title></head><body><main><p>Alles gut</p></main></body></html>');
      await expectNoUntranslatedText(page, 'de', 'clean');
      for (const [bad, pattern] of [['home.pondsHeading', /message keys/], ['Hallo, {name}', /placeholders/], [messagesEn['home.pondsEmpty'], /other language/]] as const) {
        await page.setContent(`<!doctype html><html lang="de"><head><title>t</title></head><body><main><p>${bad}</p></main></body></html>`);
        await assert.rejects(expectNoUntranslatedText(page, 'de', bad), pattern);
      }
      await page.setContent('<!doctype html><html lang="de"><head><title>t</title></head><body><main><button aria-label="tree.actions">x</button></main></body></html>');
      await assert.rejects(expectNoUntranslatedText(page, 'de', 'attribute'), /message keys/);
    } finally {
      await page.close();
    }
  });

  for (const shape of SCREEN_SHAPES) {
    test(`all app routes (${shape.name})`, { timeout: 240_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance, { locale: shape.locale });
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Rundgang' : 'Walkthrough' })).body as { id: string; slug: string };
      const home = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Handbook', markdown: '# Start\n\nThe **river** flows. See [[Notes]].' })).body as { id: string; slug: string };
      const notes = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Notes', parentId: home.id, markdown: 'River notes.' })).body as { id: string };
      const binned = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Old draft' })).body as { id: string };
      assert.equal((await client.request('DELETE', `/pages/${binned.id}`)).status, 200);
      const label = (await client.post(`/ponds/${pond.id}/labels`, { name: 'Rivers', color: '#1b6480' })).body as { id: string };
      await client.request('PUT', `/pages/${notes.id}/labels`, { body: { labelIds: [label.id] } });
      await client.request('PUT', `/pages/${home.id}/favorite`);

      const session = await openSession(browser, shape, 'app-routes');
      const { page, problems, context, screenshot } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      const routes: [string, string][] = [
        ['home', '/'],
        ['pond', `/${pond.slug}`],
        ['page', `/${pond.slug}/${home.slug}`],
        ['trash', `/${pond.slug}/-/trash`],
        ['labels', `/${pond.slug}/-/labels`],
        ['members', `/${pond.slug}/-/members`],
        ['access', `/${pond.slug}/-/access`],
        ['pond-settings', `/${pond.slug}/-/settings`],
        ['files', `/${pond.slug}/-/files`],
        ['search', '/search?q=river'],
        ['search-empty', '/search'],
        ['own-settings', '/settings'],
        ['not-found', `/${pond.slug}/no-such-page`],
      ];
      try {
        for (const [name, route] of routes) {
          await session.visit(`${instance.baseUrl}${route}`);
          const screen = `${name} (${shape.name})`;
          assert.equal(await page.locator('html').getAttribute('lang'), shape.locale, `${screen}: the page's language`);
          const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
          assert.ok(scrollWidth <= clientWidth, `${screen}: the page is ${scrollWidth}px wide in a ${clientWidth}px window`);
          await expectNoUntranslatedText(page, shape.locale, screen);
          await screenshot(name);
          for (const colorScheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme });
            await expectAccessible(page, `${screen}, ${colorScheme}`);
            await expectVisibleFocus(page, `${screen}, ${colorScheme}`);
          }
          await page.emulateMedia({ colorScheme: 'light' });
        }
        // The missing page answers 404 on purpose (the browser logs it); nothing else.
        assert.deepEqual(problems.filter((problem) => !problem.includes('status of 404')), []);
      } finally {
        await context.close();
      }
    });
  }
});
