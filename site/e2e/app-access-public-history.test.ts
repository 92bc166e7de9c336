/**
 * Publishing publishes the history: visitors read a public page's earlier versions
 * (`GET /versions/:id`) and follow it in the feed, text removed before publishing included.
 * The access screen says so before a public rule is added (next to the choice of the public,
 * gone again for a deny), and the explainer says so when the public may read. Checked against
 * the real thing: after the rule is added, an anonymous caller reads the removed text.
 * Desktop in English, phone in German; axe and a screenshot at each warning.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { storeCollabEdit } from '../../api/testing/collabEdit.ts';
import { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('making a page public says that its history goes public too', () => {
  let pool: pg.Pool;
  before(() => {
    pool = new pg.Pool({ connectionString: instance.services.config.databaseUrl!, max: 2 });
  });
  after(() => pool?.end());

  for (const shape of SCREEN_SHAPES) {
    test(`the warning beside the public choice and in the explainer (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance);
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Ausschreibungsteich' : 'Tender pond' })).body as { id: string; slug: string };
      const tender = (await admin.client.post(`/ponds/${pond.id}/pages`, { title: 'Tender', markdown: 'Our bid: 4711 euros.' })).body as { id: string };
      const draft = await admin.client.post(`/pages/${tender.id}/versions`, { label: 'draft' });
      assert.equal(draft.status, 201, draft.text);
      // The figure is taken out before the page is published; the version keeps it.
      await storeCollabEdit(pool, instance.services.sequelize, { pageId: tender.id, markdown: 'Our bid: to be announced.', authorIds: [admin.user.id] });
      const anonymous = new TestClient(instance.baseUrl);
      assert.equal((await anonymous.get(`/versions/${draft.body.id}`)).status, 404, 'private before the rule');

      const session = await openSession(browser, shape, 'access-public-history');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/access`);
        const form = page.locator('.new-rule form');
        const who = form.getByLabel(t('access.subject'), { exact: true });
        const warning = form.locator('.public-history');
        assert.equal(await warning.count(), 0, 'no warning for all signed-in users');

        // By keyboard: the next choice after "all signed-in users" is the public.
        await who.focus();
        await page.keyboard.press('ArrowDown');
        assert.equal(await who.inputValue(), 'public');
        await warning.waitFor();
        assert.equal((await warning.textContent())?.trim(), t('access.publicHistory'));
        // Screen readers hear it with the choice: the select is described by it.
        assert.equal(await who.getAttribute('aria-describedby'), await warning.getAttribute('id'));

        // A deny publishes nothing, so it says nothing; allowing again brings the warning back.
        await form.getByLabel(t('access.effectChoice.deny')).check();
        await warning.waitFor({ state: 'detached' });
        assert.equal(await who.getAttribute('aria-describedby'), null);
        await form.getByLabel(t('access.effectChoice.allow')).check();
        await warning.waitFor();

        await form.getByLabel(t('access.where')).selectOption('page');
        await form.getByLabel(t('access.page'), { exact: true }).selectOption({ label: 'Tender' });
        await warning.scrollIntoViewIfNeeded();
        await session.check('form-warning');

        await form.getByRole('button', { name: t('access.create') }).click();
        await page.getByText(t('access.created')).waitFor();
        // What the warning says is what happens: a visitor reads the figure removed before publishing.
        const earlier = await anonymous.get(`/versions/${draft.body.id}`);
        assert.equal(earlier.status, 200, earlier.text);
        assert.match(earlier.body.markdown, /4711/);

        // The explainer: the public on the page may read, and is told about the history.
        const explainer = page.locator('.explainer');
        const explained = explainer.locator('.public-history');
        await page.locator('#explain-subject').selectOption('public');
        await page.locator('#explain-page').selectOption({ label: 'Tender' });
        await explainer.getByRole('button', { name: t('explain.submit') }).click();
        await page.locator('[data-verdict="read"] strong').filter({ hasText: t('explain.allowed') }).waitFor();
        assert.equal((await explained.textContent())?.trim(), t('explain.publicHistoryPage'));
        await explained.scrollIntoViewIfNeeded();
        await session.check('explainer-warning');

        // The pond as a whole is not public (the rule is the page's): no warning there.
        await page.locator('#explain-page').selectOption('');
        await explainer.getByRole('button', { name: t('explain.submit') }).click();
        await page.locator('[data-verdict="read"] strong').filter({ hasText: t('explain.denied') }).waitFor();
        assert.equal(await explained.count(), 0);

        // Once the whole pond is public, the pond's answer says so for all its pages.
        const pondRule = await admin.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
        assert.equal(pondRule.status, 201, pondRule.text);
        await explainer.getByRole('button', { name: t('explain.submit') }).click();
        await page.locator('[data-verdict="read"] strong').filter({ hasText: t('explain.allowed') }).waitFor();
        assert.equal((await explained.textContent())?.trim(), t('explain.publicHistoryPond'));
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
