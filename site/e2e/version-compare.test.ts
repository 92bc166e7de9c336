/**
 * The history's version titles and comparison in Chromium (issue 35): an unnamed automatic
 * version is titled by its time and contributors (not "Unnamed version"); two versions are
 * compared in a dialog that shows the removed and the added lines, marked by sign, by
 * `<del>` / `<ins>` and in words for screen readers, with the changed words picked out; the
 * two lists refuse the same version twice in words; Escape closes and gives the focus back.
 * Axe and screenshots; desktop in English, phone in German.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import type { Page } from 'playwright-core';
import * as Y from 'yjs';
import { loadYDoc } from '../../api/documents/documentLog.ts';
import { createVersion } from '../../api/documents/versions.ts';
import { storeCollabEdit } from '../../api/testing/collabEdit.ts';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type ScreenShape } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

let pool: pg.Pool | undefined;
// Registered before the site's hooks: the pool closes before the instance drops the database.
after(() => pool?.end());
useSiteUnderTest();

const database = () => (pool ??= new pg.Pool({ connectionString: instance.services.config.databaseUrl!, max: 2 }));

/** The session-close snapshot the collaboration server writes: the current state, its contributors (as its update writer records them, in this order) consumed. */
async function automaticVersion(pageId: string, contributorIds: string[]): Promise<void> {
  for (const [index, userId] of contributorIds.entries()) {
    await database().query(`INSERT INTO page_contributors (page_id, user_id, last_edit_at) VALUES ($1, $2, now() + make_interval(secs => $3))`, [pageId, userId, index]);
  }
  const { ydoc } = await loadYDoc(database(), pageId);
  await createVersion(database(), { pageId, trigger: 'auto', state: Y.encodeStateAsUpdate(ydoc) });
  ydoc.destroy();
}

async function rename(client: TestClient, displayName: string): Promise<void> {
  assert.equal((await client.patch('/users/me', { displayName })).status, 200);
}

async function openHistory(page: Page, shape: ScreenShape, historyTab: string): Promise<void> {
  if (shape.isMobile) await page.locator('.page-panels summary').click();
  await page.getByRole('tab', { name: historyTab }).click();
}

describe('version titles and comparison', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`an automatic version titled by time and contributors; two versions compared (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance);
      const vera = await createVerifiedUser(instance);
      await rename(owner.client, 'Tom Owner');
      await rename(vera.client, 'Vera Lindqvist');
      const { client } = owner;
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Versionsteich' : 'Version pond' })).body as { id: string; slug: string };
      assert.equal((await client.post(`/ponds/${pond.id}/members`, { user: vera.user.username, role: 'editor' })).status, 201);
      const target = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Bridge', markdown: '# Bridge\n\nThe paint is blue.\n\nThe budget is open.' })).body as { id: string; slug: string };
      assert.equal((await client.post(`/pages/${target.id}/versions`, { label: 'First draft' })).status, 201);
      await storeCollabEdit(database(), instance.services.sequelize, { pageId: target.id, markdown: '# Bridge\n\nThe paint is dark green.\n\nThe budget is open.', authorIds: [vera.user.id] });
      await storeCollabEdit(database(), instance.services.sequelize, { pageId: target.id, markdown: '# Bridge\n\nThe paint is dark green.\n\nThe budget is open.\n\nWork starts in May.', authorIds: [owner.user.id] });
      await automaticVersion(target.id, [vera.user.id, owner.user.id]);
      const versions = (await client.get(`/pages/${target.id}/versions`)).body.items as { id: string; trigger: string; label: string | null; contributors: { displayName: string }[] }[];
      assert.deepEqual(versions.map((version) => [version.trigger, version.label, version.contributors.map((person) => person.displayName)]), [['auto', null, ['Vera Lindqvist', 'Tom Owner']], ['MANUAL', 'First draft', []]]);

      const session = await openSession(browser, shape, 'version-compare');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/${target.slug}`);
        await openHistory(page, shape, t('panels.history'));
        const history = page.locator('#page-panel-history');
        const automatic = history.locator(`[data-version="${versions[0]!.id}"]`);
        await automatic.waitFor();
        const title = (await automatic.locator('.version-name').textContent()) ?? '';
        assert.match(title, /^\d{1,2}\.? \S+,? \d{2}:\d{2} · Vera Lindqvist, Tom Owner$/, `an automatic version's title: ${title}`);
        assert.equal(await history.getByText(t('history.unnamed')).count(), 0);
        await automatic.getByText(t('history.triggerAutoShort'), { exact: true }).waitFor();
        await history.getByText(t('history.autoHint')).waitFor();
        await session.check('titles');

        // The two lists refuse one version against itself, in words next to them.
        const compareForm = history.locator('.compare-form');
        await compareForm.getByLabel(t('history.compareFrom')).selectOption(versions[0]!.id);
        await compareForm.getByRole('button', { name: t('history.compareShow') }).click();
        await compareForm.getByText(t('history.compareSameChosen')).waitFor();
        assert.equal(await compareForm.getByLabel(t('history.compareFrom')).getAttribute('aria-invalid'), 'true');

        // An entry's Changes: against the version before it, in a dialog.
        const changes = automatic.getByRole('button', { name: t('history.changesLabel', { title }) });
        await changes.click();
        const dialog = page.getByRole('dialog');
        await dialog.locator('.version-diff').waitFor();
        const heading = (await dialog.getByRole('heading').textContent()) ?? '';
        assert.ok(heading.includes('First draft') && heading.includes('Vera Lindqvist, Tom Owner'), heading);
        assert.equal(await dialog.locator('.version-compare-summary').textContent(), t('history.compareSummary', { added: 3, removed: 1 }));
        const removed = dialog.locator('.diff-removed');
        const added = dialog.locator('.diff-added');
        assert.deepEqual(await removed.locator('del').allTextContents(), [`${t('history.diffRemoved')} The paint is blue.`]);
        assert.deepEqual(await added.locator('ins').allTextContents(), [`${t('history.diffAdded')} The paint is dark green.`, `${t('history.diffAdded')} `, `${t('history.diffAdded')} Work starts in May.`]);
        assert.deepEqual(await removed.locator('.diff-word').allTextContents(), ['blue']);
        assert.deepEqual(await added.first().locator('.diff-word').allTextContents(), ['dark green']);
        assert.deepEqual(await dialog.locator('.diff-sign:not(:empty)').allTextContents(), ['−', '+', '+', '+']);
        assert.ok(await dialog.locator('.diff-same', { hasText: 'The budget is open.' }).count() === 1, 'kept lines give the context');
        await session.check('version-compare');

        // Escape closes it; the focus is back on the button that opened it.
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        assert.equal(await changes.evaluate((button) => button === document.activeElement), true);

        // The lists: the named draft against the automatic version, in either order, older first.
        await compareForm.getByLabel(t('history.compareFrom')).selectOption(versions[0]!.id);
        await compareForm.getByLabel(t('history.compareTo')).selectOption(versions[1]!.id);
        await compareForm.getByRole('button', { name: t('history.compareShow') }).click();
        await page.getByRole('dialog').locator('.version-diff').waitFor();
        assert.deepEqual(await page.getByRole('dialog').locator('.diff-removed del').allTextContents(), [`${t('history.diffRemoved')} The paint is blue.`], 'from the older to the newer');
        await page.getByRole('dialog').getByRole('button', { name: t('history.compareClose') }).click();
        await page.getByRole('dialog').waitFor({ state: 'detached' });
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
