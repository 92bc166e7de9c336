/**
 * Blocks in the editor in Chromium against a real collab server: a table's column alignment
 * holds under the app's Content-Security-Policy (no 'unsafe-inline' styles; ProseMirror sets
 * Tiptap's style attributes through the CSSOM) without a single policy violation; a plugin
 * block is visible and named (editor/src/editor/blockNodeViews.ts); a section is a marked box
 * that can be typed in, and the typed text reaches the stored body. Typed with shortcuts: a
 * task list (checked by a click) and a code block with its language, both stored; and leaving
 * the page warns only while changes are unsynced. axe and screenshots in both shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createVerifiedUser } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { caretAtEnd, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

const MARKDOWN = [
  'Intro paragraph.',
  '',
  '| Left | Right |',
  '|:-----|------:|',
  '| west | east |',
  '',
  '```dt-plugin demo/chart',
  '{"points": [1, 2, 3]}',
  '```',
  '',
  ':::section{plugin="demo" style="note"}',
  'Inside a section.',
  ':::',
  '',
].join('\n');

/** Keeps every policy violation of the context's pages, from their first script on. */
async function recordPolicyViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.sample}`));
  });
}

const policyViolations = (tab: Page) => tab.evaluate(() => (window as unknown as { __violations: string[] }).__violations);

describe('editor: tables, plugin blocks and sections', () => {
  test('the page arrives text first: no script before the body, and every island still hydrates', { timeout: 60_000 }, async () => {
    const { client } = await createVerifiedUser(instance, { locale: 'en' });
    const pond = (await client.post('/ponds', { name: 'Text first' })).body as { id: string; slug: string };
    const page = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Text first', markdown: MARKDOWN })).body as { slug: string };
    const url = `${instance.baseUrl}/${pond.slug}/${page.slug}`;
    // Astro's island runtime stands at the end of the body (site/src/server/islandScriptsLast.ts):
    // a script before the text would hold the parser and paint the header alone first.
    const html = await (await fetch(url, { headers: { cookie: `dt_session=${client.sessionCookie}` } })).text();
    const text = html.indexOf('Intro paragraph.');
    assert.ok(text > 0, 'the body is server-rendered');
    assert.ok(html.indexOf('<script') > text, 'no script comes before the body’s text');
    assert.ok(html.includes('<astro-island'), 'the page has islands');
    const session = await openSession(browser, SCREEN_SHAPES[0]!, 'editor-text-first');
    await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
    await recordPolicyViolations(session.context);
    try {
      await session.visit(url);
      await session.page.waitForFunction(() => document.querySelectorAll('astro-island').length > 0 && document.querySelectorAll('astro-island[ssr]').length === 0);
      await session.page.locator('.page-editor[data-phase="live"] .page-editor-content[contenteditable="true"]').waitFor();
      assert.deepEqual(await policyViolations(session.page), []);
    } finally {
      await session.context.close();
    }
  });

  for (const shape of SCREEN_SHAPES) {
    test(`blocks render under the CSP and stay editable (${shape.name})`, { timeout: 120_000 }, async () => {
      const { client } = await createVerifiedUser(instance, { locale: shape.locale });
      const pond = (await client.post('/ponds', { name: `Blocks ${shape.name}` })).body as { id: string; slug: string };
      const created = await client.post(`/ponds/${pond.id}/pages`, { title: 'Blocks', markdown: MARKDOWN });
      assert.equal(created.status, 201, created.text);
      const page = created.body as { id: string; slug: string };
      const session = await openSession(browser, shape, 'editor-blocks');
      await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      await recordPolicyViolations(session.context);
      try {
        const { page: tab, t } = session;
        await session.visit(`${instance.baseUrl}/${pond.slug}/${page.slug}`);
        const editor = tab.locator('.page-editor[data-phase="live"] .page-editor-content[contenteditable="true"]');
        await editor.waitFor();
        await tab.getByText(t('editor.status.saved')).waitFor();

        const right = editor.locator('table td', { hasText: 'east' });
        await right.waitFor();
        assert.equal(await right.evaluate((cell) => getComputedStyle(cell).textAlign), 'right');
        assert.equal(await editor.locator('table td', { hasText: 'west' }).evaluate((cell) => getComputedStyle(cell).textAlign), 'left');

        const plugin = editor.locator('.editor-plugin-block');
        await plugin.waitFor();
        assert.equal((await plugin.textContent())?.trim(), t('editor.pluginBlockEmpty', { name: 'demo · chart' }));
        assert.equal(await plugin.getAttribute('contenteditable'), 'false');

        const section = editor.locator('section[data-section]');
        assert.equal((await section.textContent())?.trim(), 'Inside a section.');
        assert.equal(await section.evaluate((element) => getComputedStyle(element).borderLeftStyle), 'solid');
        await section.locator('p').click();
        await tab.keyboard.press('End');
        await tab.keyboard.type(' Typed inside.');
        await tab.getByText(t('editor.status.saved')).waitFor();
        await waitFor(
          async () => {
            const body = (await client.get(`/read/${pond.slug}/${page.slug}`)).text;
            return body.includes('Inside a section. Typed inside.');
          },
          15_000,
          'the text typed in the section to be stored',
        );

        assert.deepEqual(await policyViolations(tab), []);
        await session.check('blocks');
        assert.deepEqual(session.problems, []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('a task list and a code block typed with shortcuts are stored; leaving warns only while changes are unsynced', { timeout: 120_000 }, async () => {
    const shape = SCREEN_SHAPES[0]!;
    const { client } = await createVerifiedUser(instance, { locale: shape.locale });
    const pond = (await client.post('/ponds', { name: 'Shortcuts pond' })).body as { id: string; slug: string };
    const page = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Shortcuts', markdown: 'Seed paragraph.' })).body as { slug: string };
    const session = await openSession(browser, shape, 'editor-shortcuts');
    await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
    const readBody = async () => (await client.get(`/read/${pond.slug}/${page.slug}`)).text;
    const leavingIsHeldUp = () =>
      session.page.evaluate(() => {
        const event = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(event);
        return event.defaultPrevented;
      });
    try {
      const { page: tab, t } = session;
      await openEditor(session, `${instance.baseUrl}/${pond.slug}/${page.slug}`);
      const editor = tab.locator('.page-editor-content');
      await caretAtEnd(tab);
      await tab.keyboard.press('Enter');
      await tab.keyboard.type('[ ] Buy bread', { delay: 10 });
      const task = editor.locator('ul[data-type="taskList"] li', { hasText: 'Buy bread' });
      await task.waitFor();
      await task.locator('input[type="checkbox"]').click();
      assert.equal(await task.getAttribute('data-checked'), 'true');
      await caretAtEnd(tab);
      await tab.keyboard.press('Enter');
      await tab.keyboard.press('Enter');
      await tab.keyboard.type('```typescript ', { delay: 10 });
      await tab.keyboard.type('const pond = 1;', { delay: 10 });
      await editor.locator('pre code', { hasText: 'const pond = 1;' }).waitFor();
      await tab.getByText(t('editor.status.saved')).waitFor();
      await waitFor(async () => /language-typescript[^>]*>const pond = 1;/.test(await readBody()), 15_000, 'the code block with its language to be stored');
      assert.match(await readBody(), /<input[^>]*checked[^>]*>\s*(<[^>]+>\s*)*Buy bread/);

      assert.equal(await leavingIsHeldUp(), false, 'everything saved: no warning');
      await session.context.setOffline(true);
      await caretAtEnd(tab);
      await tab.keyboard.type(' Typed offline.', { delay: 10 });
      await waitFor(async () => leavingIsHeldUp(), 5_000, 'the warning while the edit is unsynced');
      await session.context.setOffline(false);
      await tab.getByText(t('editor.status.saved')).waitFor({ timeout: 20_000 });
      assert.equal(await leavingIsHeldUp(), false, 'saved again: no warning');
      await session.check('shortcuts');
    } finally {
      await session.context.close();
    }
  });
});
