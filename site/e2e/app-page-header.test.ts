/**
 * The page header and the sidebar's other parts in Chromium: the star (favorites in the
 * sidebar and on `/`), label chips (choose the set, remove one; none for a reader), the
 * sidebar's switch between the folder tree and the label grouping (remembered across a
 * reload), branches opened or closed as left, rendered so by the server, "Move to…" and renaming with a new address from a page's actions, and `/` with
 * recently changed pages and a new pond. Each step checked through the API. Desktop in
 * English, phone in German; axe on each screen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES, waitForIslands } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('page header, sidebar views, home', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`star, label chips, label grouping, move to, new address, home (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance);
      const reader = await createVerifiedUser(instance);
      const { client } = owner;
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Kopfteich' : 'Header pond' })).body as { id: string; slug: string };
      await client.post(`/ponds/${pond.id}/members`, { user: reader.user.username, role: 'reader' });
      const create = async (title: string, parentId?: string) => ((await client.post(`/ponds/${pond.id}/pages`, { title, ...(parentId ? { parentId } : {}) })).body as { id: string; slug: string });
      const guide = await create('Guide');
      const notes = await create('Notes');
      const bridges = (await client.post(`/ponds/${pond.id}/labels`, { name: 'Bridges', color: '#2e7d32' })).body as { id: string };
      const roads = (await client.post(`/ponds/${pond.id}/labels`, { name: 'Roads', color: '#b45309' })).body as { id: string };
      const pageOf = async (id: string) => (await client.get(`/pages/${id}`)).body as { labelIds: string[]; parentId: string | null; slug: string };
      const favoriteIds = async () => ((await client.get(`/ponds/${pond.id}/favorites`)).body as { items: { id: string }[] }).items.map((item) => item.id);

      const session = await openSession(browser, shape, 'page-header');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      const openDrawer = async () => {
        if (shape.isMobile && !(await page.locator('details.app-sidebar-drawer').evaluate((element) => (element as HTMLDetailsElement).open))) await page.locator('summary.app-sidebar-toggle').click();
      };
      const sidebar = page.locator('.app-sidebar');
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/${guide.slug}`);

        // The star: pressed, in the API's favorites and in the sidebar.
        const star = page.getByRole('button', { name: t('favorites.toggle') });
        assert.equal(await star.getAttribute('aria-pressed'), 'false');
        await star.click();
        await page.locator('[aria-pressed="true"]', { hasText: t('favorites.toggle') }).waitFor();
        assert.deepEqual(await favoriteIds(), [guide.id]);
        await openDrawer();
        await sidebar.locator('.sidebar-favorites a', { hasText: 'Guide' }).waitFor();

        // Labels: choose two, then remove one with its chip's ×.
        await page.getByRole('button', { name: t('pageLabels.edit') }).click();
        await page.getByLabel('Bridges').check();
        await page.getByLabel('Roads').check();
        await session.check('labels-chooser');
        await page.getByRole('button', { name: t('pageLabels.save') }).click();
        await page.getByText(t('pageLabels.saved')).waitFor();
        assert.deepEqual((await pageOf(guide.id)).labelIds, [bridges.id, roads.id].sort());
        await page.getByRole('button', { name: t('pageLabels.remove', { name: 'Roads' }) }).click();
        await page.getByText(t('pageLabels.removed', { name: 'Roads' })).waitFor();
        assert.deepEqual((await pageOf(guide.id)).labelIds, [bridges.id]);
        await session.check('labels-chips');

        // The sidebar by label: Guide under Bridges, Notes without a label; the choice survives a reload.
        await openDrawer();
        await sidebar.getByRole('button', { name: t('sidebar.viewLabels') }).click();
        const bridgesGroup = sidebar.locator(`[data-label-group="${bridges.id}"]`);
        await bridgesGroup.getByRole('link', { name: 'Guide' }).waitFor();
        await sidebar.getByRole('button', { name: t('sidebar.unlabelled') }).waitFor();
        await page.reload();
        await waitForIslands(page);
        await openDrawer();
        assert.equal(await sidebar.getByRole('button', { name: t('sidebar.viewLabels') }).getAttribute('aria-pressed'), 'true', 'remembered, rendered by the server');
        await bridgesGroup.getByRole('link', { name: 'Guide' }).waitFor();
        await session.check('sidebar-labels');
        await sidebar.getByRole('button', { name: t('sidebar.viewTree') }).click();

        // Move to…: Notes into Guide, chosen from the list of places.
        const notesRow = page.locator(`[data-tree-row="${notes.id}"]`);
        await notesRow.getByRole('button', { name: t('tree.actions', { title: 'Notes' }) }).click();
        await page.getByRole('menuitem', { name: t('tree.moveTo') }).click();
        await page.getByLabel(t('tree.moveToLabel', { title: 'Notes' })).selectOption({ label: 'Guide' });
        await session.check('move-to');
        await page.getByRole('button', { name: t('tree.moveToSubmit'), exact: true }).click();
        await page.locator(`li[data-page-id="${guide.id}"] > ul li[data-page-id="${notes.id}"]`).waitFor();
        assert.equal((await pageOf(notes.id)).parentId, guide.id);

        // Away from Guide its branch starts closed; opening it is remembered, and the server renders it
        // open (no jump on load); closed again, it is served closed.
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await openDrawer();
        await page.locator(`li[data-page-id="${guide.id}"]`).waitFor();
        assert.equal(await page.locator(`li[data-page-id="${notes.id}"]`).count(), 0, 'closed by default');
        const served = async () => (await (await context.request.get(page.url())).text()).includes(`data-page-id="${notes.id}"`);
        await page.getByRole('button', { name: t('tree.expand', { title: 'Guide' }) }).click();
        await page.locator(`li[data-page-id="${notes.id}"]`).waitFor();
        assert.equal(await served(), true, 'served with the branch open');
        await page.getByRole('button', { name: t('tree.collapse', { title: 'Guide' }) }).click();
        await page.locator(`li[data-page-id="${notes.id}"]`).waitFor({ state: 'detached' });
        assert.equal(await served(), false, 'served with the branch closed');
        await session.visit(`${instance.baseUrl}/${pond.slug}/${guide.slug}`);
        await openDrawer();

        // Renaming the open page with a new address goes to the new address; a taken one is refused in words.
        const guideRow = page.locator(`[data-tree-row="${guide.id}"]`);
        await guideRow.getByRole('button', { name: t('tree.actions', { title: 'Guide' }) }).click();
        await page.getByRole('menuitem', { name: t('tree.rename'), exact: true }).click();
        await page.getByLabel(t('tree.slugLabel'), { exact: true }).fill(notes.slug);
        await page.locator('.tree-panel').getByRole('button', { name: t('tree.renameSubmit'), exact: true }).click();
        await page.getByRole('dialog').locator('[role="alert"]', { hasText: /\S/ }).waitFor();
        assert.equal((await pageOf(guide.id)).slug, guide.slug, 'a taken address changes nothing');
        await page.getByLabel(t('tree.slugLabel'), { exact: true }).fill('handbook');
        await page.getByLabel(t('tree.renameLabel')).fill('Handbook');
        await page.locator('.tree-panel').getByRole('button', { name: t('tree.renameSubmit'), exact: true }).click();
        await page.waitForURL(`${instance.baseUrl}/${pond.slug}/handbook`);
        await page.getByRole('heading', { level: 1, name: 'Handbook' }).waitFor();
        assert.equal((await pageOf(guide.id)).slug, 'handbook');

        // Home: the favorite and the recent changes with their pond; a new pond opens at once.
        await session.visit(`${instance.baseUrl}/`);
        await page.locator('section[aria-labelledby="favorites-heading"]').getByRole('link', { name: 'Handbook' }).waitFor();
        await page.locator('section[aria-labelledby="recent-heading"]').getByRole('link', { name: 'Notes' }).waitFor();
        await session.check('home');
        const pondForm = page.getByRole('form', { name: t('home.newPond') });
        await pondForm.getByLabel(t('home.newPondName'), { exact: true }).fill(`Second pond ${shape.name}`);
        await pondForm.getByLabel(t('home.newPondSlug'), { exact: true }).fill(pond.slug);
        await pondForm.getByRole('button', { name: t('home.newPondCreate') }).click();
        await pondForm.locator('.field-error, [role="alert"] p').first().waitFor();
        await session.check('new-pond-refused');
        await pondForm.getByLabel(t('home.newPondSlug'), { exact: true }).fill('');
        await pondForm.getByRole('button', { name: t('home.newPondCreate') }).click();
        await page.waitForURL(new RegExp(`/second-pond-${shape.name}$`));
        const mine = ((await client.get('/ponds')).body as { items: { slug: string; role: string }[] }).items;
        assert.ok(mine.some((entry) => entry.slug === `second-pond-${shape.name}` && entry.role === 'pond_admin'), 'created, its admin');

        // Unstar from the page again: gone from the API's favorites.
        await session.visit(`${instance.baseUrl}/${pond.slug}/handbook`);
        await page.getByRole('button', { name: t('favorites.toggle') }).click();
        await page.locator('[aria-pressed="false"]', { hasText: t('favorites.toggle') }).waitFor();
        assert.deepEqual(await favoriteIds(), []);
        // The taken address answers 409 on purpose (the browser logs it); nothing else.
        assert.deepEqual(problems.filter((problem) => !/status of 409/.test(problem)), []);
      } finally {
        await context.close();
      }

      // A reader sees the chips but no way to change them, and no tree actions.
      const readerSession = await openSession(browser, shape, 'page-header-reader');
      await readerSession.context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await readerSession.visit(`${instance.baseUrl}/${pond.slug}/handbook`);
        await readerSession.page.locator('.chips li', { hasText: 'Bridges' }).waitFor();
        assert.equal(await readerSession.page.getByRole('button', { name: t('pageLabels.edit') }).count(), 0);
        assert.equal(await readerSession.page.getByRole('button', { name: t('pageLabels.remove', { name: 'Bridges' }) }).count(), 0);
        assert.equal(await readerSession.page.locator('.tree-menu-button').count(), 0);
        assert.equal((await reader.client.request('PUT', `/pages/${guide.id}/labels`, { body: { labelIds: [] } })).status, 403, 'the API refuses as well');
        await readerSession.check('reader');
      } finally {
        await readerSession.context.close();
      }
    });
  }
});
