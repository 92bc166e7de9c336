/**
 * An empty page and a reader's page, in Chromium against a real collab server: the editor of an
 * empty page shows a placeholder ("Start writing…", gone once something is typed, back when it
 * is deleted again); the rendered page shown before the editor takes over says the same in the
 * same place, so nothing moves when the editor arrives; a reader of an empty page is told it is
 * empty, both before and after; and a reader reads "you can read this page but not change it"
 * once, not twice. Desktop in English, phone in German; axe on each screen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { editorContent, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

async function openAs(client: TestClient, shape: ScreenShape, prefix: string): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
  return session;
}

/** The page as the server renders it, before any script runs: where its empty line stands and what it says. */
async function renderedEmptyLine(client: TestClient, shape: ScreenShape, url: string): Promise<{ text: string; top: number; left: number }> {
  const context = await browser.newContext({ locale: shape.browserLocale, viewport: shape.viewport, isMobile: shape.isMobile, hasTouch: shape.isMobile, javaScriptEnabled: false });
  try {
    await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
    const page = await context.newPage();
    // No script runs here, so neither does axe: the live screens below are checked.
    await page.goto(url);
    const line = page.locator('#page-body p');
    const box = (await line.boundingBox())!;
    return { text: (await line.innerText()).trim(), top: box.y, left: box.x };
  } finally {
    await context.close();
  }
}

/** What the editor's placeholder says (drawn by CSS from the attribute) and where it stands; null when there is none. */
const placeholderOf = (page: Page) => editorContent(page).evaluate((element) => {
  const empty = element.querySelector<HTMLElement>('p.is-editor-empty');
  if (!empty) return null;
  const box = empty.getBoundingClientRect();
  return { attribute: empty.dataset['placeholder'] ?? '', drawn: getComputedStyle(empty, '::before').content, top: box.top + window.scrollY, left: box.left };
});

/** How often the page's text says the reader cannot change it. */
const readOnlySentences = (page: Page, sentence: RegExp) => page.evaluate((source) => (document.body.innerText.match(new RegExp(source, 'gi')) ?? []).length, sentence.source);
const READ_ONLY = { en: /read this page but not change it/, de: /diese Seite lesen, aber nicht ändern/ } as const;

describe('an empty page and a reader’s page', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`the empty page's placeholder, the same before and after the editor takes over (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client: owner } = await createVerifiedUser(instance, { locale: shape.locale });
      const pond = (await owner.post('/ponds', { name: 'Empty pond' })).body as { id: string; slug: string };
      const created = await owner.post(`/ponds/${pond.id}/pages`, { title: 'Blank' });
      assert.equal(created.status, 201, created.text);
      const url = `${instance.baseUrl}/${pond.slug}/${(created.body as { slug: string }).slug}`;
      const session = await openAs(owner, shape, 'editor-empty');
      const { page, t } = session;
      try {
        const rendered = await renderedEmptyLine(owner, shape, url);
        assert.equal(rendered.text, t('editor.placeholder'), 'the rendered page invites writing');

        await openEditor(session, url);
        const shown = await placeholderOf(page);
        assert.ok(shown, 'a placeholder in the empty editor');
        assert.equal(shown.attribute, t('editor.placeholder'));
        assert.equal(shown.drawn, JSON.stringify(t('editor.placeholder')), 'drawn on screen');
        assert.ok(Math.abs(shown.top - rendered.top) <= 2 && Math.abs(shown.left - rendered.left) <= 2, `in the place the rendered line held (${JSON.stringify({ rendered, shown })})`);
        assert.equal(await page.locator('#page-body').count(), 0, 'the rendered line gave way');
        await session.check('placeholder');

        // Typing takes it away; deleting everything brings it back. It never reaches the document.
        await editorContent(page).click();
        await page.keyboard.type('Hello');
        await waitFor(async () => (await placeholderOf(page)) === null, 5_000, 'the placeholder to go');
        await page.getByText(t('editor.status.saved')).waitFor();
        for (let key = 0; key < 5; key++) await page.keyboard.press('Backspace');
        await waitFor(async () => (await placeholderOf(page))?.attribute === t('editor.placeholder'), 5_000, 'the placeholder back');
        await page.keyboard.type('Kept');
        await page.getByText(t('editor.status.saved')).waitFor();
        const slug = (created.body as { slug: string }).slug;
        const stored = await waitFor(async () => {
          const read = await owner.get(`/read/${pond.slug}/${slug}`);
          return read.status === 200 && read.text.includes('Kept') ? read.text : null;
        }, 10_000, 'the typed text in the rendered page');
        assert.ok(!stored.includes(t('editor.placeholder')), 'the placeholder is not content');
        assert.deepEqual(session.problems, []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('a reader reads the read-only sentence once, and an empty page says it is empty (desktop-en, phone-de)', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    for (const shape of SCREEN_SHAPES) {
      const { client: owner } = await createVerifiedUser(instance, { locale: shape.locale });
      const reader = await createVerifiedUser(instance, { locale: shape.locale });
      const pond = (await owner.post('/ponds', { name: 'Reading pond' })).body as { id: string; slug: string };
      assert.equal((await owner.post(`/ponds/${pond.id}/members`, { user: reader.user.username, role: 'reader' })).status, 201);
      const full = (await owner.post(`/ponds/${pond.id}/pages`, { title: 'Full', markdown: 'Something to read.' })).body as { slug: string };
      const empty = (await owner.post(`/ponds/${pond.id}/pages`, { title: 'Nothing yet' })).body as { slug: string };
      const session = await openAs(reader.client, shape, 'editor-reader-once');
      const { page, t } = session;
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/${full.slug}`);
        // Before the editor has synced (the status line is rendered with the page) and after.
        assert.equal(await readOnlySentences(page, READ_ONLY[shape.locale]), 1, 'once, from the first paint');
        await editorContent(page).waitFor();
        await page.getByText(t('editor.status.readOnly')).waitFor();
        assert.equal(await editorContent(page).getAttribute('contenteditable'), 'false');
        assert.equal(await readOnlySentences(page, READ_ONLY[shape.locale]), 1, 'once with the editor live');
        await session.check('read-only-once');

        const emptyUrl = `${instance.baseUrl}/${pond.slug}/${empty.slug}`;
        const rendered = await renderedEmptyLine(reader.client, shape, emptyUrl);
        assert.equal(rendered.text, t('app.pageEmpty'), 'a reader is not invited to write');
        await session.visit(emptyUrl);
        await editorContent(page).waitFor();
        await waitFor(async () => (await placeholderOf(page))?.attribute === t('app.pageEmpty'), 5_000, 'the editor says the page is empty');
        assert.equal(await readOnlySentences(page, READ_ONLY[shape.locale]), 1);
        await session.check('reader-empty');
        assert.deepEqual(session.problems, []);
      } finally {
        await session.context.close();
      }
    }
  });
});
