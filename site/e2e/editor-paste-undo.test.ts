/**
 * The editor's handling of what comes from outside and of undo, in Chromium against a real
 * collab server: an image already in the document is drawn from its uploaded file's URL
 * (`/api/v1/media/<id>`; serving those files is the attachments issue's); pasted HTML is
 * converted through the document schema (headings and lists kept; scripts and event handlers
 * dropped, and none of them ever runs: the CSP refuses them already where the browser parses
 * the clipboard's markup); and undo takes back only the person's own typing, not what someone
 * else typed meanwhile (Yjs undo manager), in both editors.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession } from './browserSession.ts';
import { caretAtEnd, editorContent, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

async function openAs(client: TestClient, shape: (typeof SCREEN_SHAPES)[number], prefix: string): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
  return session;
}

const textOf = (page: Page) => editorContent(page).evaluate((element) => {
  const copy = element.cloneNode(true) as HTMLElement;
  for (const caret of copy.querySelectorAll('.presence-caret')) caret.remove();
  return copy.textContent ?? '';
});

describe('editor: images, HTML paste and undo', () => {
  test('an image in the document renders, and pasted HTML goes through the schema', { timeout: 120_000 }, async () => {
    const shape = SCREEN_SHAPES[0]!;
    const { client } = await createVerifiedUser(instance, { locale: shape.locale });
    const pond = (await client.post('/ponds', { name: 'Paste pond' })).body as { id: string; slug: string };
    const fileId = '6f1c0e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6';
    const created = await client.post(`/ponds/${pond.id}/pages`, { title: 'Paste', markdown: `Before the picture.\n\n![The logo](/api/v1/media/${fileId})\n\nAfter it.` });
    assert.equal(created.status, 201, created.text);
    const page = created.body as { slug: string };
    const session = await openAs(client, shape, 'editor-paste');
    try {
      const { page: tab } = session;
      await openEditor(session, `${instance.baseUrl}/${pond.slug}/${page.slug}`);
      const editor = editorContent(tab);
      const image = editor.locator('img[alt="The logo"]');
      await image.waitFor({ state: 'attached' });
      assert.equal(await image.getAttribute('src'), `/api/v1/media/${fileId}`);

      await caretAtEnd(tab);
      await tab.keyboard.press('Enter');
      await editor.evaluate((element) => {
        const data = new DataTransfer();
        data.setData('text/html', '<h3>Pasted heading</h3><ul><li>first pasted</li></ul><p onclick="window.__pasted = 1">safe text</p><img src="/nothing" onerror="window.__pasted = 3"><script>window.__pasted = 2</script>');
        data.setData('text/plain', 'Pasted heading first pasted safe text');
        element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await editor.locator('h3', { hasText: 'Pasted heading' }).waitFor();
      await editor.locator('li', { hasText: 'first pasted' }).waitFor();
      await editor.locator('p', { hasText: 'safe text' }).waitFor();
      assert.equal(await editor.locator('script, [onclick]').count(), 0);
      await editor.locator('p', { hasText: 'safe text' }).click();
      assert.equal(await tab.evaluate(() => (window as unknown as { __pasted?: number }).__pasted), undefined);
      await tab.getByText(session.t('editor.status.saved')).waitFor();
      await waitFor(async () => (await client.get(`/read/${pond.slug}/${page.slug}`)).text.includes('Pasted heading'), 15_000, 'the pasted heading to be stored');
      await session.check('pasted');
      // Expected refusals only: the image's file, which no upload has made (media serving comes with
      // attachments), and the CSP refusing the pasted handlers where the browser parses the clipboard's markup.
      assert.deepEqual(session.problems.filter((problem) => !problem.includes('404') && !problem.includes('inline event handler')), []);
    } finally {
      await session.context.close();
    }
  });

  test("undo takes back only one's own typing, in both editors", { timeout: 120_000 }, async () => {
    const [desktop, phone] = [SCREEN_SHAPES[0]!, SCREEN_SHAPES[1]!];
    const ada = await createVerifiedUser(instance, { locale: 'en' });
    const bob = await createVerifiedUser(instance, { locale: 'de' });
    const bobName = ((await bob.client.get('/auth/session')).body.user as { username: string }).username;
    const pond = (await ada.client.post('/ponds', { name: 'Undo pond' })).body as { id: string; slug: string };
    assert.equal((await ada.client.post(`/ponds/${pond.id}/members`, { user: bobName, role: 'editor' })).status, 201);
    const page = (await ada.client.post(`/ponds/${pond.id}/pages`, { title: 'Undo', markdown: 'Seed paragraph.' })).body as { slug: string };
    const url = `${instance.baseUrl}/${pond.slug}/${page.slug}`;
    const first = await openAs(ada.client, desktop, 'editor-undo');
    const second = await openAs(bob.client, phone, 'editor-undo');
    try {
      await openEditor(first, url);
      await openEditor(second, url);
      await caretAtEnd(first.page);
      await first.page.keyboard.type(' Ada wrote this.', { delay: 15 });
      await waitFor(async () => (await textOf(second.page)).includes('Ada wrote this.'), 10_000, 'Bob to see Ada’s text');
      await caretAtEnd(second.page);
      await second.page.keyboard.press('Enter');
      await second.page.keyboard.type('Bob wrote this.', { delay: 15 });
      await waitFor(async () => (await textOf(first.page)).includes('Bob wrote this.'), 10_000, 'Ada to see Bob’s text');

      // Ada undoes until her text is gone: Bob's stays, for both of them.
      await editorContent(first.page).focus();
      await waitFor(
        async () => {
          await first.page.keyboard.press('Control+z');
          return !(await textOf(first.page)).includes('Ada wrote');
        },
        10_000,
        'Ada’s undo to take her text back',
      );
      for (const session of [first, second]) {
        await waitFor(async () => !(await textOf(session.page)).includes('Ada wrote'), 10_000, 'the undo to reach both editors');
        const text = await textOf(session.page);
        assert.ok(text.includes('Seed paragraph.'), text);
        assert.ok(text.includes('Bob wrote this.'), text);
      }
      await second.check('undone');
      assert.deepEqual(first.problems, []);
      assert.deepEqual(second.problems, []);
    } finally {
      await first.context.close();
      await second.context.close();
    }
  });
});
