/**
 * Mentions in Chromium (issue 35): a mention in the page shows in the editor as a chip, as on
 * the public page; typing `@` in a comment field lists the pond's members (an accessible
 * listbox the field points into: arrows move, Escape closes, Enter takes one); the comment
 * sent carries the mention, shows it as a chip, and the mentioned member, not the author, has
 * a `mentioned` notification (checked through the API). Axe and screenshots; desktop in
 * English, phone in German.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { editorContent, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

/** On a phone the panels are a closed disclosure below the body. */
async function openCommentsTab(session: BrowserSession, shape: ScreenShape): Promise<void> {
  const { page, t } = session;
  if (shape.isMobile && !(await page.locator('.page-panels details').evaluate((element) => (element as HTMLDetailsElement).open))) await page.locator('.page-panels summary').click();
  await page.getByRole('tab', { name: t('panels.comments') }).click();
}

async function rename(client: TestClient, displayName: string): Promise<void> {
  const response = await client.patch('/users/me', { displayName });
  assert.equal(response.status, 200, response.text);
}

async function mentionsOf(client: TestClient, pageId: string): Promise<any[]> {
  const response = await client.get('/notifications');
  assert.equal(response.status, 200, response.text);
  return response.body.items.filter((item: { type: string; pageId: string }) => item.type === 'mentioned' && item.pageId === pageId);
}

/** Whether an element has a background of its own (the chip), not a transparent one. */
const hasBackground = (locator: Locator) => locator.evaluate((element) => getComputedStyle(element).backgroundColor !== 'rgba(0, 0, 0, 0)');

/** Selects `text` in the editor through the DOM selection, which the editor follows. */
async function selectInEditor(page: Page, text: string): Promise<void> {
  await editorContent(page).evaluate((element, wanted) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const index = node.textContent!.indexOf(wanted);
      if (index < 0) continue;
      (element as HTMLElement).focus();
      const range = document.createRange();
      range.setStart(node, index);
      range.setEnd(node, index + wanted.length);
      window.getSelection()!.removeAllRanges();
      window.getSelection()!.addRange(range);
      return;
    }
    throw new Error(`"${wanted}" is not in the editor`);
  }, text);
  await page.waitForTimeout(100);
}

async function activeOptionText(page: Page, field: Locator): Promise<string | null> {
  const id = await field.getAttribute('aria-activedescendant');
  return id ? page.locator(`[id="${id}"]`).textContent() : null;
}

describe('mentions', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`a mention chip in the editor; @ in a comment suggests members and notifies the chosen one (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance);
      const vera = await createVerifiedUser(instance);
      await rename(owner.client, 'Tom Owner');
      await rename(vera.client, 'Vera Lindqvist');
      const { client } = owner;
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Erwähnungsteich' : 'Mention pond' })).body as { id: string; slug: string };
      assert.equal((await client.post(`/ponds/${pond.id}/members`, { user: vera.user.username, role: 'editor' })).status, 201);
      const target = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Inlet', markdown: `Ask [@Vera Lindqvist](dt-mention:${vera.user.id}) about the inlet.` })).body as { id: string; slug: string };

      const session = await openSession(browser, shape, 'mentions');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        // The page's mention is a chip in the editor.
        await openEditor(session, `${instance.baseUrl}/${pond.slug}/${target.slug}`);
        const chip = editorContent(page).locator('span[data-mention]');
        await chip.waitFor();
        assert.equal(await chip.textContent(), '@Vera Lindqvist');
        assert.ok(await hasBackground(chip), 'the editor shows the mention as a chip');
        assert.equal(await chip.evaluate((element) => getComputedStyle(element).whiteSpace), 'nowrap');
        await chip.scrollIntoViewIfNeeded();
        await session.check('editor-chip');

        // The editor's form for a comment on a passage lists them too; Escape closes the list first, then the form.
        await selectInEditor(page, 'about the inlet');
        if (shape.isMobile) await page.getByRole('toolbar', { name: t('editor.toolbar') }).getByRole('button', { name: t('editor.comment') }).click();
        else await page.keyboard.press('Control+Alt+M');
        const passageForm = page.locator('.new-comment');
        const passageField = passageForm.getByLabel(t('comments.newLabel'));
        await passageField.pressSequentially('@vera');
        await passageForm.getByRole('listbox', { name: t('comments.mentionList') }).getByRole('option', { name: /Vera Lindqvist/ }).waitFor();
        await page.keyboard.press('Escape');
        await passageForm.getByRole('listbox').waitFor({ state: 'detached' });
        assert.equal(await passageForm.count(), 1, 'the first Escape closes only the list');
        await page.keyboard.press('Escape');
        await passageForm.waitFor({ state: 'detached' });

        // A comment on the whole page: @ lists the members, the field points at the current one.
        await openCommentsTab(session, shape);
        const panel = page.locator('#page-panel-comments');
        await panel.getByRole('button', { name: t('comments.onPageNew') }).click();
        const field = panel.getByLabel(t('comments.pageLabel'));
        await field.pressSequentially('Could you check this, @');
        const list = panel.getByRole('listbox', { name: t('comments.mentionList') });
        await list.getByRole('option', { name: /Vera Lindqvist/ }).waitFor();
        assert.deepEqual(await list.getByRole('option').allTextContents(), ['Tom Owner @' + owner.user.username, 'Vera Lindqvist @' + vera.user.username]);
        assert.equal(await field.getAttribute('aria-controls'), await list.getAttribute('id'));
        assert.equal(await activeOptionText(page, field), 'Tom Owner @' + owner.user.username);
        await page.keyboard.press('ArrowDown');
        assert.equal(await activeOptionText(page, field), 'Vera Lindqvist @' + vera.user.username, 'ArrowDown moves to the next member');
        await page.keyboard.press('ArrowDown');
        assert.equal(await activeOptionText(page, field), 'Tom Owner @' + owner.user.username, 'and wraps round');

        // Escape closes the list, not the form; a new @ opens it again, narrowed as one types.
        await page.keyboard.press('Escape');
        await list.waitFor({ state: 'detached' });
        assert.equal(await field.getAttribute('aria-activedescendant'), null);
        await field.waitFor();
        await field.pressSequentially(' or @lin');
        await list.waitFor();
        assert.deepEqual(await list.getByRole('option').allTextContents(), ['Vera Lindqvist @' + vera.user.username]);
        await session.check('comment-suggestion');
        await page.keyboard.press('Enter');
        await list.waitFor({ state: 'detached' });
        assert.equal(await field.inputValue(), 'Could you check this, @ or @Vera Lindqvist ');
        await field.pressSequentially('please?');
        await panel.getByRole('button', { name: t('comments.submit'), exact: true }).click();

        // Stored as a mention, shown as a chip, delivered to Vera only.
        const thread = panel.locator('.comment-thread', { hasText: 'please?' });
        const commentChip = thread.locator('.comment-body .dt-mention');
        await commentChip.waitFor();
        assert.equal(await commentChip.textContent(), '@Vera Lindqvist');
        assert.ok(await hasBackground(commentChip), 'the comment shows the mention as a chip');
        const listed = (await client.get(`/pages/${target.id}/comments?status=all`)).body as { items: { id: string; body: string }[] };
        const stored = listed.items.find((item) => item.body.endsWith('please?'));
        assert.equal(stored?.body, `Could you check this, @ or [@Vera Lindqvist](dt-mention:${vera.user.id}) please?`);
        const delivered = await mentionsOf(vera.client, target.id);
        assert.equal(delivered.length, 1, 'the mentioned member has one mentioned notification');
        assert.equal(delivered[0].payload.commentId, stored!.id);
        assert.deepEqual(delivered[0].payload.actors.map((actor: { displayName: string }) => actor.displayName), ['Tom Owner']);
        assert.equal((await mentionsOf(client, target.id)).length, 0, 'the author is not notified');
        await thread.scrollIntoViewIfNeeded();
        await session.check('comment-chip');

        // Editing shows the mention as a name again and keeps it a mention.
        const threadById = panel.locator(`[data-thread-id="${stored!.id}"]`);
        await threadById.getByRole('button', { name: t('comments.edit'), exact: true }).click();
        const editField = threadById.getByLabel(t('comments.editLabel'));
        assert.equal(await editField.inputValue(), 'Could you check this, @ or @Vera Lindqvist please?');
        await editField.fill('@Vera Lindqvist please check.');
        await threadById.getByRole('button', { name: t('comments.save'), exact: true }).click();
        await threadById.getByText(t('comments.edited')).waitFor();
        const edited = ((await client.get(`/pages/${target.id}/comments?status=all`)).body as { items: { id: string; body: string }[] }).items.find((item) => item.id === stored!.id);
        assert.equal(edited?.body, `[@Vera Lindqvist](dt-mention:${vera.user.id}) please check.`);
        const afterEdit = await mentionsOf(vera.client, target.id);
        assert.deepEqual(afterEdit.map((item) => item.updatedAt), [delivered[0].updatedAt], 'the edit did not notify again (not even folded into the unread one)');

        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
