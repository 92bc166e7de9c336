/**
 * The page screen's side panels in Chromium: the outline lists the body's headings (not the
 * new-comment box's) and a click scrolls to one; the backlinks list a linking page with the text around its link; the history
 * names the current state, previews a version, and restores it behind a confirmation (a
 * pre-restore version first, the read view shows the restored text). A member who loses write
 * access meanwhile gets the refusal in words, and readers see the history without its actions.
 * Each step checked through the API; axe with each panel open; desktop in English, phone in
 * German (the panels come below the body there, closed until opened).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { storeCollabEdit } from '../../api/testing/collabEdit.ts';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, waitForIslands, SCREEN_SHAPES, type ScreenShape } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

let pool: pg.Pool | undefined;
// Registered before the site's hooks: the pool closes before the instance drops the database.
after(() => pool?.end());
useSiteUnderTest();

interface VersionEntry {
  id: string;
  trigger: string;
  label: string | null;
  createdBy: { displayName: string } | null;
}

/** An edit as the collaboration server stores it: the update appended to the log, then the derived data saved. */
async function editPage(pageId: string, userId: string, markdown: string): Promise<void> {
  pool ??= new pg.Pool({ connectionString: instance.services.config.databaseUrl!, max: 2 });
  await storeCollabEdit(pool, instance.services.sequelize, { pageId, markdown, authorIds: [userId] });
}

async function versionsOf(client: TestClient, pageId: string): Promise<VersionEntry[]> {
  const response = await client.get(`/pages/${pageId}/versions`);
  assert.equal(response.status, 200, response.text);
  return (response.body as { items: VersionEntry[] }).items;
}

/** On a phone the panels are a closed disclosure below the body; on a desktop they are open beside it. */
async function openPanels(page: Page, shape: ScreenShape, label: string): Promise<void> {
  const summary = page.locator('.page-panels summary');
  if (shape.isMobile) {
    assert.equal(await page.locator('.page-panels details').getAttribute('open'), null, 'closed by default on a phone');
    await summary.click();
  } else {
    assert.equal(await summary.isVisible(), false, 'no disclosure beside the body');
    const panels = await page.locator('.page-panels').boundingBox();
    const body = await page.locator('.page-editor').boundingBox();
    assert.ok(panels && body && panels.x > body.x + body.width, `the panels stand right of the body (${label})`);
  }
}

const LONG_TEXT = Array.from({ length: 12 }, (_, index) => `Paragraph ${index + 1} of the plan, long enough to push the next heading down the screen.`).join('\n\n');

describe('page side panels', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`outline, backlinks, history with name, preview and restore (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const { client, user } = await createVerifiedUser(instance);
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Paneelteich' : 'Panel pond' })).body as { id: string; slug: string };
      const target = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Target', markdown: `# Intro\n\nFirst draft of the plan.\n\n## Details\n\n${LONG_TEXT}\n\n### Deep end\n\nThe deepest part.` })).body as { id: string; slug: string };
      const source = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Source', markdown: `Before anything else, read [[${target.slug}]] for the whole plan.` })).body as { id: string; slug: string };
      assert.ok(source.slug);

      const session = await openSession(browser, shape, 'page-panels');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        const targetUrl = `${instance.baseUrl}/${pond.slug}/${target.slug}`;
        await session.visit(targetUrl);
        await openPanels(page, shape, 'target');

        // Outline: the body's headings, not the page title; a click scrolls to the heading.
        const outline = page.locator('#page-panel-outline');
        await outline.getByRole('link', { name: 'Deep end' }).waitFor();
        assert.deepEqual(await outline.getByRole('link').allTextContents(), ['Intro', 'Details', 'Deep end']);
        await session.check('outline');
        await outline.getByRole('link', { name: 'Deep end' }).click();
        await page.waitForFunction(() => location.hash.startsWith('#h-'));
        const hash = new URL(page.url()).hash;
        const inView = await page.locator(`.page-editor ${hash}:visible`).evaluate((heading) => {
          const box = heading.getBoundingClientRect();
          return box.top >= -1 && box.top < window.innerHeight;
        });
        assert.ok(inView, `${hash} scrolled into view`);

        // The new-comment box under the toolbar has a heading of its own: not one of the page's.
        await page.locator('.page-editor-content').waitFor();
        await page.locator('.page-editor-content p', { hasText: 'First draft' }).evaluate((paragraph) => {
          const range = document.createRange();
          range.selectNodeContents(paragraph);
          const selection = window.getSelection()!;
          selection.removeAllRanges();
          selection.addRange(range);
        });
        await page.waitForTimeout(50);
        await page.getByRole('toolbar', { name: t('editor.toolbar') }).getByRole('button', { name: t('editor.comment') }).click();
        const commentBox = page.locator('.new-comment');
        await commentBox.getByRole('heading', { name: t('comments.newOnPassage') }).waitFor();
        // The outline reads the page again half a second after a change (OutlinePanel.svelte).
        await page.waitForTimeout(900);
        assert.deepEqual(await outline.getByRole('link').allTextContents(), ['Intro', 'Details', 'Deep end'], 'only the body’s headings');
        await commentBox.getByRole('button', { name: t('comments.cancel') }).click();
        await commentBox.waitFor({ state: 'detached' });

        // Backlinks: reached with the arrow key from the outline tab.
        await page.getByRole('tab', { name: t('panels.outline') }).focus();
        await page.keyboard.press('ArrowRight');
        const backlinksTab = page.getByRole('tab', { name: t('panels.backlinks') });
        assert.equal(await backlinksTab.getAttribute('aria-selected'), 'true');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'page-panel-tab-backlinks');
        const backlinks = page.locator('#page-panel-backlinks');
        await backlinks.getByRole('link', { name: 'Source' }).waitFor();
        assert.match((await backlinks.locator('.snippet').textContent()) ?? '', /for the whole plan/);
        const listed = (await client.get(`/pages/${target.id}/backlinks`)).body as { items: { page: { id: string } }[] };
        assert.deepEqual(listed.items.map((item) => item.page.id), [source.id]);
        await session.check('backlinks');

        // History: name the current state.
        await page.getByRole('tab', { name: t('panels.history') }).click();
        const history = page.locator('#page-panel-history');
        await history.getByLabel(t('history.nameField')).fill('First draft');
        await history.getByRole('button', { name: t('history.save') }).click();
        await history.getByText(t('history.savedNamed', { label: 'First draft' })).waitFor();
        let versions = await versionsOf(client, target.id);
        assert.deepEqual(versions.map((version) => [version.trigger, version.label]), [['MANUAL', 'First draft']]);
        const firstDraft = versions[0]!;

        // The page changes (as an editor's typing would), then the named version comes back.
        await editPage(target.id, user.id, '# Intro\n\nSecond draft, everything rewritten.');
        await session.visit(targetUrl);
        await page.locator('.page-editor').getByText('Second draft, everything rewritten.').locator('visible=true').waitFor();
        if (shape.isMobile) await page.locator('.page-panels summary').click();
        await page.getByRole('tab', { name: t('panels.history') }).click();
        const entry = history.locator(`[data-version="${firstDraft.id}"]`);
        await entry.getByText('First draft', { exact: true }).waitFor();
        await entry.getByText(t('history.triggerManual')).waitFor();
        await entry.getByRole('button', { name: t('history.preview') }).click();
        await entry.locator('.version-preview').getByText('First draft of the plan.').waitFor();
        assert.equal(await entry.locator('.version-preview [id]').count(), 0, 'the preview repeats no ids of the body');
        await entry.getByRole('button', { name: t('history.restore') }).click();
        const question = entry.locator('.confirm');
        await question.waitFor();
        assert.match((await question.textContent()) ?? '', new RegExp(t('history.triggerPreRestore')));
        await session.check('history');
        await entry.getByRole('button', { name: t('history.restoreConfirm') }).click();

        // The page reloads with the restored text and says what happened.
        await page.locator('.page-editor').getByText('First draft of the plan.').locator('visible=true').waitFor();
        await waitForIslands(page);
        await history.locator('.alert-success').waitFor();
        assert.match((await history.locator('.alert-success').textContent()) ?? '', new RegExp(t('history.triggerPreRestore')));
        versions = await versionsOf(client, target.id);
        assert.deepEqual(versions.map((version) => version.trigger), ['pre_restore', 'MANUAL']);
        assert.equal(versions[0]!.createdBy?.displayName, (await client.get('/users/me')).body.displayName);
        const read = await client.request('GET', `/read/${pond.slug}/${target.slug}`);
        assert.match(read.text, /First draft of the plan\./);
        assert.doesNotMatch(read.text, /Second draft/);
        await session.check('restored');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });

    test(`a writer turned reader gets the refusal in words; readers see the history only (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance);
      const member = await createVerifiedUser(instance);
      const pond = (await owner.client.post('/ponds', { name: shape.locale === 'de' ? 'Leseteich' : 'Reading pond' })).body as { id: string; slug: string };
      const target = (await owner.client.post(`/ponds/${pond.id}/pages`, { title: 'Minutes', markdown: 'Nothing decided yet.' })).body as { id: string; slug: string };
      assert.equal((await owner.client.post(`/ponds/${pond.id}/members`, { user: member.credentials.username, role: 'editor' })).status, 201);
      assert.equal((await owner.client.post(`/pages/${target.id}/versions`, { label: 'Kick-off' })).status, 201);

      const session = await openSession(browser, shape, 'page-panels-reader');
      const { page, t, context } = session;
      await context.addCookies([{ name: 'dt_session', value: member.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        const url = `${instance.baseUrl}/${pond.slug}/${target.slug}`;
        await session.visit(url);
        if (shape.isMobile) await page.locator('.page-panels summary').click();
        await page.getByRole('tab', { name: t('panels.outline') }).waitFor();
        await page.locator('#page-panel-outline').getByText(t('outline.empty')).waitFor();
        await page.getByRole('tab', { name: t('panels.backlinks') }).click();
        await page.locator('#page-panel-backlinks').getByText(t('backlinks.empty')).waitFor();
        await page.getByRole('tab', { name: t('panels.history') }).click();
        const history = page.locator('#page-panel-history');
        await history.getByText('Kick-off').waitFor();

        // Write access goes while the screen is open: the restore is refused, in words.
        assert.equal((await owner.client.patch(`/ponds/${pond.id}/members/${member.user.id}`, { role: 'reader' })).status, 200);
        await history.getByRole('button', { name: t('history.restore') }).click();
        await history.getByRole('button', { name: t('history.restoreConfirm') }).click();
        const refusal = history.locator('[role="alert"] .field-error');
        await refusal.waitFor();
        assert.ok(((await refusal.textContent()) ?? '').trim().length > 10, 'the API says why');
        assert.deepEqual((await versionsOf(owner.client, target.id)).map((version) => version.trigger), ['MANUAL'], 'nothing restored');
        assert.equal((await member.client.post(`/pages/${target.id}/versions`, { label: 'Mine' })).status, 403);

        // As a reader: the history without naming or restoring.
        await session.visit(url);
        if (shape.isMobile) await page.locator('.page-panels summary').click();
        await page.getByRole('tab', { name: t('panels.history') }).click();
        await history.getByText('Kick-off').waitFor();
        await history.getByText(t('history.readOnly')).waitFor();
        assert.equal(await history.getByRole('button', { name: t('history.restore') }).count(), 0);
        assert.equal(await history.locator('form').count(), 0);
        await session.check('history-reader');
      } finally {
        await context.close();
      }
    });
  }
});
