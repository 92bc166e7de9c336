/**
 * The pond's Files screen in Chromium: a pond admin sees the files uploaded to two pages with
 * their pages, sizes and uploader, the usage against the pond's quota, and the "Orphan" badge
 * (with why) on an upload no save has used yet; "Only orphans" narrows the list; Delete asks
 * first (the focus on the confirmation, Cancel keeps the file), then says so and the usage
 * shrinks. An editor (no admin) gets the refusal in words and no sidebar link. Screens checked
 * with axe (light and dark, focus rings, width) and screenshots: desktop in English, phone in
 * German.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { storeCollabEdit } from '../../api/testing/collabEdit.ts';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { TINY_PDF, TINY_PNG, uploadFile } from '../../api/testing/uploadFixtures.ts';
import { usageInWords, type PondFileList } from '../../editor/src/files/pondFiles.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

let pool: pg.Pool | undefined;
// Registered before the site's hooks: the pool closes before the instance drops the database.
after(() => pool?.end());
useSiteUnderTest();

const DRAFT = 'Notes from the first walk around the pond.';
const QUOTA_BYTES = 5 * 1024 * 1024;

/** A save of the page whose text links the file: that claims it (docs/files.md). */
async function saveLinking(pageId: string, userId: string, fileId: string, text: string): Promise<void> {
  pool ??= new pg.Pool({ connectionString: instance.services.config.databaseUrl!, max: 2 });
  await storeCollabEdit(pool, instance.services.sequelize, { pageId, markdown: `See [${text}](/api/v1/media/${fileId}).`, authorIds: [userId] });
}

async function uploaded(client: TestClient, pageId: string, name: string, bytes: Uint8Array | string): Promise<{ id: string }> {
  const response = await uploadFile(client, pageId, name, bytes);
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string };
}

describe('the pond files screen', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`usage, pages, orphans, filter, delete after a confirmation; an editor is refused in words (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance, { locale: shape.locale });
      const editor = await createVerifiedUser(instance, { locale: shape.locale });
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Dateiteich' : 'Files pond' })).body as { id: string; slug: string };
      assert.equal((await admin.client.post(`/ponds/${pond.id}/members`, { user: editor.user.username, role: 'editor' })).status, 201);
      const notes = (await admin.client.post(`/ponds/${pond.id}/pages`, { title: 'Field notes' })).body as { id: string; slug: string };
      const minutes = (await admin.client.post(`/ponds/${pond.id}/pages`, { title: 'Meeting minutes' })).body as { id: string; slug: string };
      const lily = await uploaded(admin.client, notes.id, 'water-lily.png', TINY_PNG);
      const agenda = await uploaded(editor.client, minutes.id, 'agenda.pdf', TINY_PDF);
      const draft = await uploaded(admin.client, notes.id, 'draft.txt', DRAFT);
      await saveLinking(notes.id, admin.user.id, lily.id, 'Water lily');
      await saveLinking(minutes.id, editor.user.id, agenda.id, 'Agenda');
      await instance.services.sequelize.query(`INSERT INTO quota_overrides (pond_id, quota, value) VALUES (:pondId, 'storage_bytes', :value)`, { replacements: { pondId: pond.id, value: QUOTA_BYTES } });
      const listed = async () => (await admin.client.get(`/ponds/${pond.id}/files`)).body as PondFileList;
      assert.deepEqual((await listed()).items.map((file) => [file.name, file.orphan]), [['draft.txt', true], ['agenda.pdf', false], ['water-lily.png', false]]);

      const session = await openSession(browser, shape, 'app-pond-files');
      const { page, t, problems, context } = session;
      const usageText = (usedBytes: number, fileCount: number) => usageInWords({ usedBytes, fileCount, limitBytes: QUOTA_BYTES, limitSource: 'pond' }, shape.locale, t);
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/files`);
        await page.getByRole('heading', { level: 1, name: t('pondFiles.title') }).waitFor();
        assert.equal(await page.locator(`a[href="/${pond.slug}/-/files"]`).getAttribute('aria-current'), 'page', 'the sidebar marks the screen');
        const usage = page.locator('#usage-text');
        assert.equal(await usage.textContent(), usageText(TINY_PNG.length + TINY_PDF.length + DRAFT.length, 3));
        assert.equal(await page.getByRole('meter', { name: t('pondFiles.usageMeter') }).getAttribute('value'), String(TINY_PNG.length + TINY_PDF.length + DRAFT.length));
        await page.getByText(t('pondFiles.limitSource.pond')).waitFor();

        const list = page.getByRole('list', { name: t('pondFiles.list') });
        const entry = (fileId: string) => list.locator(`[data-file="${fileId}"]`);
        assert.equal(await list.locator('[data-file]').count(), 3);
        assert.equal(await entry(lily.id).getByRole('link', { name: 'Field notes' }).getAttribute('href'), `/${pond.slug}/${notes.slug}`);
        assert.equal(await entry(agenda.id).getByRole('link', { name: 'Meeting minutes' }).getAttribute('href'), `/${pond.slug}/${minutes.slug}`);
        assert.match((await entry(agenda.id).textContent()) ?? '', new RegExp(editor.credentials.displayName));
        assert.equal(await entry(draft.id).getByRole('link', { name: t('files.download') }).getAttribute('href'), `/api/v1/media/${draft.id}`);
        await entry(draft.id).getByText(t('pondFiles.orphan'), { exact: true }).waitFor();
        await entry(draft.id).getByText(t('pondFiles.orphanUnsaved')).waitFor();
        assert.equal(await list.getByText(t('pondFiles.orphan'), { exact: true }).count(), 1, 'only the unsaved upload is an orphan');
        await checkBothSchemes(session, 'list');

        // The filter is the server's (every orphan of the pond, not only those loaded): checking it reads the list again.
        const filtered = page.waitForResponse((response) => response.url().includes(`/ponds/${pond.id}/files?orphan=true`) && response.status() === 200);
        await page.getByLabel(t('pondFiles.onlyOrphans')).check();
        await filtered;
        await list.locator('[data-file]').nth(1).waitFor({ state: 'detached' });
        assert.deepEqual(await list.locator('[data-file]').evaluateAll((items) => items.map((item) => item.getAttribute('data-file'))), [draft.id]);
        await session.check('only-orphans');
        await page.getByLabel(t('pondFiles.onlyOrphans')).uncheck();
        await list.locator('[data-file]').nth(2).waitFor();
        assert.equal(await list.locator('[data-file]').count(), 3);

        // Delete asks first; the confirmation has the focus, and Cancel keeps the file.
        const agendaEntry = entry(agenda.id);
        const deleteButton = agendaEntry.getByRole('button', { name: `${t('files.delete')} agenda.pdf` });
        const hasFocus = (locator: typeof deleteButton) => locator.evaluate((element) => element === document.activeElement);
        await deleteButton.click();
        await agendaEntry.getByText(t('files.deleteQuestion', { name: 'agenda.pdf' })).waitFor();
        assert.ok(await hasFocus(agendaEntry.getByRole('button', { name: t('files.deleteConfirm') })), 'the confirmation has the focus');
        await session.check('confirm');
        await agendaEntry.getByRole('button', { name: t('files.cancel') }).click();
        assert.ok(await hasFocus(deleteButton), 'Cancel gives the focus back to Delete');
        assert.equal((await listed()).items.length, 3, 'Cancel keeps the file');

        await deleteButton.click();
        await page.keyboard.press('Enter');
        await page.getByText(t('pondFiles.deleted', { name: 'agenda.pdf' })).waitFor();
        await agendaEntry.waitFor({ state: 'detached' });
        const after = usageText(TINY_PNG.length + DRAFT.length, 2);
        await page.waitForFunction((expected) => document.getElementById('usage-text')?.textContent === expected, after);
        const remaining = await listed();
        assert.deepEqual(remaining.items.map((file) => file.name), ['draft.txt', 'water-lily.png']);
        assert.equal(remaining.usage.usedBytes, TINY_PNG.length + DRAFT.length);
        await checkBothSchemes(session, 'deleted');

        // The editor: no link in the sidebar, and the refusal in words at the address.
        await context.clearCookies();
        await context.addCookies([{ name: 'dt_session', value: editor.client.sessionCookie!, url: instance.baseUrl }]);
        const refused = await page.goto(`${instance.baseUrl}/${pond.slug}/-/files`);
        assert.equal(refused?.status(), 403);
        await page.getByText(t('pondFiles.adminsOnly')).waitFor();
        assert.equal(await page.locator('a[href$="/-/files"]').count(), 0, 'no Files link for an editor');
        assert.equal(await page.locator('[data-file]').count(), 0, 'no file listed');
        await checkBothSchemes(session, 'editor-refused');
        // The editor's screen answers 403 on purpose (the browser logs it); nothing else.
        assert.deepEqual(problems.filter((problem) => !problem.includes('status of 403')), []);
      } finally {
        await context.close();
      }
    });
  }
});
