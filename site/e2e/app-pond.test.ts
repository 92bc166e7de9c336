/**
 * The app at a pond's URLs in Chromium, for a signed-in member: the pond home with its page
 * tree, a page created from the form and opened at once (checked through the API too), the
 * page in the tree under its parent, its body as the reader may see it.
 * A visitor at the same URL of a private pond gets the site's 404. On a desktop in English and
 * a phone in German: axe finds nothing, focus rings show, nothing sticks out sideways.
 * Screenshots as `app-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';
import { expectVisibleFocus } from './focusIndicator.ts';
import { expectNoSidewaysScroll } from './screenChecks.ts';

useSiteUnderTest();

describe('the app at a pond\'s URLs', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`pond home, tree, a new page opened at once, its body (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance);
      const pondName = shape.locale === 'de' ? 'Gemeindeteich' : 'Village pond';
      const pond = (await client.post('/ponds', { name: pondName })).body as { id: string; slug: string };
      const guide = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Guide', markdown: '# Guide\n\nWelcome to the **guide**.' })).body as { id: string; slug: string };
      await client.post(`/ponds/${pond.id}/pages`, { title: 'Install', parentId: guide.id, markdown: 'Install it.' });

      // A visitor at the private pond's URLs: the 404 that hides existence.
      for (const path of [`/${pond.slug}`, `/${pond.slug}/${guide.slug}`]) assert.equal((await fetch(`${instance.baseUrl}${path}`)).status, 404, path);

      const session = await openSession(browser, shape, 'app');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await page.getByRole('heading', { level: 1, name: pondName }).waitFor();
        const sidebar = page.getByRole('navigation', { name: t('app.pondNavigation') });
        if (shape.isMobile) {
          assert.equal(await sidebar.getByRole('link', { name: 'Guide' }).isVisible(), false, 'on a phone the drawer starts closed');
          await sidebar.locator('summary.app-sidebar-toggle').click();
        }
        await sidebar.getByRole('link', { name: 'Guide' }).waitFor();
        await expectNoSidewaysScroll(page, 'home');
        await session.check('home');
        await expectVisibleFocus(page, 'home');

        // A new page inside Guide, from the keyboard-reachable form; it opens at once.
        const form = page.getByRole('form', { name: t('app.newPage') });
        await form.getByLabel(t('app.newPageTitle')).fill('Field notes');
        await form.getByLabel(t('app.newPageParent')).selectOption({ label: '\u2003'.repeat(0) + 'Guide' });
        await Promise.all([page.waitForURL(`${instance.baseUrl}/${pond.slug}/field-notes`), form.getByRole('button', { name: t('app.newPageCreate') }).click()]);
        await page.getByRole('heading', { level: 1, name: 'Field notes' }).waitFor();
        const listed = (await client.get(`/ponds/${pond.id}/pages`)).body as { items: { slug: string; parentId: string | null }[] };
        assert.equal(listed.items.find((item) => item.slug === 'field-notes')?.parentId, guide.id, 'created inside Guide');
        if (shape.isMobile) await sidebar.locator('summary.app-sidebar-toggle').click();
        const current = sidebar.locator('a[aria-current="page"]');
        assert.equal((await current.textContent())?.trim(), 'Field notes', 'the open page is marked in the tree');
        assert.equal(await page.locator('.app-tree li[data-page-id="' + guide.id + '"] > ul a[aria-current="page"]').count(), 1, 'under its parent');
        await session.check('new-page');

        // A page with a body: rendered as the reader may see it.
        await session.visit(`${instance.baseUrl}/${pond.slug}/${guide.slug}`);
        await page.locator('.page-editor strong:visible', { hasText: 'guide' }).waitFor();
        await expectNoSidewaysScroll(page, 'page');
        await session.check('page');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  for (const shape of SCREEN_SHAPES) {
    test(`the tree: keyboard moves, drag and drop, trash keeping the children, restore, purge (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance);
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Baumteich' : 'Tree pond' })).body as { id: string; slug: string };
      const ids: string[] = [];
      for (const title of ['Alpha', 'Beta', 'Gamma']) ids.push(((await client.post(`/ponds/${pond.id}/pages`, { title })).body as { id: string }).id);
      const [alpha, beta, gamma] = ids as [string, string, string];
      const listed = async () => ((await client.get(`/ponds/${pond.id}/pages`)).body as { items: { id: string; parentId: string | null; position: string }[] }).items;
      const topOrder = async () => (await listed()).filter((item) => item.parentId === null).sort((a, b) => (a.position < b.position ? -1 : 1)).map((item) => item.id);
      const parentOf = async (id: string) => (await listed()).find((item) => item.id === id)?.parentId;

      const session = await openSession(browser, shape, 'app-tree');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      const row = (id: string) => page.locator(`[data-tree-row="${id}"]`);
      const openDrawer = async () => {
        if (shape.isMobile) await page.locator('summary.app-sidebar-toggle').click();
      };
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await openDrawer();
        await row(gamma).waitFor();

        // From the keyboard: the actions button, then the menu with the arrow keys.
        await row(gamma).getByRole('button', { name: t('tree.actions', { title: 'Gamma' }) }).focus();
        await page.keyboard.press('Enter');
        await page.getByRole('menuitem', { name: t('tree.newSubpage') }).waitFor();
        for (let step = 0; step < 3; step++) await page.keyboard.press('ArrowDown');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), t('tree.moveUp'));
        await page.keyboard.press('Enter');
        await page.getByText(t('tree.moved', { title: 'Gamma' })).waitFor();
        assert.deepEqual(await topOrder(), [alpha, gamma, beta], 'moved up, through the API');
        await session.check('moved-up');

        await row(gamma).getByRole('button', { name: t('tree.actions', { title: 'Gamma' }) }).click();
        await page.getByRole('menuitem', { name: t('tree.moveIn') }).click();
        await page.locator(`li[data-page-id="${alpha}"] > ul li[data-page-id="${gamma}"]`).waitFor();
        assert.equal(await parentOf(gamma), alpha, 'moved into Alpha');

        if (!shape.isMobile) {
          // Dragged into Beta's middle: inside; then onto Alpha's top edge: before it.
          await row(beta).dragTo(row(alpha), { targetPosition: { x: 40, y: 12 } });
          await page.locator(`li[data-page-id="${alpha}"] > ul li[data-page-id="${beta}"]`).waitFor();
          assert.equal(await parentOf(beta), alpha, 'dropped into Alpha');
          await row(beta).dragTo(row(alpha), { targetPosition: { x: 40, y: 1 } });
          await page.waitForFunction(([a, b]) => document.querySelector(`li[data-page-id="${b}"] + li[data-page-id="${a}"]`) !== null, [alpha, beta]);
          assert.deepEqual(await topOrder(), [beta, alpha], 'dropped before Alpha');
        }

        // Trash Alpha, keeping Gamma: Gamma moves up to Alpha's place.
        await row(alpha).getByRole('button', { name: t('tree.actions', { title: 'Alpha' }) }).click();
        await page.getByRole('menuitem', { name: t('tree.trash') }).click();
        await page.getByText(t('tree.trashQuestion', { title: 'Alpha' })).waitFor();
        await session.check('trash-question');
        await page.getByRole('button', { name: t('tree.trashKeepChildren') }).click();
        await page.getByText(t('tree.trashed', { title: 'Alpha' })).waitFor();
        assert.equal(await parentOf(gamma), null, 'Gamma kept, at the top');
        assert.equal(await parentOf(alpha), undefined, 'Alpha in the trash');

        // At its address an editor meets a banner (status 404, as the API's page_trashed) with Restore.
        const alphaSlug = ((await client.get(`/ponds/${pond.id}/trash`)).body as { items: { pages: { id: string; slug: string }[] }[] }).items[0]!.pages[0]!.slug;
        assert.equal((await page.goto(`${instance.baseUrl}/${pond.slug}/${alphaSlug}`))?.status(), 404);
        await page.getByText(t('trash.pageInTrash')).waitFor();
        // Title and banner in one column, the banner below the title (a page without side panels).
        const titleBox = (await page.getByRole('heading', { level: 1, name: 'Alpha' }).boundingBox())!;
        const bannerBox = (await page.locator('.trashed-banner').boundingBox())!;
        assert.equal(Math.round(bannerBox.x), Math.round(titleBox.x), 'the banner starts where the title does');
        assert.ok(bannerBox.y >= titleBox.y + titleBox.height, 'the banner is below the title');
        await session.check('trashed-page');
        await page.getByRole('button', { name: t('trash.restore') }).click();
        // The page reloads as a live page: the banner is gone, the title stays.
        await page.getByText(t('trash.pageInTrash')).waitFor({ state: 'detached' });
        await page.getByRole('heading', { level: 1, name: 'Alpha' }).waitFor();
        assert.ok((await listed()).some((item) => item.id === alpha), 'restored from the banner');
        assert.equal((await client.request('DELETE', `/pages/${alpha}`)).status, 200);

        // The trash: restore, then (trashed again) purge after the confirmation.
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/trash`);
        const entry = page.locator(`[data-trash-page="${alpha}"]`);
        await entry.getByRole('heading', { name: 'Alpha' }).waitFor();
        await session.check('trash');
        await entry.getByRole('button', { name: t('trash.restore') }).click();
        await page.getByText(t('trash.restored', { title: 'Alpha' })).waitFor();
        assert.ok((await listed()).some((item) => item.id === alpha), 'restored');
        assert.equal((await client.request('DELETE', `/pages/${alpha}`)).status, 200);
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/trash`);
        await entry.getByRole('button', { name: t('trash.purge') }).click();
        await entry.getByText(t('trash.purgeQuestion', { title: 'Alpha' })).waitFor();
        await session.check('purge-question');
        await entry.getByRole('button', { name: t('trash.purgeConfirm') }).click();
        await page.getByText(t('trash.purged', { title: 'Alpha' })).waitFor();
        assert.equal((await client.get(`/pages/${alpha}`)).status, 404, 'purged');
        await page.getByText(t('trash.empty')).waitFor();
        // The trashed page's address answers 404 on purpose (the browser logs it); nothing else.
        assert.deepEqual(problems.filter((problem) => !problem.includes('status of 404')), []);
      } finally {
        await context.close();
      }
    });
  }
});
