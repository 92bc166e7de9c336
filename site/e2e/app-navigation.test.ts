/**
 * The pond's navigation in Chromium (issue 35). The sidebar's rows (pond screens, favorites,
 * tree) each show an icon and their text, without an underline, the screen or page shown marked
 * `aria-current="page"` and set apart; "Missing pages" leads to the phantom list. A page's ⋯
 * menu (bits-ui) opens from the keyboard, the arrows walk it, Escape closes it and gives focus
 * back to its button; for the last row at the bottom of the window it opens upwards and stays
 * inside the window. Rename in its dialog still renames (through the API) and gives focus back.
 * The user menu shows its icons. Labels: "Inside" starts at the top level again after a label is
 * created, and the sidebar and the label screen count a label's pages alike (its sub-labels'
 * pages included, each page once; the screen counted only the label's own pages before).
 * Desktop in English, phone in German; axe with the menu, the dialog and the user menu open.
 * Screenshots as `nav-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { expectAccessible } from './axe.ts';
import { openSession, SCREEN_SHAPES, type ScreenShape } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

interface Created {
  id: string;
  slug: string;
  title: string;
}

/** Opens the sidebar drawer on a phone (beside the content it is always open). */
async function openDrawer(page: Page, shape: ScreenShape): Promise<void> {
  if (!shape.isMobile) return;
  if (await page.locator('details.app-sidebar-drawer').evaluate((element) => (element as HTMLDetailsElement).open)) return;
  await page.locator('summary.app-sidebar-toggle').click();
}

/** What the window shows (a full-page capture would resize the window and move a menu placed for it). */
async function windowShot(page: Page, name: string): Promise<void> {
  const directory = process.env.DT_SCREENSHOT_DIR ?? fileURLToPath(new URL('../../test-output/e2e/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  await page.screenshot({ path: path.join(directory, `${name}.png`) });
}

const activeText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
const activeRole = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('role') ?? document.activeElement?.tagName.toLowerCase() ?? '');

describe('navigation', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`sidebar rows, the ⋯ menu by keyboard and near the bottom, rename in a dialog, missing pages, user menu (${shape.name})`, { timeout: 150_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance);
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Navigationsteich' : 'Navigation pond' })).body as { id: string; slug: string };
      const pages: Created[] = [];
      // Enough pages that the last row sits at the bottom of the window.
      for (let index = 1; index <= 24; index++) {
        const title = `Page ${String(index).padStart(2, '0')}`;
        const created = (await client.post(`/ponds/${pond.id}/pages`, { title })).body as { id: string; slug: string };
        pages.push({ ...created, title });
      }
      const shown = pages[2]!;
      const last = pages[pages.length - 1]!;
      assert.equal((await client.request('PUT', `/pages/${shown.id}/favorite`)).status < 300, true, 'starred');

      const session = await openSession(browser, shape, 'nav');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      const sidebar = page.getByRole('navigation', { name: t('app.pondNavigation') });
      const row = (id: string) => page.locator(`[data-tree-row="${id}"]`);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/${shown.slug}`);
        await openDrawer(page, shape);
        await row(last.id).waitFor();

        // Every row: an icon and its text, no underline.
        const rows = await sidebar.locator('a.nav-row, a.favorite-link, a.tree-link').evaluateAll((links) =>
          links.map((link) => ({
            text: link.querySelector('.nav-text, .favorite-title, .tree-title')?.textContent?.trim() ?? '',
            // An icon, or for a pond in the switcher its initial (as Outline shows a workspace).
            icon: link.querySelector('svg, .pond-initial[aria-hidden="true"]') !== null,
            decoration: getComputedStyle(link).textDecorationLine,
            height: link.getBoundingClientRect().height,
          })),
        );
        assert.ok(rows.length >= pages.length + 5, `the sidebar's rows (${rows.length})`);
        for (const entry of rows) {
          assert.ok(entry.text !== '' && entry.icon, `"${entry.text}" has an icon and a text`);
          assert.equal(entry.decoration, 'none', `"${entry.text}" is not underlined`);
          assert.ok(entry.height >= 24 && entry.height <= 36, `"${entry.text}" is a compact row (${entry.height}px)`);
        }

        // The page shown is marked in the tree and in the favorites, and set apart from its neighbours.
        const current = sidebar.locator('.page-tree a[aria-current="page"]');
        assert.equal((await current.textContent())?.trim(), shown.title);
        assert.equal((await sidebar.locator('a.favorite-link[aria-current="page"]').textContent())?.trim(), shown.title);
        const look = (id: string) =>
          row(id).evaluate((element) => ({ background: getComputedStyle(element).backgroundColor, weight: Number(getComputedStyle(element.querySelector('a')!).fontWeight) }));
        const marked = await look(shown.id);
        const plain = await look(pages[3]!.id);
        assert.notEqual(marked.background, plain.background, 'the current row has its own background');
        assert.ok(marked.weight > plain.weight, 'and bolder text');
        assert.equal(await sidebar.locator('a.nav-row[aria-current="page"]').count(), 0, 'no pond screen is marked on a page');
        // Light and dark: axe, nothing sideways, and every Tab stop (rows, ⋯ buttons) with a visible focus ring.
        await checkBothSchemes(session, 'sidebar');

        // The ⋯ menu from the keyboard: Enter opens it on its first item, Down walks, Escape closes and gives focus back.
        const menuButton = (id: string, title: string) => row(id).getByRole('button', { name: t('tree.actions', { title }) });
        await menuButton(shown.id, shown.title).focus();
        await page.keyboard.press('Enter');
        const menu = page.getByRole('menu');
        await menu.waitFor();
        // bits-ui moves the focus into the menu once it is open: a frame later on a busy machine.
        await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'menuitem', undefined, { timeout: 5_000 }).catch(() => undefined);
        assert.equal(await activeRole(page), 'menuitem');
        assert.equal(await activeText(page), t('tree.newSubpage'));
        await page.keyboard.press('ArrowDown');
        assert.equal(await activeText(page), t('tree.rename'));
        await page.keyboard.press('ArrowDown');
        assert.equal(await activeText(page), t('tree.copyLink'));
        assert.equal(await menu.getByRole('menuitem').count(), 9, 'every action is an item');
        await session.check('menu-open');
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'detached' });
        assert.ok(await menuButton(shown.id, shown.title).evaluate((element) => element === document.activeElement), 'focus back on the ⋯ button');

        // The last row at the bottom of the window: its menu opens upwards, inside the window.
        await row(last.id).evaluate((element) => element.scrollIntoView({ block: 'end' }));
        const viewport = page.viewportSize()!;
        const trigger = (await menuButton(last.id, last.title).boundingBox())!;
        assert.ok(trigger.y + trigger.height > viewport.height - 80, `the row is at the bottom (${Math.round(trigger.y)} of ${viewport.height})`);
        await menuButton(last.id, last.title).click();
        await menu.waitFor();
        const box = (await menu.boundingBox())!;
        assert.ok(box.y >= 0 && box.y + box.height <= viewport.height, `the menu stays inside the window (${Math.round(box.y)}–${Math.round(box.y + box.height)} of ${viewport.height})`);
        assert.ok(box.y + box.height <= trigger.y + 1, 'the menu opens above its button');
        await expectAccessible(page, `menu flipped (${shape.name})`);
        await windowShot(page, `nav-${shape.name}-menu-flipped`);
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'detached' });

        // Rename in its dialog: renamed through the API; Escape on a second dialog closes it and focus comes back.
        await menuButton(pages[3]!.id, pages[3]!.title).click();
        await page.getByRole('menuitem', { name: t('tree.rename'), exact: true }).click();
        const dialog = page.getByRole('dialog', { name: t('tree.renameDialog', { title: pages[3]!.title }) });
        await dialog.waitFor();
        assert.ok(await dialog.getByLabel(t('tree.renameLabel')).evaluate((element) => element === document.activeElement), 'the title field has focus');
        await dialog.getByLabel(t('tree.renameLabel')).fill('Renamed page');
        await session.check('rename-dialog');
        await dialog.getByRole('button', { name: t('tree.renameSubmit'), exact: true }).click();
        await dialog.waitFor({ state: 'detached' });
        await row(pages[3]!.id).getByText('Renamed page').waitFor();
        assert.equal(((await client.get(`/pages/${pages[3]!.id}`)).body as { title: string }).title, 'Renamed page');
        await menuButton(pages[3]!.id, 'Renamed page').click();
        await page.getByRole('menuitem', { name: t('tree.moveTo') }).click();
        await page.getByRole('dialog', { name: t('tree.moveDialog', { title: 'Renamed page' }) }).waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
        await page.waitForFunction(() => document.activeElement?.classList.contains('tree-menu-button') === true);
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), t('tree.actions', { title: 'Renamed page' }), 'focus back on its ⋯ button');

        // "Missing pages" is a sidebar entry that leads to the phantom list, marked there.
        await sidebar.getByRole('link', { name: t('phantoms.title') }).click();
        await page.waitForURL(`${instance.baseUrl}/${pond.slug}/-/phantoms`);
        await page.getByRole('heading', { level: 1, name: t('phantoms.title') }).waitFor();
        await openDrawer(page, shape);
        assert.equal(await sidebar.getByRole('link', { name: t('phantoms.title') }).getAttribute('aria-current'), 'page');
        assert.equal(await sidebar.locator('a[aria-current="page"]').count(), 1, 'only the screen shown is marked');
        await session.check('phantoms');

        // The user menu: every entry with its icon.
        await page.locator('.user-menu-button').click();
        const items = await page.locator('.dt-menu .dt-menu-item').evaluateAll((elements) => elements.map((element) => ({ text: element.textContent?.trim() ?? '', icon: element.querySelector('svg') !== null })));
        assert.ok(items.length >= 4);
        for (const item of items) assert.ok(item.icon, `"${item.text}" has an icon`);
        await session.check('user-menu');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });

    test(`labels: "Inside" starts at the top again; sidebar and label screen count alike (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance);
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Zählteich' : 'Counting pond' })).body as { id: string; slug: string };
      const projects = (await client.post(`/ponds/${pond.id}/labels`, { name: 'Projects', color: '#1b6480' })).body as { id: string };
      const year = (await client.post(`/ponds/${pond.id}/labels`, { name: '2025', color: '#2e7d32', parentId: projects.id })).body as { id: string };
      const labelled: [string, string[]][] = [
        ['Plan', [projects.id]],
        ['Budget', [projects.id, year.id]],
        ['Report', [year.id]],
        ['Old notes', [projects.id]],
      ];
      const ids: Record<string, string> = {};
      for (const [title, labelIds] of labelled) {
        const created = (await client.post(`/ponds/${pond.id}/pages`, { title })).body as { id: string };
        ids[title] = created.id;
        assert.equal((await client.request('PUT', `/pages/${created.id}/labels`, { body: { labelIds } })).status, 200);
      }
      // A trashed page counts nowhere.
      assert.equal((await client.request('DELETE', `/pages/${ids['Old notes']}`)).status, 200);
      // Projects: Plan, Budget (own) and Report (through 2025): 3 pages; 2025: Budget and Report.
      const listed = ((await client.get(`/ponds/${pond.id}/labels`)).body as { items: { id: string; pageCount: number; subtreePageCount: number }[] }).items;
      assert.deepEqual(
        listed.map((label) => [label.id, label.pageCount, label.subtreePageCount]),
        [
          [projects.id, 2, 3],
          [year.id, 2, 2],
        ],
        'the case where the own count and the count with sub-labels differ',
      );

      const session = await openSession(browser, shape, 'nav-labels');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/labels`);
        const labelRow = (name: string) => page.locator(`[data-label="${name}"] .label-line`);
        assert.match((await labelRow('Projects').innerText()).replace(/\s+/g, ' '), new RegExp(`\\b${t('labels.pages', { count: 3 })}\\b`));
        assert.match((await labelRow('2025').innerText()).replace(/\s+/g, ' '), new RegExp(`\\b${t('labels.pages', { count: 2 })}\\b`));

        await openDrawer(page, shape);
        const sidebar = page.getByRole('navigation', { name: t('app.pondNavigation') });
        await sidebar.getByRole('button', { name: t('sidebar.viewLabels') }).click();
        const count = (id: string) => sidebar.locator(`[data-label-group="${id}"] > .group-row .group-count`).innerText();
        await sidebar.locator(`[data-label-group="${projects.id}"]`).waitFor();
        assert.equal(await count(projects.id), '3', 'the sidebar counts as the label screen');
        assert.equal(await count(year.id), '2');
        await session.check('label-counts');

        // "Inside" a label for one new label, then back at the top level for the next.
        const form = page.locator('.new-label form');
        await form.getByLabel(t('labels.name')).fill('Drafts');
        await form.getByLabel(t('labels.parent')).selectOption({ label: 'Projects' });
        await form.getByRole('button', { name: t('labels.create') }).click();
        await page.getByText(t('labels.created', { name: 'Drafts' })).waitFor();
        assert.equal(await form.getByLabel(t('labels.parent')).inputValue(), '', '"Inside" is reset');
        await form.getByLabel(t('labels.name')).fill('Ideas');
        await form.getByRole('button', { name: t('labels.create') }).click();
        await page.getByText(t('labels.created', { name: 'Ideas' })).waitFor();
        const after = ((await client.get(`/ponds/${pond.id}/labels`)).body as { items: { name: string; parentId: string | null }[] }).items;
        assert.equal(after.find((label) => label.name === 'Drafts')?.parentId, projects.id, 'the first one inside Projects');
        assert.equal(after.find((label) => label.name === 'Ideas')?.parentId, null, 'the next one at the top');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
