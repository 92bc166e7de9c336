/**
 * A missing page is one click from existing (issue 35). Following a phantom link written
 * `[[giessplan|Gießplan]]`, a writer meets the missing-page screen (HTTP 404) titled
 * "Gießplan", not the slug's "Giessplan"; "Create it" creates the page with that title under
 * the linked address and opens it, and the linking page's link then leads there. A reader gets
 * the explanation and no button; a signed-in stranger and a visitor get the plain 404, which
 * says nothing about the pond. The missing-pages list creates with the link text too. An
 * embedded page without text says so in the app's editor.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, waitForIslands } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

async function createPage(client: TestClient, pondId: string, title: string, markdown: string, slug?: string): Promise<{ id: string; slug: string }> {
  const response = await client.post(`/ponds/${pondId}/pages`, { title, markdown, ...(slug ? { slug } : {}) });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; slug: string };
}

/** The screen answers 404 by design; Chromium logs that for the document itself. */
const DOCUMENT_404 = 'console: Failed to load resource: the server responded with a status of 404 (OK)';
const realProblems = (problems: string[]) => problems.filter((problem) => problem !== DOCUMENT_404);

const asUser = (client: TestClient, path: string) => fetch(`${instance.baseUrl}${path}`, { headers: { cookie: `dt_session=${client.sessionCookie}` } });

describe('the missing-page screen', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`a writer creates a page from its phantom link, a reader learns who can (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const writer = await createVerifiedUser(instance);
      const reader = await createVerifiedUser(instance);
      const stranger = await createVerifiedUser(instance);
      const pond = (await writer.client.post('/ponds', { name: shape.locale === 'de' ? 'Gartenteich' : 'Garden pond' })).body as { id: string; slug: string };
      assert.equal((await writer.client.post(`/ponds/${pond.id}/members`, { user: reader.user.username, role: 'reader' })).status, 201);
      await createPage(writer.client, pond.id, 'Blank', '', 'blank');
      const plan = await createPage(writer.client, pond.id, 'Plan', 'Water the beds by the [[giessplan|Gießplan]], then mend the [[ferry-dock|Fährsteg]].\n\n![[blank]]\n', 'plan');

      // The screen is a 404 for members too; strangers and visitors get the plain 404 without it.
      const forReader = await asUser(reader.client, `/${pond.slug}/giessplan`);
      assert.equal(forReader.status, 404);
      assert.ok((await forReader.text()).includes('data-missing-page="giessplan"'));
      // An address no page could have is a missing page too, without a way to create it.
      const oddAddress = await asUser(writer.client, `/${pond.slug}/${encodeURIComponent('Gießplan')}`);
      assert.equal(oddAddress.status, 404);
      assert.ok((await oddAddress.text()).includes('data-missing-page="gießplan"'));
      for (const response of [await asUser(stranger.client, `/${pond.slug}/giessplan`), await fetch(`${instance.baseUrl}/${pond.slug}/giessplan`)]) {
        assert.equal(response.status, 404);
        const html = await response.text();
        assert.ok(!html.includes('data-missing-page') && !html.includes('Gießplan'), 'nothing of the pond leaks');
      }

      // The reader follows the link: the explanation, no button.
      const readerSession = await openSession(browser, shape, 'missing-page-reader');
      await readerSession.context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        const rt = readerSession.t;
        await readerSession.visit(`${instance.baseUrl}/${pond.slug}/plan`);
        // An embedded page without text says so in the app too.
        await readerSession.page.locator('.page-editor .transclusion-box[data-slug="blank"] .transclusion-empty').filter({ hasText: rt('editor.transclusionEmpty') }).waitFor();
        await readerSession.page.locator('#page-body a[data-slug="giessplan"], .page-editor a[data-slug="giessplan"]').first().click();
        await readerSession.page.waitForURL(`${instance.baseUrl}/${pond.slug}/giessplan`);
        await waitForIslands(readerSession.page);
        await readerSession.page.getByRole('heading', { level: 1, name: 'Gießplan' }).waitFor();
        await readerSession.page.getByText(rt('phantoms.missingLead')).waitFor();
        await readerSession.page.getByText(rt('phantoms.missingReader')).waitFor();
        assert.equal(await readerSession.page.getByRole('button', { name: rt('phantoms.missingCreate') }).count(), 0);
        await readerSession.page.locator('.missing-referrers').getByRole('link', { name: 'Plan' }).waitFor();
        await readerSession.check('screen');
        assert.deepEqual(realProblems(readerSession.problems), []);
      } finally {
        await readerSession.context.close();
      }

      const session = await openSession(browser, shape, 'missing-page-writer');
      const { page, t } = session;
      await session.context.addCookies([{ name: 'dt_session', value: writer.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        // Following the phantom link in the live editor.
        await session.visit(`${instance.baseUrl}/${pond.slug}/plan`);
        await page.locator('.ProseMirror[contenteditable="true"]').waitFor();
        await page.locator('.page-editor a.wikilink-phantom[data-slug="giessplan"]').click();
        await page.waitForURL(`${instance.baseUrl}/${pond.slug}/giessplan`);
        await waitForIslands(page);
        await page.getByRole('heading', { level: 1, name: 'Gießplan' }).waitFor();
        await page.getByText(t('phantoms.missingAddress', { title: 'Gießplan', address: `/${pond.slug}/giessplan` })).waitFor();
        // The sidebar marks where one is: among the missing pages, not on the pond's overview.
        const current = await page.locator(`.app-sidebar a[aria-current="page"]`).evaluateAll((links) => links.map((link) => link.getAttribute('href')));
        assert.deepEqual(current, [`/${pond.slug}/-/phantoms`]);
        await session.check('screen');
        await page.getByRole('button', { name: t('phantoms.missingCreate') }).click();
        // Lands in the new page's editor.
        await page.waitForURL(`${instance.baseUrl}/${pond.slug}/giessplan`);
        await page.locator('#page-title').filter({ hasText: 'Gießplan' }).waitFor();
        await page.locator('.ProseMirror[contenteditable="true"]').waitFor();
        await session.screenshot('created');

        const pages = ((await writer.client.get(`/ponds/${pond.id}/pages`)).body as { items: { id: string; slug: string; title: string }[] }).items;
        const created = pages.find((candidate) => candidate.slug === 'giessplan');
        assert.equal(created?.title, 'Gießplan');
        const backlinks = ((await writer.client.get(`/pages/${created!.id}/backlinks`)).body as { items: { page: { id: string } }[] }).items;
        assert.deepEqual(backlinks.map((item) => item.page.id), [plan.id], 'the linking page’s link resolves to the new page');
        await session.visit(`${instance.baseUrl}/${pond.slug}/plan`);
        await page.locator('.page-editor a.wikilink[data-slug="giessplan"]:not(.wikilink-phantom)').waitFor();

        // The missing-pages list creates with the link text as title too.
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/phantoms`);
        const entry = page.locator('[data-phantom="ferry-dock"]');
        await entry.getByRole('heading', { name: 'Fährsteg' }).waitFor();
        await entry.getByRole('button', { name: t('phantoms.createNamed', { slug: 'Fährsteg' }) }).click();
        await page.getByText(t('phantoms.created', { title: 'Fährsteg' }), { exact: false }).waitFor();
        await page.getByText(t('phantoms.empty')).waitFor();
        const ferry = ((await writer.client.get(`/ponds/${pond.id}/pages`)).body as { items: { slug: string; title: string }[] }).items.find((candidate) => candidate.slug === 'ferry-dock');
        assert.equal(ferry?.title, 'Fährsteg');
        assert.deepEqual(realProblems(session.problems), []);
      } finally {
        await session.context.close();
      }
    });
  }
});
