/**
 * Comments on the page screen in Chromium: text selected in the editor gets a comment (Mod-Alt-M
 * on a desktop, the toolbar's button on a phone); its passage is highlighted (a decoration, the
 * shared document unchanged); the thread shows in the Comments panel with the sanitized body
 * and the header counts it; a click on the highlight marks the thread, the quote in the panel
 * selects the passage. A reply, an empty reply refused in the API's words, resolve (the thread
 * collapses to its root and "1 reply"), reopen. A second person in another browser sees the
 * thread after a reload, with the form while the pond lets readers comment and without it once
 * it takes editors; and sees "passage deleted" as soon as the owner deletes the passage. Each
 * step checked through the API; axe and screenshots; desktop in English, phone in German.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import type { CommentListView } from '../../editor/src/comments/commentViews.ts';
import { openSession, waitForIslands, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { editorContent, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

const PASSAGE = 'new coat of paint';
const MARKDOWN = `The bridge needs a ${PASSAGE} before winter.\n\nThe budget for it is still open.`;

/** Selects `text` in the editor through the DOM selection, which the editor follows. */
async function selectInEditor(page: Page, text: string): Promise<void> {
  await editorContent(page).evaluate((element, wanted) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const index = node.textContent!.indexOf(wanted);
      if (index < 0) continue;
      if ((element as HTMLElement).isContentEditable) (element as HTMLElement).focus();
      const range = document.createRange();
      range.setStart(node, index);
      range.setEnd(node, index + wanted.length);
      const selection = window.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      return;
    }
    throw new Error(`"${wanted}" is not in the editor`);
  }, text);
  await page.waitForTimeout(100);
}

async function threadsOf(client: TestClient, pageId: string): Promise<CommentListView> {
  const response = await client.get(`/pages/${pageId}/comments?status=all`);
  assert.equal(response.status, 200, response.text);
  return response.body as CommentListView;
}

/** On a phone the panels are a closed disclosure below the body. */
async function openCommentsTab(session: BrowserSession, shape: ScreenShape): Promise<void> {
  const { page, t } = session;
  if (shape.isMobile && !(await page.locator('.page-panels details').evaluate((element) => (element as HTMLDetailsElement).open))) await page.locator('.page-panels summary').click();
  await page.getByRole('tab', { name: t('panels.comments') }).click();
}


describe('comments on the page screen', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`comment a selection, reply, resolve, reopen; a second person reads them (${shape.name})`, { timeout: 240_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance);
      const other = await createVerifiedUser(instance);
      const { client } = owner;
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Kommentarteich' : 'Comment pond' })).body as { id: string; slug: string };
      assert.equal((await client.post(`/ponds/${pond.id}/members`, { user: other.user.username, role: 'reader' })).status, 201);
      const target = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Bridge', markdown: MARKDOWN })).body as { id: string; slug: string };
      const url = `${instance.baseUrl}/${pond.slug}/${target.slug}`;

      const session = await openSession(browser, shape, 'comments');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      const readerSession = await openSession(browser, shape, 'comments-reader');
      await readerSession.context.addCookies([{ name: 'dt_session', value: other.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await openEditor(session, url);
        await page.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '0');
        const panel = page.locator('#page-panel-comments');

        // A comment on the selection: Mod-Alt-M on a desktop, the toolbar's button on a phone.
        await selectInEditor(page, PASSAGE);
        if (shape.isMobile) await page.getByRole('toolbar', { name: t('editor.toolbar') }).getByRole('button', { name: t('editor.comment') }).click();
        else await page.keyboard.press('Control+Alt+M');
        const form = page.locator('.new-comment');
        await form.getByText(PASSAGE).waitFor();
        await form.getByLabel(t('comments.newLabel')).fill('Which colour? **Blue**, please. <script>alert(1)</script>');
        await session.check('new-comment');
        await form.getByRole('button', { name: t('comments.submit'), exact: true }).click();
        await form.waitFor({ state: 'detached' });

        // Highlighted, in the panel (opened on its tab), counted; the document itself unchanged.
        const highlight = editorContent(page).locator('.comment-highlight');
        await highlight.waitFor();
        assert.equal(await highlight.textContent(), PASSAGE);
        let listed = await threadsOf(client, target.id);
        assert.equal(listed.items.length, 1);
        const thread = listed.items[0]!;
        assert.equal(thread.anchor?.quote, PASSAGE);
        const stored = await client.get(`/read/${pond.slug}/${target.slug}`, { headers: { Accept: 'text/html' } });
        assert.ok(stored.text.includes(PASSAGE) && !stored.text.includes('comment'), 'the stored document holds no trace of the comment');
        const threadItem = panel.locator(`[data-thread-id="${thread.id}"]`);
        await threadItem.waitFor();
        assert.equal(await threadItem.locator('.comment-body strong').textContent(), 'Blue');
        assert.match((await threadItem.locator('.comment-body').textContent()) ?? '', /<script>alert\(1\)<\/script>/, 'markup comes back as text');
        await page.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '1');
        await session.check('thread');

        // The highlight and the thread point at each other.
        await page.evaluate(() => window.getSelection()?.removeAllRanges());
        await highlight.click();
        await panel.locator('.comment-thread-active').waitFor();
        await threadItem.getByRole('button', { name: t('comments.showPassage') }).click();
        await page.waitForFunction((wanted) => window.getSelection()?.toString() === wanted, PASSAGE);
        await editorContent(page).locator('.comment-highlight-active').waitFor();

        // A reply; an empty one refused in the API's words next to the form.
        await threadItem.getByRole('button', { name: t('comments.reply'), exact: true }).click();
        const replyField = threadItem.getByLabel(t('comments.replyLabel'));
        await threadItem.getByRole('button', { name: t('comments.sendReply'), exact: true }).click();
        const refusal = await page.evaluate(async (pageId) => {
          const response = await fetch(`/api/v1/pages/${pageId}/comments`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ body: '  ' }) });
          return ((await response.json()) as { error: { message: string } }).error.message;
        }, target.id);
        await threadItem.locator('.field-error', { hasText: refusal }).waitFor();
        assert.equal(await replyField.getAttribute('aria-invalid'), 'true');
        await replyField.fill('Blue it is.');
        await threadItem.getByRole('button', { name: t('comments.sendReply'), exact: true }).click();
        await threadItem.locator('.comment-replies').getByText('Blue it is.').waitFor();
        listed = await threadsOf(client, target.id);
        assert.deepEqual(listed.items[0]!.replies.map((reply) => reply.body), ['Blue it is.']);

        // The author edits the reply.
        const replies = threadItem.locator('.comment-replies');
        await replies.getByRole('button', { name: t('comments.edit'), exact: true }).click();
        await replies.getByLabel(t('comments.editLabel')).fill('Blue it is, dark blue.');
        await replies.getByRole('button', { name: t('comments.save'), exact: true }).click();
        await replies.getByText('Blue it is, dark blue.').waitFor();
        await replies.getByText(t('comments.edited')).waitFor();
        listed = await threadsOf(client, target.id);
        assert.equal(listed.items[0]!.replies[0]!.body, 'Blue it is, dark blue.');
        assert.notEqual(listed.items[0]!.replies[0]!.editedAt, null);

        // Resolve: gone from the open threads and the count, no highlight; collapsed under Resolved.
        await threadItem.getByRole('button', { name: t('comments.resolve'), exact: true }).click();
        await panel.getByText(t('comments.resolvedNotice')).waitFor();
        await threadItem.waitFor({ state: 'detached' });
        await page.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '0');
        await editorContent(page).locator('.comment-highlight').waitFor({ state: 'detached' });
        assert.notEqual((await threadsOf(client, target.id)).items[0]!.resolvedAt, null);
        await panel.getByRole('button', { name: t('comments.filterResolved') }).click();
        await threadItem.getByText(t('comments.resolvedBy', { name: owner.credentials.displayName })).waitFor();
        assert.equal(await threadItem.locator('.comment-replies').count(), 0, 'collapsed: the root only');
        const showReplies = threadItem.getByRole('button', { name: t('comments.replyCountOne') });
        assert.equal(await showReplies.getAttribute('aria-expanded'), 'false');
        await session.check('resolved-collapsed');
        await showReplies.click();
        await threadItem.locator('.comment-replies').getByText('Blue it is, dark blue.').waitFor();

        // Reopen: open again (so no longer under Resolved), counted and highlighted again.
        await threadItem.getByRole('button', { name: t('comments.reopen'), exact: true }).click();
        await panel.getByText(t('comments.reopenedNotice')).waitFor();
        await threadItem.waitFor({ state: 'detached' });
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), t('comments.filterResolved'), 'the focus stays in the panel');
        await panel.getByRole('button', { name: t('comments.filterOpen') }).click();
        await threadItem.waitFor();
        await page.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '1');
        await highlight.waitFor();
        assert.equal((await threadsOf(client, target.id)).items[0]!.resolvedAt, null);

        // The second person, a reader, sees the thread after a reload; readers may comment here by default.
        const reader = readerSession.page;
        const readerPanel = reader.locator('#page-panel-comments');
        await readerSession.visit(url);
        await editorContent(reader).waitFor();
        await reader.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '1');
        // The header's count opens the panels on Comments and puts the focus there.
        await reader.locator('.comment-count').click();
        assert.equal(await reader.getByRole('tab', { name: t('panels.comments') }).getAttribute('aria-selected'), 'true');
        await reader.waitForFunction(() => document.activeElement?.id === 'page-panel-comments');
        await readerPanel.getByText('Blue it is, dark blue.').waitFor();
        await readerPanel.getByRole('button', { name: t('comments.reply'), exact: true }).waitFor();
        const ownersThread = readerPanel.locator(`[data-thread-id="${thread.id}"]`);
        assert.equal(await ownersThread.getByRole('button', { name: t('comments.edit'), exact: true }).count(), 0, 'not the reader’s to edit');
        assert.equal(await ownersThread.getByRole('button', { name: t('comments.delete'), exact: true }).count(), 0, 'not the reader’s to delete');

        // The reader comments on the whole page, then deletes that comment after being asked.
        await readerPanel.getByRole('button', { name: t('comments.onPageNew') }).click();
        await readerPanel.getByLabel(t('comments.pageLabel')).fill('Who pays for the paint?');
        await readerPanel.getByRole('button', { name: t('comments.submit'), exact: true }).click();
        const pageThread = readerPanel.locator('.comment-thread', { hasText: 'Who pays for the paint?' });
        await pageThread.getByText(t('comments.onPage')).waitFor();
        await reader.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '2');
        assert.deepEqual((await threadsOf(client, target.id)).items.map((entry) => [entry.body, entry.anchor === null]), [['Which colour? **Blue**, please. <script>alert(1)</script>', false], ['Who pays for the paint?', true]]);
        await pageThread.getByRole('button', { name: t('comments.delete'), exact: true }).click();
        await pageThread.getByText(t('comments.deleteQuestion')).waitFor();
        await readerSession.check('delete-question');
        await pageThread.getByRole('button', { name: t('comments.deleteConfirm') }).click();
        await pageThread.waitFor({ state: 'detached' });
        await reader.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '1');
        assert.equal((await threadsOf(client, target.id)).items.length, 1);
        const readerToolbar = reader.getByRole('toolbar', { name: t('editor.toolbar') });
        assert.deepEqual(await readerToolbar.locator('button.tool').evaluateAll((buttons) => buttons.map((button) => button.dataset['label'])), [t('editor.comment')], 'a reader’s toolbar: Comment only');
        await editorContent(reader).locator('.comment-highlight').waitFor();

        // Someone else's new comment reaches the open page by the 30 s poll, with no write or reload of the reader's.
        const ownersPageComment = await client.post(`/pages/${target.id}/comments`, { body: 'The paint is in the budget.' });
        assert.equal(ownersPageComment.status, 201);
        await readerPanel.getByText('The paint is in the budget.').waitFor({ timeout: 45_000 });
        await reader.waitForFunction(() => document.querySelector('.comment-count')?.getAttribute('data-count') === '2');
        assert.equal((await client.request('DELETE', `/comments/${ownersPageComment.body.id}`)).status, 204);

        // The owner deletes the passage: the reader's panel says so at once, the thread stays.
        await selectInEditor(page, PASSAGE);
        await page.keyboard.press('Backspace');
        await readerPanel.getByText(t('comments.passageDeleted')).waitFor();
        await panel.getByText(t('comments.passageDeleted')).waitFor();
        assert.equal(await editorContent(reader).locator('.comment-highlight').count(), 0);
        await readerSession.check('passage-deleted');

        // Comments for editors only: after a reload the reader sees the threads, no form, no button.
        assert.equal((await client.patch(`/ponds/${pond.id}`, { settings: { commentPolicy: 'editors' } })).status, 200);
        await reader.reload();
        await waitForIslands(reader);
        await editorContent(reader).waitFor();
        await openCommentsTab(readerSession, shape);
        await readerPanel.getByText('Blue it is, dark blue.').waitFor();
        await readerPanel.getByText(t('comments.readOnly')).waitFor();
        assert.equal(await readerPanel.locator('form, textarea').count(), 0);
        assert.equal(await readerPanel.getByRole('button', { name: t('comments.reply'), exact: true }).count(), 0);
        assert.equal(await readerPanel.getByRole('button', { name: t('comments.resolve'), exact: true }).count(), 0);
        assert.equal(await readerToolbar.count(), 0, 'no toolbar for a reader who may not comment');
        assert.equal((await threadsOf(other.client, target.id)).canComment, false);
        await readerSession.check('reader-no-form');

        // The empty reply's refusal is the only failed request.
        const unexpected = (seen: string[]) => seen.filter((problem) => !problem.includes('status of 400 (Bad Request)'));
        assert.equal(problems.length - unexpected(problems).length, 2, 'the empty reply and the same request sent by the test');
        assert.deepEqual(unexpected(problems), []);
        assert.deepEqual(readerSession.problems, []);
      } finally {
        await context.close();
        await readerSession.context.close();
      }
    });
  }
});
