/**
 * The editor's toolbar and what sign-out leaves behind, in Chromium against a real collab
 * server: the toolbar is one Tab stop whose buttons the arrow keys, Home and End walk through
 * (the code block's language field keeps its arrows). Screens checked with axe.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

async function member(locale: 'de' | 'en'): Promise<TestClient> {
  return (await createVerifiedUser(instance, { locale })).client;
}

/** A pond of `owner` with one page holding a paragraph. */
async function pondWithPage(owner: TestClient, title: string) {
  const pond = (await owner.post('/ponds', { name: `${title} pond` })).body as { id: string; slug: string };
  const page = (await owner.post(`/ponds/${pond.id}/pages`, { title, markdown: 'Seed paragraph.' })).body as { id: string; slug: string };
  return { pond, page, url: `${instance.baseUrl}/${pond.slug}/${page.slug}` };
}

async function openAs(client: TestClient, shape: ScreenShape, prefix: string): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
  return session;
}

const content = (page: Page) => page.locator('.page-editor-content');

async function openEditor(session: BrowserSession, url: string): Promise<void> {
  await session.visit(url);
  await content(session.page).waitFor();
  await session.page.getByText(session.t('editor.status.saved')).waitFor();
}

/** Puts the caret at the end of the document (through the DOM selection, which the editor follows). */
async function caretAtEnd(page: Page): Promise<void> {
  await content(page).evaluate((element) => {
    element.focus();
    const range = document.createRange();
    range.selectNodeContents(element.lastElementChild ?? element);
    range.collapse(false);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
  });
  await page.waitForTimeout(50);
}

/** The accessible name of the focused element (the toolbar's buttons name themselves in a visually hidden span). */
const focusedLabel = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['label'] ?? document.activeElement?.tagName ?? '');

describe('the editor toolbar', () => {
  const shape = SCREEN_SHAPES[0]!;

  test('one Tab stop; arrows, Home and End move through the buttons; the language field keeps its arrows', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    const ada = await member('en');
    const { url } = await pondWithPage(ada, 'Keyboard');
    const session = await openAs(ada, shape, 'editor-toolbar');
    const { page, t } = session;
    try {
      await openEditor(session, url);
      const toolbar = page.getByRole('toolbar', { name: t('editor.toolbar') });
      const tools = toolbar.locator('button.tool');
      const count = await tools.count();
      assert.ok(count > 10);
      // Exactly one button is in the Tab order.
      assert.deepEqual(await tools.evaluateAll((buttons) => buttons.filter((button) => button.tabIndex === 0).length), 1);
      const firstLabel = t('editor.bold');
      const lastLabel = t('editor.redo');

      // Shift+Tab from the text lands on the toolbar's one stop (it comes before the text).
      await caretAtEnd(page);
      await page.keyboard.press('Shift+Tab');
      assert.equal(await focusedLabel(page), firstLabel);
      await page.keyboard.press('ArrowRight');
      assert.equal(await focusedLabel(page), t('editor.italic'));
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      assert.equal(await focusedLabel(page), lastLabel, 'Left from the first wraps to the last');
      await page.keyboard.press('ArrowRight');
      assert.equal(await focusedLabel(page), firstLabel, 'Right from the last wraps to the first');
      await page.keyboard.press('End');
      assert.equal(await focusedLabel(page), lastLabel);
      // Redo cannot act yet: it stays focusable, marked disabled, and pressing it changes nothing.
      assert.equal(await page.locator(':focus').getAttribute('aria-disabled'), 'true');
      await page.keyboard.press('Home');
      assert.equal(await focusedLabel(page), firstLabel);
      // The focus ring shows.
      assert.notEqual(await page.locator(':focus').evaluate((element) => getComputedStyle(element).outlineStyle), 'none');
      // The stop follows the last button used: Tab leaves the toolbar, Shift+Tab comes back to it.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      assert.equal(await focusedLabel(page), t('editor.strike'));
      assert.equal(await tools.evaluateAll((buttons) => buttons.filter((button) => button.tabIndex === 0).map((button) => button.dataset['label']).join()), t('editor.strike'));
      // Escape goes back to the text.
      await page.keyboard.press('Escape');
      assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('page-editor-content')), true);

      // A key press on a focused button acts, and aria-pressed follows.
      await page.keyboard.type(' Code here');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Home');
      for (let step = 0; step < 12; step++) await page.keyboard.press('ArrowRight');
      assert.equal(await focusedLabel(page), t('editor.codeBlock'));
      await page.keyboard.press('Enter');
      await content(page).locator('pre').waitFor();
      assert.equal(await toolbar.getByRole('button', { name: t('editor.codeBlock') }).getAttribute('aria-pressed'), 'true');
      // The language field: the arrows move its caret, not the focus.
      const language = page.getByLabel(t('editor.codeLanguage'));
      await language.fill('typescript');
      await language.press('ArrowLeft');
      await language.press('Home');
      await language.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'INPUT');
      assert.equal(await language.evaluate((input) => (input as HTMLInputElement).selectionStart), 1);
      await language.press('Enter');
      await content(page).locator('pre code.language-typescript').waitFor();
      await session.check('keyboard');
      assert.deepEqual(session.problems, []);
    } finally {
      await session.context.close();
    }
  });
});
