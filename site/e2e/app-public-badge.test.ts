/**
 * The "Public" badge in Chromium: a page the public may read shows it in its actions with its
 * public address, which the copy button puts on the clipboard ("Copied"), by keyboard too; a
 * visitor reads that address. A private page shows no badge. The pond's home says "Partly
 * public" while only some pages are, "Public" once the whole pond is, with the pond's address.
 * Desktop in English, phone in German; axe, focus rings, light and dark.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('the Public badge', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`on a public page with its address to copy, not on a private one, on the pond's home (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance);
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Offener Teich' : 'Open pond' })).body as { id: string; slug: string };
      const create = async (title: string) => (await admin.client.post(`/ponds/${pond.id}/pages`, { title })).body as { id: string; slug: string };
      const published = await create(shape.locale === 'de' ? 'Öffnungszeiten' : 'Opening hours');
      const internal = await create(shape.locale === 'de' ? 'Intern' : 'Internal');
      const grant = await admin.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: published.id }, effect: 'allow' });
      assert.equal(grant.status, 201, grant.text);
      const publicUrl = `${instance.baseUrl}/${pond.slug}/${published.slug}`;

      const session = await openSession(browser, shape, 'public-badge');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: instance.baseUrl });
      try {
        await session.visit(publicUrl);
        const actions = page.locator('.page-actions');
        const badge = actions.locator('[data-public="page"]');
        await badge.getByText(t('publicBadge.page'), { exact: true }).waitFor();
        const address = badge.getByLabel(t('publicBadge.url'), { exact: true });
        assert.equal(await address.inputValue(), publicUrl);
        // Copy by keyboard: focus the button, Enter; the button and a status say "Copied".
        await badge.getByRole('button', { name: t('publicBadge.copy') }).focus();
        await page.keyboard.press('Enter');
        await badge.getByRole('button', { name: t('publicBadge.copied') }).waitFor();
        // The announcement is for screen readers (the button shows the word): there, not visible.
        await badge.getByRole('status').filter({ hasText: t('publicBadge.copied') }).waitFor({ state: 'attached' });
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), publicUrl);
        await checkBothSchemes(session, 'page');
        // The address is what a visitor reads.
        const visitor = await fetch(publicUrl, { headers: { accept: 'text/html' } });
        assert.equal(visitor.status, 200);

        await session.visit(`${instance.baseUrl}/${pond.slug}/${internal.slug}`);
        await page.locator('.page-actions').waitFor();
        assert.equal(await page.locator('[data-public]').count(), 0, 'no badge on a private page');
        assert.equal((await fetch(`${instance.baseUrl}/${pond.slug}/${internal.slug}`, { headers: { accept: 'text/html' } })).status, 404);

        // The pond's home: partly public, then public as a whole, with the pond's address.
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        const pondBadge = page.locator('[data-public="pages"]');
        await pondBadge.getByText(t('publicBadge.somePages'), { exact: true }).waitFor();
        assert.equal(await pondBadge.getByLabel(t('publicBadge.url'), { exact: true }).inputValue(), `${instance.baseUrl}/${pond.slug}`);
        await session.check('pond-partly');
        await admin.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
        await session.visit(`${instance.baseUrl}/${pond.slug}`);
        await page.locator('[data-public="pond"]').getByText(t('publicBadge.pond'), { exact: true }).waitFor();
        await page.locator('[data-public="pond"]').getByRole('button', { name: t('publicBadge.copy') }).click();
        await page.locator('[data-public="pond"]').getByRole('button', { name: t('publicBadge.copied') }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${instance.baseUrl}/${pond.slug}`);
        await session.check('pond-public');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
