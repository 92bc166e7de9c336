/**
 * The feed token on `/settings` in Chromium: create it from the keyboard and get the
 * feed addresses once, copy one (it opens the feed), find them gone after a reload, rotate
 * after a confirmation that Escape cancels (the old address stops working), revoke after a
 * confirmation, and a failing request said in words. On a desktop in English and a phone in
 * German, light and dark: axe finds nothing, every Tab stop shows its focus ring, nothing
 * sticks out sideways. Screenshots as `feeds-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { seedPage, seedSharedPond } from '../../api/testing/accessFixtures.ts';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';
import { checkBothSchemes } from './screenChecks.ts';

useSiteUnderTest();

async function feedStatus(url: string): Promise<number> {
  return (await fetch(url)).status;
}

/** The feed addresses the page shows, by pond name. */
async function shownAddresses(page: Page): Promise<Map<string, string>> {
  const rows = await page.locator('.feed-addresses li').evaluateAll((items) =>
    items.map((item) => [item.querySelector('.feed-pond')?.textContent?.trim() ?? '', item.querySelector('.feed-url')?.textContent?.trim() ?? ''] as [string, string]),
  );
  return new Map(rows);
}

describe('feed token settings', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`create, copy, reload, rotate, revoke, fail (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client, user } = await createVerifiedUser(instance);
      const pond = await seedSharedPond(user.id, shape.locale === 'de' ? 'Gemeinsamer Teich' : 'Shared notes');
      await seedPage(pond.id, 'Members only', { createdBy: user.id });
      const session = await openSession(browser, shape, 'feeds');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: instance.baseUrl });
      try {
        await session.visit(`${instance.baseUrl}/settings`);
        const section = page.getByRole('region', { name: t('feeds.heading') });
        await section.getByText(t('feeds.none')).waitFor();
        await checkBothSchemes(session, 'none');

        // Created from the keyboard: the button is a Tab stop, Enter presses it.
        const create = section.getByRole('button', { name: t('feeds.create') });
        await create.focus();
        assert.equal(await create.evaluate((button) => button.tabIndex), 0);
        await page.keyboard.press('Enter');
        const heading = page.getByRole('heading', { name: t('feeds.urlsHeading') });
        await heading.waitFor();
        assert.ok(await heading.evaluate((element) => element === document.activeElement), 'focus moves to the new addresses');
        await section.getByText(t('feeds.created')).waitFor();
        const first = await shownAddresses(page);
        assert.equal(first.size, 2, 'the personal pond and the shared one');
        const shared = first.get(pond.name)!;
        assert.match(shared, new RegExp(`^${instance.baseUrl}/api/v1/public/${pond.slug}/feed\\.xml\\?token=dt_feed_[A-Za-z0-9_-]{43}$`));
        await checkBothSchemes(session, 'created');

        // Copy: the clipboard holds the address, the button and a status say so, the address opens the feed.
        await section.getByRole('button', { name: `${t('feeds.copy')} – ${pond.name}` }).click();
        await section.getByRole('button', { name: `${t('feeds.copied')} – ${pond.name}` }).waitFor();
        await section.getByRole('status').filter({ hasText: t('feeds.copiedAnnouncement', { pond: pond.name }) }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shared);
        const feed = await fetch(shared);
        assert.equal(feed.status, 200);
        assert.match(await feed.text(), /<title type="text">Members only<\/title>/);

        // Shown once: after a reload only the status is left.
        await session.visit(`${instance.baseUrl}/settings`);
        assert.equal(await page.locator('.feed-addresses').count(), 0);
        assert.equal(await page.getByText('dt_feed_').count(), 0, 'the secret is nowhere on the page');
        await section.getByText(t('feeds.lastUsedAt')).waitFor();
        await checkBothSchemes(session, 'status');

        // Rotate: a confirmation first (Escape cancels and gives focus back), then new addresses.
        const rotate = section.getByRole('button', { name: t('feeds.rotate') });
        await rotate.click();
        const confirmRotate = section.getByRole('button', { name: t('feeds.confirmRotateButton') });
        await confirmRotate.waitFor();
        assert.ok(await confirmRotate.evaluate((element) => element === document.activeElement), 'focus on the confirmation');
        await checkBothSchemes(session, 'confirm-rotate');
        // The focus-ring check tabbed through the page; Escape is pressed where the confirmation left focus.
        await confirmRotate.focus();
        await page.keyboard.press('Escape');
        await confirmRotate.waitFor({ state: 'detached' });
        assert.ok(await rotate.evaluate((element) => element === document.activeElement), 'focus back on Rotate');
        assert.equal(await feedStatus(shared), 200, 'cancelled: the token still works');
        await rotate.click();
        await confirmRotate.click();
        await section.getByText(t('feeds.rotated')).waitFor();
        const rotated = (await shownAddresses(page)).get(pond.name)!;
        assert.notEqual(rotated, shared);
        assert.equal(await feedStatus(shared), 404, 'the old address stopped working');
        assert.equal(await feedStatus(rotated), 200);

        // Revoke after a confirmation: the addresses go, the token stops working.
        await section.getByRole('button', { name: t('feeds.revoke') }).click();
        await section.getByText(t('feeds.confirmRevoke')).waitFor();
        await checkBothSchemes(session, 'confirm-revoke');
        await section.getByRole('button', { name: t('feeds.confirmRevokeButton') }).click();
        await section.getByText(t('feeds.revoked')).waitFor();
        await section.getByText(t('feeds.none')).waitFor();
        assert.equal(await page.locator('.feed-addresses').count(), 0);
        assert.equal(await feedStatus(rotated), 404);
        assert.ok(await create.evaluate((element) => element === document.activeElement), 'focus on Create');
        await checkBothSchemes(session, 'revoked');

        // A request that fails is said in words, and nothing pretends to have worked.
        await page.route('**/api/v1/users/me/feed-token', (route) => route.abort('failed'));
        await create.click();
        await section.getByRole('alert').filter({ hasText: t('error.network') }).waitFor();
        assert.equal(await page.locator('.feed-addresses').count(), 0);
        await checkBothSchemes(session, 'error');
        await page.unroute('**/api/v1/users/me/feed-token');

        assert.deepEqual(problems.filter((problem) => !problem.includes('net::ERR_FAILED')), []);
      } finally {
        await context.close();
      }
    });
  }
});
