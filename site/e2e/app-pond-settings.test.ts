/**
 * Pond settings in Chromium: an admin renames the pond, picks a heading font (the sample shows
 * it), lets only editors comment; the API has it. The pond goes to the trash after a
 * confirmation and comes back from the home page. A reader of the same pond sees no write
 * controls and no settings (404). Desktop in English, phone in German; axe on each screen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('pond settings', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`save, sample, trash and restore; a reader sees no write controls (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance);
      const reader = await createVerifiedUser(instance);
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Einstellteich' : 'Settings pond' })).body as { id: string; slug: string };
      await admin.client.post(`/ponds/${pond.id}/pages`, { title: 'Notes' });
      assert.equal((await admin.client.post(`/ponds/${pond.id}/members`, { user: reader.user.username, role: 'reader' })).status, 201);

      const session = await openSession(browser, shape, 'pond-settings');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/settings`);
        await page.getByLabel(t('pondSettings.name')).fill('Renamed pond');
        await page.getByLabel(t('pondSettings.font.heading')).selectOption('source-serif-4');
        const sample = page.locator('.font-slot').filter({ has: page.locator('#font-heading') }).locator('.font-sample');
        await page.waitForFunction((element) => getComputedStyle(element!).fontFamily.includes('Source Serif'), await sample.elementHandle());
        await page.getByLabel(t('pondSettings.commentPolicy.editors')).check();
        await page.getByRole('button', { name: t('pondSettings.submit') }).click();
        await page.getByText(t('pondSettings.saved')).waitFor();
        await session.check('saved');
        const saved = (await admin.client.get(`/ponds/${pond.id}`)).body as { name: string; fonts: { heading: string }; settings: { commentPolicy: string } };
        assert.deepEqual([saved.name, saved.fonts.heading, saved.settings.commentPolicy], ['Renamed pond', 'source-serif-4', 'editors']);

        await page.getByRole('button', { name: t('pondSettings.trash') }).click();
        await page.getByText(t('pondSettings.trashQuestion', { name: 'Renamed pond' })).waitFor();
        await Promise.all([page.waitForURL(`${instance.baseUrl}/`), page.getByRole('button', { name: t('pondSettings.trashConfirm') }).click()]);
        assert.equal(((await admin.client.get(`/ponds/${pond.id}`)).body as { trashedAt: string | null }).trashedAt !== null, true);
        await page.getByRole('heading', { name: t('home.trashedPonds') }).waitFor();
        await session.check('home-trashed');
        await Promise.all([page.waitForURL(`${instance.baseUrl}/${pond.slug}`), page.getByRole('button', { name: t('home.restorePond') }).click()]);
        await page.getByRole('heading', { level: 1, name: 'Renamed pond' }).waitFor();

        // The reader: the tree without actions, no new-page form, no settings.
        await context.clearCookies();
        await context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await page.getByRole('heading', { level: 1, name: 'Renamed pond' }).waitFor();
        assert.equal(await page.locator('.tree-menu-button').count(), 0, 'no page actions');
        assert.equal(await page.getByRole('form', { name: t('app.newPage') }).count(), 0, 'no new-page form');
        assert.equal(await page.locator(`a[href$="/-/settings"], a[href$="/-/trash"]`).count(), 0, 'no admin or trash links');
        await session.check('reader');
        const settings = await page.goto(`${instance.baseUrl}/${pond.slug}/-/settings`);
        assert.equal(settings?.status(), 404);
        assert.deepEqual(problems.filter((problem) => !problem.includes('404')), []);
      } finally {
        await context.close();
      }
    });
  }
});
