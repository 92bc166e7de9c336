/**
 * The editor's toolbar and what sign-out leaves behind, in Chromium against a real collab
 * server: the toolbar is one Tab stop whose buttons the arrow keys, Home and End walk through
 * (the code block's language field keeps its arrows); the link form (button or Mod-K) writes
 * web addresses, refuses `javascript:` in words without writing anything, edits and removes a
 * link. Signing out deletes the browser's offline page copies (IndexedDB `dt-page-…`), and two
 * people whose initials collide get avatars told apart. Screens checked with axe; screenshots
 * of the link form in both shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { caretAtEnd, editorContent, openEditor } from './editorPage.ts';
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

const content = editorContent;



/** Selects the last occurrence of `word` in the text (through the DOM selection, which the editor follows). */
async function selectWord(page: Page, word: string): Promise<void> {
  await content(page).evaluate((element, word) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let found: [Text, number] | null = null;
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const at = node.data.lastIndexOf(word);
      if (at !== -1) found = [node, at];
    }
    if (!found) throw new Error(`no "${word}" in the text`);
    const range = document.createRange();
    range.setStart(found[0], found[1]);
    range.setEnd(found[0], found[1] + word.length);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
  }, word);
  await page.waitForTimeout(50);
}

/** Tiptap's focus command gives the focus back on the next frame. */
const waitForFocusInText = (page: Page) => page.waitForFunction(() => document.activeElement?.classList.contains('page-editor-content') ?? false);

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
      await waitForFocusInText(page);

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

  for (const linkShape of SCREEN_SHAPES) {
    test(`the link form: Mod-K opens it, an unsafe address is refused in words, a web address is written, edited and removed (${linkShape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const ada = await member(linkShape.locale);
      const { pond, page: pageInfo, url } = await pondWithPage(ada, 'Linked');
      const session = await openAs(ada, linkShape, 'editor-link');
      const { page, t } = session;
      const form = page.getByRole('form', { name: t('editor.linkForm') });
      const field = form.getByLabel(t('editor.linkAddress'));
      const linkButton = page.getByRole('toolbar', { name: t('editor.toolbar') }).getByRole('button', { name: t('editor.link'), exact: true });
      try {
        await openEditor(session, url);
        await caretAtEnd(page);
        await page.keyboard.type(' Visit the docs', { delay: 15 });
        await page.getByText(t('editor.status.saved')).waitFor();
        await selectWord(page, 'docs');
        await page.keyboard.press('Control+k');
        await form.waitFor();
        assert.equal(await field.evaluate((input) => input === document.activeElement), true, 'the field has the focus');
        assert.equal(await field.inputValue(), '');
        assert.equal(await form.getByRole('button', { name: t('editor.linkRemove') }).count(), 0, 'nothing to remove yet');

        // An unsafe address: refused in words next to the field, nothing written.
        await field.fill('javascript:alert(1)');
        await field.press('Enter');
        await form.getByText(t('editor.linkRefused')).waitFor();
        assert.equal(await field.getAttribute('aria-invalid'), 'true');
        assert.equal(await content(page).locator('a').count(), 0, 'no link in the text');
        await session.check('refused');
        // Nothing typed is refused too.
        await field.fill('  ');
        await form.getByRole('button', { name: t('editor.linkApply') }).click();
        await form.getByText(t('editor.linkEmpty')).waitFor();
        assert.equal(await content(page).locator('a').count(), 0);

        // A web address: the chosen word becomes the link; the focus goes back to the text.
        await field.fill('https://example.org/docs');
        await field.press('Enter');
        await form.waitFor({ state: 'detached' });
        const link = content(page).locator('a[href="https://example.org/docs"]');
        await link.waitFor();
        assert.equal(await link.innerText(), 'docs');
        await waitForFocusInText(page);
        assert.equal(await linkButton.getAttribute('aria-pressed'), 'true');
        // The server has it, and nothing of the refused address.
        await page.getByText(t('editor.status.saved')).waitFor();
        await waitFor(async () => (await ada.get(`/read/${pond.slug}/${pageInfo.slug}`)).text.includes('href="https://example.org/docs"'), 10_000, 'the link in the rendered page');
        assert.ok(!(await ada.get(`/read/${pond.slug}/${pageInfo.slug}`)).text.includes('javascript:'));

        // The button opens it prefilled; Escape cancels and gives the focus back to the text.
        await linkButton.click();
        await form.waitFor();
        assert.equal(await field.inputValue(), 'https://example.org/docs');
        await field.fill('/elsewhere');
        await session.check('link-popover');
        await page.keyboard.press('Escape');
        await form.waitFor({ state: 'detached' });
        await waitForFocusInText(page);
        assert.equal(await content(page).locator('a[href="https://example.org/docs"]').count(), 1, 'the cancelled change was not written');

        // Going back into the text (a click there moves the focus) closes it too, writing nothing.
        await page.keyboard.press('Control+k');
        await field.fill('https://changed.example');
        await content(page).evaluate((element) => (element as HTMLElement).focus());
        await form.waitFor({ state: 'detached' });
        assert.equal(await content(page).locator('a[href="https://example.org/docs"]').count(), 1);
        await selectWord(page, 'docs');

        // A path on this site is fine; Remove link takes the link away and leaves the word.
        await page.keyboard.press('Control+k');
        await field.fill('#section');
        await field.press('Enter');
        await content(page).locator('a[href="#section"]').waitFor();
        // Mod-K reaches the editor only once the form has closed and given the focus back.
        await form.waitFor({ state: 'detached' });
        await waitForFocusInText(page);
        await page.keyboard.press('Control+k');
        await form.getByRole('button', { name: t('editor.linkRemove') }).click();
        await form.waitFor({ state: 'detached' });
        assert.equal(await content(page).locator('a').count(), 0);
        assert.match(await content(page).innerText(), /Visit the docs/);
        assert.deepEqual(session.problems, []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('avatars tell "User 13" and "User 14" apart; signing out deletes the offline copies of pages', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    const [ada, bob] = [await member('en'), await member('en')];
    for (const [client, displayName] of [[ada, 'User 13'], [bob, 'User 14']] as const) {
      const renamed = await client.patch('/users/me', { displayName });
      assert.equal(renamed.status, 200, renamed.text);
    }
    const { pond, url } = await pondWithPage(ada, 'Signed out');
    const bobName = (await bob.get('/auth/session')).body.user.username as string;
    assert.equal((await ada.post(`/ponds/${pond.id}/members`, { user: bobName, role: 'editor' })).status, 201);
    const [first, second] = [await openAs(ada, shape, 'editor-signout'), await openAs(bob, shape, 'editor-signout')];
    const { page, t } = first;
    const offlineCopies = () => page.evaluate(async () => (await indexedDB.databases()).map((database) => database.name ?? '').filter((name) => name.startsWith('dt-page-')));
    try {
      await openEditor(first, url);
      await openEditor(second, url);
      // Both avatars, told apart; the full names stay in the tooltip and the hidden text.
      await waitFor(async () => (await page.locator('.presence .avatar').count()) === 2, 10_000, 'both avatars');
      const avatars = await page.locator('.presence .avatar').evaluateAll((items) => items.map((item) => [item.querySelector('[aria-hidden]')?.textContent, item.getAttribute('title'), item.querySelector('.visually-hidden')?.textContent]));
      assert.deepEqual(avatars.sort(), [['U3', 'User 13', 'User 13'], ['U4', 'User 14', 'User 14']]);
      await page.locator('.presence').screenshot({ path: `test-output/e2e/editor-signout-${shape.name}-presence-row.png` });
      await second.context.close();

      await caretAtEnd(page);
      await page.keyboard.type(' Typed before signing out.', { delay: 15 });
      await page.getByText(t('editor.status.saved')).waitFor();
      await waitFor(async () => (await offlineCopies()).length === 1, 10_000, 'the page copy in IndexedDB');
      // A copy of another page, not open here, goes too.
      await page.evaluate(() => new Promise((resolve, reject) => {
        const request = indexedDB.open('dt-page-00000000-0000-0000-0000-000000000000');
        request.onsuccess = () => {
          request.result.close();
          resolve(undefined);
        };
        request.onerror = () => reject(request.error);
      }));
      assert.equal((await offlineCopies()).length, 2);

      // A sign-out the server does not confirm deletes nothing, and says so.
      await page.route('**/api/v1/auth/logout', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'Down for a moment.' } }) }));
      await page.locator('.user-menu-button').click();
      await page.getByRole('menuitem', { name: t('nav.signOut') }).click();
      await waitFor(async () => (await page.locator('.user-menu-failure').innerText()).trim() !== '', 10_000, 'the sign-out failure in words');
      assert.equal(await page.locator('.user-menu-button').getAttribute('aria-expanded'), 'false', 'the menu closed, so the failure under its button shows');
      assert.equal((await offlineCopies()).length, 2, 'nothing deleted');
      await page.unroute('**/api/v1/auth/logout');

      await page.locator('.user-menu-button').click();
      await page.getByRole('menuitem', { name: t('nav.signOut') }).click();
      await page.waitForURL(`${instance.baseUrl}/`);
      assert.deepEqual(await offlineCopies(), [], 'no dt-page- database left');
      assert.equal((await ada.get('/auth/session')).body.user, null, 'the session is over');
      assert.deepEqual(first.problems.filter((problem) => !problem.includes('status of 503')), []);
    } finally {
      await first.context.close();
      await second.context.close().catch(() => undefined);
    }
  });
});
