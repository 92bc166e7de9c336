/**
 * The collaborative editor in Chromium against a real collab server (started here, on the port
 * the instance proxies `/collab` to): two people typing at once converge and see each other's
 * carets; text typed offline survives a reload and reaches the other person on reconnect; a
 * downgrade to reader makes the editor read-only within 5 s and an upgrade editable again; a
 * blocked socket leaves the rendered page readable with the explanation. Screens checked with
 * axe; screenshots of the editor and the presence row in both shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page, WebSocketRoute } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { caretAtEnd, editorContent, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

interface Person {
  client: TestClient;
  id: string;
  username: string;
  displayName: string;
}

async function person(locale: 'de' | 'en'): Promise<Person> {
  const { client } = await createVerifiedUser(instance, { locale });
  const me = (await client.get('/auth/session')).body.user as { id: string; username: string; displayName: string };
  return { client, id: me.id, username: me.username, displayName: me.displayName };
}

/** A shared pond of `owner` with `editor` as a member, and one page with a paragraph. */
async function pondWithPage(owner: Person, editor: Person, title: string) {
  const pond = (await owner.client.post('/ponds', { name: `${title} pond` })).body as { id: string; slug: string };
  const added = await owner.client.post(`/ponds/${pond.id}/members`, { user: editor.username, role: 'editor' });
  assert.equal(added.status, 201, added.text);
  const page = (await owner.client.post(`/ponds/${pond.id}/pages`, { title, markdown: 'Seed paragraph.' })).body as { id: string; slug: string };
  return { pond, page, url: `${instance.baseUrl}/${pond.slug}/${page.slug}` };
}

async function openAs(who: Person, shape: ScreenShape, prefix: string): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  await session.context.addCookies([{ name: 'dt_session', value: who.client.sessionCookie!, url: instance.baseUrl }]);
  session.page.on('dialog', (dialog) => void dialog.accept());
  return session;
}

const content = editorContent;

/** The editor's text without the other people's caret labels. */
const documentText = (page: Page) =>
  content(page).evaluate((element) => {
    const copy = element.cloneNode(true) as HTMLElement;
    for (const caret of copy.querySelectorAll('.presence-caret')) caret.remove();
    return (copy.textContent ?? '').trim();
  });


/** Puts the caret at the end of the document (through the DOM selection, which the editor follows) and types. */
async function typeAtEnd(page: Page, text: string): Promise<void> {
  await caretAtEnd(page);
  if (text) await page.keyboard.type(text, { delay: 15 });
}

/** Sends the page's collab sockets through Playwright so a test can cut them (`block`) and let them through again. */
async function socketSwitch(page: Page) {
  let blocked = false;
  const open: WebSocketRoute[] = [];
  await page.routeWebSocket(/\/collab/, (socket) => {
    if (blocked) {
      void socket.close();
      return;
    }
    socket.connectToServer();
    open.push(socket);
  });
  return {
    block: async () => {
      blocked = true;
      for (const socket of open.splice(0)) await socket.close().catch(() => undefined);
    },
    unblock: () => {
      blocked = false;
    },
  };
}

describe('the collaborative editor', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`two people type at once and see each other (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const [ada, bob] = [await person(shape.locale), await person(shape.locale)];
      const { page: pageInfo, pond, url } = await pondWithPage(ada, bob, 'Together');
      const [first, second] = [await openAs(ada, shape, 'editor'), await openAs(bob, shape, 'editor')];
      try {
        // The rendered body is on screen before the editor takes over.
        await first.page.goto(url);
        await first.page.locator('.app-page-body, .page-editor-content').first().getByText('Seed paragraph.').waitFor();
        await openEditor(first, url);
        await openEditor(second, url);
        await Promise.all([typeAtEnd(first.page, ' Alpha from Ada.'), typeAtEnd(second.page, ' Bravo from Bob.')]);
        for (const session of [first, second]) {
          await session.page.getByText(session.t('editor.status.saved')).waitFor();
          await waitFor(async () => {
            const text = await content(session.page).innerText();
            return text.includes('Alpha from Ada.') && text.includes('Bravo from Bob.');
          }, 10_000, 'both texts in both editors');
        }
        assert.equal(await documentText(first.page), await documentText(second.page), 'the same final text');
        // Carets with names, and both avatars.
        await first.page.locator('.presence-caret-name', { hasText: bob.displayName }).waitFor();
        await second.page.locator('.presence-caret-name', { hasText: ada.displayName }).waitFor();
        assert.equal(await first.page.locator('.presence .avatar').count(), 2);
        // The server has it too (the rendered cache, after the debounced store).
        await waitFor(async () => {
          const read = await ada.client.get(`/read/${pond.slug}/${pageInfo.slug}`);
          return read.status === 200 && read.text.includes('Alpha from Ada.') && read.text.includes('Bravo from Bob.');
        }, 10_000, 'the rendered cache to hold both texts');
        // A reader gets the same island read-only, and sees edits as they happen.
        const cara = await person(shape.locale);
        assert.equal((await ada.client.post(`/ponds/${pond.id}/members`, { user: cara.username, role: 'reader' })).status, 201);
        const reader = await openAs(cara, shape, 'editor-reader');
        try {
          await reader.visit(url);
          await content(reader.page).waitFor();
          await reader.page.getByText(reader.t('editor.status.readOnly')).waitFor();
          assert.equal(await content(reader.page).getAttribute('contenteditable'), 'false');
          // No formatting for a reader; the pond lets readers comment, so the toolbar holds Comment only.
          const readerToolbar = reader.page.getByRole('toolbar', { name: reader.t('editor.toolbar') });
          await readerToolbar.waitFor();
          assert.deepEqual(await readerToolbar.locator('button.tool').evaluateAll((buttons) => buttons.map((button) => button.dataset['label'])), [reader.t('editor.comment')]);
          await typeAtEnd(first.page, ' Live for readers.');
          await waitFor(async () => (await documentText(reader.page)).includes('Live for readers.'), 10_000, 'the reader to see the edit');
          assert.deepEqual(reader.problems, []);
        } finally {
          await reader.context.close();
        }
        await first.check('editor');
        await second.page.locator('.presence').screenshot({ path: `test-output/e2e/editor-${shape.name}-presence-row.png` });
        await second.screenshot('presence');
        assert.deepEqual(first.problems, []);
        assert.deepEqual(second.problems, []);
      } finally {
        await first.context.close();
        await second.context.close();
      }
    });
  }

  const shape = SCREEN_SHAPES[0]!;

  test('typing offline survives a reload and reaches the other person on reconnect', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    const [ada, bob] = [await person('en'), await person('en')];
    const { url } = await pondWithPage(ada, bob, 'Offline');
    const [first, second] = [await openAs(ada, shape, 'editor-offline'), await openAs(bob, shape, 'editor-offline')];
    try {
      const sockets = await socketSwitch(first.page);
      await openEditor(first, url);
      await openEditor(second, url);
      await first.context.setOffline(true);
      await sockets.block();
      await first.page.getByText(first.t('editor.status.offline')).waitFor();
      await typeAtEnd(first.page, ' Written offline.');
      await first.screenshot('offline');
      // Reload with the socket still cut (the page itself has to come from the server).
      await first.context.setOffline(false);
      await first.page.reload();
      await waitFor(async () => (await content(first.page).isVisible()) && (await content(first.page).innerText()).includes('Written offline.'), 10_000, 'the offline text after the reload');
      assert.ok(!(await content(second.page).innerText()).includes('Written offline.'), 'not sent while offline');
      sockets.unblock();
      await waitFor(async () => (await content(second.page).innerText()).includes('Written offline.'), 30_000, 'the other person to receive the offline text');
      await first.page.getByText(first.t('editor.status.saved')).waitFor({ timeout: 30_000 });
      assert.deepEqual(second.problems, []);
    } finally {
      await first.context.close();
      await second.context.close();
    }
  });

  test('a downgrade to reader makes the editor read-only within 5 s, an upgrade editable again', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    const [ada, bob] = [await person('en'), await person('en')];
    const { pond, url } = await pondWithPage(ada, bob, 'Downgrade');
    const session = await openAs(bob, shape, 'editor-downgrade');
    const { page, t } = session;
    try {
      await openEditor(session, url);
      assert.equal(await content(page).getAttribute('contenteditable'), 'true');
      await page.getByRole('toolbar', { name: t('editor.toolbar') }).waitFor();

      const downgraded = await ada.client.patch(`/ponds/${pond.id}/members/${bob.id}`, { role: 'reader' });
      assert.equal(downgraded.status, 200, downgraded.text);
      const started = Date.now();
      await waitFor(async () => (await content(page).getAttribute('contenteditable')) === 'false', 5_000, 'the editor to turn read-only');
      assert.ok(Date.now() - started <= 5_000);
      await page.getByText(t('editor.status.readOnly')).waitFor();
      // No formatting for a reader: the toolbar keeps Comment only (the pond lets readers comment).
      await waitFor(async () => (await page.getByRole('toolbar', { name: t('editor.toolbar') }).locator('button.tool').count()) === 1, 5_000, 'the formatting tools to go');
      assert.equal(await page.getByRole('button', { name: t('editor.bold') }).count(), 0, 'no formatting for a reader');
      await session.check('read-only');
      // The server agrees: a reader's token is `ro`.
      assert.equal((await bob.client.get(`/pages/${(await ada.client.get(`/ponds/${pond.id}/pages`)).body.items[0].id}/collab-token`)).body.mode, 'ro');

      const upgraded = await ada.client.patch(`/ponds/${pond.id}/members/${bob.id}`, { role: 'editor' });
      assert.equal(upgraded.status, 200, upgraded.text);
      await waitFor(async () => (await content(page).getAttribute('contenteditable')) === 'true', 10_000, 'the editor to be editable again');
      await typeAtEnd(page, ' Back again.');
      await page.getByText(t('editor.status.saved')).waitFor();

      // Taken out of the pond: the editor stops, says so, and the text stays readable.
      const removed = await ada.client.request('DELETE', `/ponds/${pond.id}/members/${bob.id}`);
      assert.equal(removed.status, 204, removed.text);
      await page.getByText(t('editor.status.noAccess')).waitFor({ timeout: 5_000 });
      assert.equal(await content(page).getAttribute('contenteditable'), 'false');
      assert.match(await documentText(page), /Back again\./);
      // The only complaints are the refused token requests (404: the page is no longer theirs).
      assert.deepEqual(session.problems.filter((problem) => !problem.includes('status of 404')), []);
    } finally {
      await session.context.close();
    }
  });

  test('toolbar and Markdown shortcuts, [[ links (phantoms apart), ![[ transclusions and @ mentions', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    const [ada, bob] = [await person('en'), await person('en')];
    const { pond, page: linking, url } = await pondWithPage(ada, bob, 'Linking');
    const target = (await ada.client.post(`/ponds/${pond.id}/pages`, { title: 'Target page', markdown: 'Target body text.' })).body as { id: string; slug: string };
    const session = await openAs(ada, shape, 'editor-links');
    const { page, t } = session;
    const editorBox = content(page);
    const choose = async (label: string) => {
      await page.getByRole('option', { name: label }).waitFor();
      await page.keyboard.press('Enter');
    };
    try {
      await openEditor(session, url);
      await typeAtEnd(page, '');
      // Markdown input rules.
      await page.keyboard.press('Enter');
      await page.keyboard.type('## Typed heading');
      await page.keyboard.press('Enter');
      await page.keyboard.type('Some **strong** words ');
      await editorBox.locator('h2', { hasText: 'Typed heading' }).waitFor();
      await editorBox.locator('strong', { hasText: 'strong' }).waitFor();
      // Toolbar: a mark shows as pressed; a table with a row added.
      const bold = page.getByRole('button', { name: t('editor.bold') });
      await bold.click();
      assert.equal(await bold.getAttribute('aria-pressed'), 'true');
      await bold.click();
      await page.getByRole('button', { name: t('editor.insertTable') }).click();
      await editorBox.locator('table').waitFor();
      await page.getByRole('button', { name: t('editor.addRow') }).click();
      assert.equal(await editorBox.locator('table tr').count(), 4);
      await page.getByRole('button', { name: t('editor.deleteTable') }).click();
      await session.check('toolbar');
      // Markdown pasted as plain text goes through the pipeline's parser.
      await typeAtEnd(page, '');
      await page.keyboard.press('Enter');
      await editorBox.evaluate((element) => {
        const data = new DataTransfer();
        data.setData('text/plain', '### Pasted heading\n\n- first item\n- second item\n');
        element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      });
      await editorBox.locator('h3', { hasText: 'Pasted heading' }).waitFor();
      await editorBox.locator('li', { hasText: 'second item' }).waitFor();
      // A code block with its language.
      await typeAtEnd(page, '');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: t('editor.codeBlock') }).click();
      await page.keyboard.type('const answer = 42;');
      await page.getByLabel(t('editor.codeLanguage')).fill('ts');
      await page.getByLabel(t('editor.codeLanguage')).press('Enter');
      await editorBox.locator('pre code.language-ts', { hasText: 'const answer = 42;' }).waitFor();
      await typeAtEnd(page, '');
      await session.check('code-block');

      // [[ finds the page by title; a name without a page becomes a phantom link.
      // Out of the code block: Enter three times at its end leaves it.
      await typeAtEnd(page, '');
      for (let press = 0; press < 3; press++) await page.keyboard.press('Enter');
      await page.keyboard.type('See [[Targ');
      await session.screenshot('autocomplete');
      await choose('Target page');
      await editorBox.locator(`a.wikilink[data-slug="${target.slug}"]`).waitFor();
      await page.keyboard.type('and [[Nowhere Yet');
      await choose(t('editor.suggest.createMissing', { name: 'Nowhere Yet' }));
      const phantom = editorBox.locator('a.wikilink-phantom[data-slug="nowhere-yet"]');
      await phantom.waitFor();
      assert.equal(await phantom.getAttribute('title'), t('editor.phantomTitle'));
      // @ mentions a member.
      await page.keyboard.type(`thanks @${bob.username}`);
      await choose(bob.displayName);
      await editorBox.locator(`span[data-mention][data-id="${bob.id}"]`).waitFor();
      // ![[ embeds the target's body.
      await page.keyboard.press('Enter');
      await page.keyboard.type('![[Target');
      await choose('Target page');
      await editorBox.locator('.transclusion-box').getByText('Target body text.').waitFor();
      await page.getByText(t('editor.status.saved')).waitFor();
      await session.check('links');

      // The server sees the link: a backlink on the target; the phantom turns into a link once its page exists.
      await waitFor(async () => {
        const backlinks = await ada.client.get(`/pages/${target.id}/backlinks`);
        return backlinks.status === 200 && backlinks.body.items.some((item: { page: { id: string } }) => item.page.id === linking.id);
      }, 10_000, 'the backlink on the target');
      const created = await ada.client.post(`/ponds/${pond.id}/pages`, { title: 'Nowhere Yet' });
      assert.equal(created.status, 201);
      assert.equal(created.body.slug, 'nowhere-yet');
      await page.reload();
      await editorBox.locator('a.wikilink[data-slug="nowhere-yet"]').waitFor();
      await waitFor(async () => (await editorBox.locator('a.wikilink-phantom').count()) === 0, 10_000, 'no phantom left');
      assert.deepEqual(session.problems, []);
    } finally {
      await session.context.close();
    }
  });

  test('a restored version reaches every open editor: both contexts converge on the restored text', { timeout: 120_000 }, async () => {
    await resetRateLimits(instance);
    const shape = SCREEN_SHAPES[0]!;
    const [ada, bob] = [await person(shape.locale), await person(shape.locale)];
    const { page: pageInfo, url } = await pondWithPage(ada, bob, 'Restored');
    const [first, second] = [await openAs(ada, shape, 'editor-restore'), await openAs(bob, shape, 'editor-restore')];
    try {
      await openEditor(first, url);
      await openEditor(second, url);
      // Name the state with the seed text, then both change the page.
      const named = await ada.client.post(`/pages/${pageInfo.id}/versions`, { label: 'Before the edits' });
      assert.equal(named.status, 201, named.text);
      await typeAtEnd(first.page, ' Added by Ada.');
      await typeAtEnd(second.page, ' Added by Bob.');
      for (const session of [first, second]) {
        await session.page.getByText(session.t('editor.status.saved')).waitFor();
        await waitFor(async () => (await documentText(session.page)).includes('Added by Ada.') && (await documentText(session.page)).includes('Added by Bob.'), 10_000, 'both edits in each editor');
      }
      // Restore through the API while both editors are open: they show the named text, and nothing else.
      const restored = await bob.client.post(`/versions/${named.body.id}/restore`, {});
      assert.ok(restored.status === 200 || restored.status === 201, restored.text);
      for (const session of [first, second]) {
        await waitFor(async () => (await documentText(session.page)) === 'Seed paragraph.', 10_000, 'the restored text in the editor');
        assert.equal(await session.page.locator('.ProseMirror').getAttribute('contenteditable'), 'true', 'still editable');
      }
      await first.check('restored');
      // And it stays: what the server stored is the restored text.
      await waitFor(async () => (await instance.services.sequelize.query(`SELECT 1 FROM page_versions WHERE page_id = :pageId AND trigger = 'pre_restore'`, { replacements: { pageId: pageInfo.id } }))[0].length === 1, 10_000, 'the pre-restore version');
    } finally {
      await first.context.close();
      await second.context.close();
    }
  });

  test('a blocked socket leaves the rendered page readable with the explanation', { timeout: 60_000 }, async () => {
    await resetRateLimits(instance);
    const [ada, bob] = [await person('de'), await person('de')];
    const { url } = await pondWithPage(ada, bob, 'Blocked');
    const session = await openAs(ada, SCREEN_SHAPES[1]!, 'editor-blocked');
    const { page, t } = session;
    try {
      const sockets = await socketSwitch(page);
      await sockets.block();
      await session.visit(url);
      await page.getByText(t('editor.unavailable')).waitFor();
      assert.ok(await page.locator('.app-page-body').getByText('Seed paragraph.').isVisible(), 'the rendered body stays');
      assert.equal(await content(page).isVisible(), false, 'never an empty editor');
      await page.locator('.editor-status', { hasText: t('editor.status.retrying') }).waitFor();
      await session.check('unavailable');
      // The connection comes back: the editor takes over.
      sockets.unblock();
      await content(page).waitFor({ timeout: 30_000 });
      assert.match(await content(page).innerText(), /Seed paragraph\./);
    } finally {
      await session.context.close();
    }
  });
});
