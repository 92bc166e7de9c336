/**
 * Watches and notifications in Chromium, two people: the owner (through the API) and a member
 * (in the browser). The member's panel starts empty ("all caught up"); they watch a page with
 * its header's button and the pond from its overview (the page then says it is watched through
 * the pond); a refused watch springs back with the reason. The owner names versions; the
 * member's bell count rises on the 30 s poll (the page's clock moved on, not waited for) and on
 * focus, without moving the header; two comments fold into one entry. In the panel: an entry in words, Mark read (the count
 * falls), an entry followed (marked read, the page opened), Load more past 20, Mark all read.
 * Settings: the watch list, Stop watching, its empty state. Each step checked through the API.
 * Desktop in English, phone in German; axe on each screen. Screenshots `notifications-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import type { Translate } from '../../editor/src/i18n/translator.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

interface Listed {
  items: { id: string; readAt: string | null; payload: { pageTitle: string } }[];
  nextCursor: string | null;
  unreadCount: number;
}

const bellName = (t: Translate, count: number) => (count === 0 ? t('notifications.bell') : count === 1 ? t('notifications.bellUnreadOne') : t('notifications.bellUnread', { count }));

async function unreadOf(client: TestClient): Promise<number> {
  const listed = await client.get<Listed>('/notifications?limit=1');
  assert.equal(listed.status, 200, listed.text);
  return listed.body.unreadCount;
}

async function nameVersion(client: TestClient, pageId: string, label: string): Promise<void> {
  const created = await client.post(`/pages/${pageId}/versions`, { label });
  assert.equal(created.status, 201, created.text);
}

/** The bell's name once the count has arrived (the bell is rendered before it). */
async function bellSays(page: Page, t: Translate, count: number): Promise<void> {
  await page.getByRole('button', { name: bellName(t, count), exact: true }).waitFor();
}

describe('watches and notifications', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`bell, panel, watch buttons, watch list (${shape.name})`, { timeout: 240_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance);
      const member = await createVerifiedUser(instance);
      await owner.client.patch('/users/me', { displayName: 'Anna Adler' });
      const pond = (await owner.client.post('/ponds', { name: shape.locale === 'de' ? 'Teamteich' : 'Team pond' })).body as { id: string; slug: string };
      assert.equal((await owner.client.post(`/ponds/${pond.id}/members`, { user: member.user.username, role: 'editor' })).status, 201);
      const create = async (title: string) => (await owner.client.post(`/ponds/${pond.id}/pages`, { title })).body as { id: string; slug: string };
      const roadmap = await create('Roadmap');
      const budget = await create('Budget');

      const session = await openSession(browser, shape, 'notifications');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: member.client.sessionCookie!, url: instance.baseUrl }]);
      // The page's clock is ours to move, so the 30 s poll is seen without waiting 30 s.
      await page.clock.install();
      const bell = page.locator('.bell-button');
      const panel = page.locator('#notification-panel');
      const openPanel = async () => {
        if ((await bell.getAttribute('aria-expanded')) !== 'true') await bell.click();
        await panel.waitFor();
      };
      try {
        // Nothing yet: the bell without a count, the panel all caught up.
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await bellSays(page, t, 0);
        await openPanel();
        await panel.getByText(t('notifications.allCaughtUp')).waitFor();
        await session.check('panel-empty');
        await page.keyboard.press('Escape');
        await panel.waitFor({ state: 'hidden' });
        assert.equal(await bell.evaluate((element) => element === document.activeElement), true, 'Escape gives focus back to the bell');

        // Watch the page from its header.
        await session.visit(`${instance.baseUrl}/${pond.slug}/${roadmap.slug}`);
        const watchPage = page.getByRole('button', { name: t('watch.page'), exact: true });
        await page.locator('.watch-button:not([disabled])').waitFor();
        assert.equal(await watchPage.getAttribute('aria-pressed'), 'false');
        await watchPage.click();
        await page.locator('.watch-button[aria-pressed="true"]').waitFor();
        await page.getByRole('status').filter({ hasText: t('watch.pageOn') }).waitFor({ state: 'attached' });
        assert.deepEqual((await member.client.get(`/watches/page/${roadmap.id}`)).body, { watching: true, viaPond: false });
        await session.check('page-watching');

        // A refused watch springs back and says why.
        await page.route('**/api/v1/watches/page/**', (route) =>
          route.request().method() === 'DELETE' ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'service_unavailable', message: 'Try later' } }) }) : route.continue(),
        );
        await watchPage.click();
        await page.locator('.watch .field-error', { hasText: 'Try later' }).waitFor();
        assert.equal(await watchPage.getAttribute('aria-pressed'), 'true', 'back to watching');
        await page.unroute('**/api/v1/watches/page/**');
        // The browser reports the refused request itself; that one is expected.
        const refused = problems.findIndex((problem) => problem.includes('status of 503'));
        assert.ok(refused >= 0);
        problems.splice(refused, 1);
        assert.equal((await member.client.get(`/watches/page/${roadmap.id}`)).body.watching, true);

        // Watch the pond from its overview; the other page then says it is watched through the pond.
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        const watchPond = page.getByRole('button', { name: t('watch.pond'), exact: true });
        assert.equal(await watchPond.getAttribute('aria-pressed'), 'false', 'rendered by the server');
        await watchPond.click();
        await page.locator('.watch-button[aria-pressed="true"]').waitFor();
        await page.getByRole('status').filter({ hasText: t('watch.pondOn') }).waitFor({ state: 'attached' });
        assert.deepEqual((await member.client.get(`/watches/pond/${pond.id}`)).body, { watching: true });
        await session.check('pond-watching');
        await session.visit(`${instance.baseUrl}/${pond.slug}/${budget.slug}`);
        await page.getByText(t('watch.viaPond')).waitFor();
        assert.equal(await watchPage.getAttribute('aria-pressed'), 'false', 'the page itself is not watched');

        // The owner names a version of each page: the member's count rises on the next poll, the header stays put.
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await bellSays(page, t, 0);
        const menuBefore = await page.locator('.user-menu-button').boundingBox();
        await nameVersion(owner.client, roadmap.id, 'Q3 plan');
        await nameVersion(owner.client, budget.id, 'Draft');
        assert.equal(await unreadOf(member.client), 2);
        await page.clock.fastForward(31_000);
        await bellSays(page, t, 2);
        assert.equal(await page.locator('.bell-badge').textContent(), '2');
        assert.deepEqual(await page.locator('.user-menu-button').boundingBox(), menuBefore, 'the count moved nothing');

        // The panel: the entries in words; Mark read on one lowers the count.
        await openPanel();
        const roadmapEntry = panel.locator('.entry', { hasText: 'Roadmap' });
        await roadmapEntry.getByText(t('notifications.changed.one', { actors: 'Anna Adler', page: t('notifications.pageTitle', { title: 'Roadmap' }) })).waitFor();
        await roadmapEntry.getByText(t('notifications.version', { label: 'Q3 plan' })).waitFor();
        await session.check('panel-unread');
        const marked = page.waitForResponse((response) => response.url().endsWith('/read') && response.request().method() === 'POST');
        await panel.locator('.entry', { hasText: 'Budget' }).getByRole('button', { name: t('notifications.markRead') }).click();
        await bellSays(page, t, 1);
        assert.equal((await marked).status(), 204);
        assert.equal(await unreadOf(member.client), 1);

        // Following an entry marks it read and opens the page.
        await roadmapEntry.getByRole('link').click();
        await page.waitForURL(`${instance.baseUrl}/${pond.slug}/${roadmap.slug}`);
        assert.equal(await unreadOf(member.client), 0);
        await bellSays(page, t, 0);

        // More than a page of entries: a focus brings the count in, Load more the rest, Mark all read clears them.
        const more = [];
        for (let index = 1; index <= 21; index++) more.push(await create(`Page ${String(index).padStart(2, '0')}`));
        for (const created of more) await nameVersion(owner.client, created.id, 'v1');
        // On the page again: its sidebar now lists 22 pages and scrolls (axe's scrollable-region rule in the checks below).
        await session.visit(`${instance.baseUrl}/${pond.slug}/${roadmap.slug}`);
        await bellSays(page, t, 21);
        await nameVersion(owner.client, roadmap.id, 'Q4 plan');
        for (const body of ['Looks good to me.', 'One more thing: the dates.']) assert.equal((await owner.client.post(`/pages/${roadmap.id}/comments`, { body })).status, 201);
        await page.clock.fastForward(5_000);
        await page.evaluate(() => window.dispatchEvent(new Event('focus')));
        await bellSays(page, t, 23);
        await openPanel();
        // Two comments fold into one entry, newest first, with the latest comment's words.
        const commentEntry = panel.locator('.entry').first();
        await commentEntry.getByText(`${t('notifications.commented.one', { actors: 'Anna Adler', page: t('notifications.pageTitle', { title: 'Roadmap' }) })} ${t('notifications.commentCount', { count: 2 })}`).waitFor();
        await commentEntry.getByText('One more thing: the dates.').waitFor();
        await panel.locator('.entry').nth(19).waitFor();
        assert.equal(await panel.locator('.entry').count(), 20);
        await panel.getByRole('button', { name: t('notifications.loadMore') }).click();
        await panel.locator('.entry').nth(24).waitFor();
        assert.equal(await panel.locator('.entry').count(), 25, '23 unread and the 2 read before');
        const allMarked = page.waitForResponse((response) => response.url().endsWith('/notifications/read-all'));
        await panel.getByRole('button', { name: t('notifications.markAllRead') }).click();
        await bellSays(page, t, 0);
        assert.equal((await allMarked).status(), 204);
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'notification-panel-heading', 'focus stays in the panel when its button goes');
        await panel.getByText(t('notifications.allCaughtUp')).waitFor();
        assert.equal(await panel.locator('.entry-unread').count(), 0);
        assert.equal(await unreadOf(member.client), 0);
        await session.check('panel-all-read');
        await page.keyboard.press('Escape');

        // Settings: what the member watches, and Stop watching until nothing is left.
        await session.visit(`${instance.baseUrl}/settings#watching`);
        const watching = page.locator('#watching');
        await watching.getByRole('link', { name: 'Roadmap' }).waitFor();
        await watching.getByRole('link', { name: shape.locale === 'de' ? 'Teamteich' : 'Team pond' }).waitFor();
        await session.check('settings-watches');
        await watching.getByRole('button', { name: t('watches.unwatchName', { name: 'Roadmap' }) }).click();
        await watching.getByRole('link', { name: 'Roadmap' }).waitFor({ state: 'detached' });
        assert.equal((await member.client.get(`/watches/page/${roadmap.id}`)).body.watching, false);
        const pondName = shape.locale === 'de' ? 'Teamteich' : 'Team pond';
        await watching.getByRole('button', { name: t('watches.unwatchName', { name: pondName }) }).click();
        await watching.getByText(t('watches.empty')).waitFor();
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'watching-heading', 'focus is not lost with the last button');
        assert.deepEqual(((await member.client.get('/users/me/watches')).body as { items: unknown[] }).items, []);
        await session.check('settings-watches-empty');

        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
