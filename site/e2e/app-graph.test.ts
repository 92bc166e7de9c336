/**
 * The link graph and the missing pages in Chromium. Pages written in Markdown with `[[slug]]`
 * links, one to a page nobody has: the graph draws (a WebGL canvas with an accessible name),
 * its list view names the pages and the missing one, a label filter narrows the list, a search
 * focuses a page. The missing-pages list shows the target with its referrer; "Create page"
 * creates it, and the API then has the page, no phantom, and the referrer as its backlink.
 * Readers see no create button; a stranger gets the 404. The graph of 2,000 linked pages (time to
 * draw, frame rates, a click on a search hit) is measured by `npm run bench:graph`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

interface Created {
  id: string;
  slug: string;
}

async function createPage(client: TestClient, pondId: string, title: string, markdown: string, slug?: string): Promise<Created> {
  const response = await client.post(`/ponds/${pondId}/pages`, { title, markdown, ...(slug ? { slug } : {}) });
  assert.equal(response.status, 201, response.text);
  return response.body as Created;
}

describe('link graph and missing pages', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`graph, filter, search; the missing page created in one click (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance);
      const reader = await createVerifiedUser(instance);
      const stranger = await createVerifiedUser(instance);
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Hafenteich' : 'Harbour pond' })).body as { id: string; slug: string };
      const quiet = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Stiller Teich' : 'Quiet pond' })).body as { id: string; slug: string };
      assert.equal((await client.post(`/ponds/${pond.id}/members`, { user: reader.user.username, role: 'reader' })).status, 201);
      await createPage(client, quiet.id, 'Alone', 'No links here.');

      const harbour = await createPage(client, pond.id, 'Harbour', 'Walk over the [[old-bridge]] to the [[lighthouse]], or wait at the [[ferry-dock]].');
      const bridge = await createPage(client, pond.id, 'Old bridge', 'Built in 1820, near the [[harbour]].', 'old-bridge');
      await createPage(client, pond.id, 'Lighthouse', 'Seen from the [[harbour]].');
      const label = (await client.post(`/ponds/${pond.id}/labels`, { name: 'Bridges', color: '#2e7d32' })).body as { id: string };
      await client.request('PUT', `/pages/${bridge.id}/labels`, { body: { labelIds: [label.id] } });
      const graph = (await client.get(`/ponds/${pond.id}/links`)).body as { nodes: unknown[]; edges: unknown[]; phantoms: { targetSlug: string }[] };
      assert.deepEqual([graph.nodes.length, graph.edges.length, graph.phantoms.map((phantom) => phantom.targetSlug)], [3, 4, ['ferry-dock']]);

      // Failure paths: a stranger's screen is the 404, anonymous API calls are refused.
      const strangerView = await fetch(`${instance.baseUrl}/${pond.slug}/-/graph`, { headers: { cookie: `dt_session=${stranger.client.sessionCookie}` } });
      assert.equal(strangerView.status, 404);
      assert.equal((await fetch(`${instance.baseUrl}/api/v1/ponds/${pond.id}/links`)).status, 404);
      assert.equal((await reader.client.post(`/ponds/${pond.id}/pages`, { title: 'Ferry dock', slug: 'ferry-dock' })).status, 403);

      const session = await openSession(browser, shape, 'graph');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${quiet.slug}/-/graph`);
        await page.getByText(t('graph.empty')).waitFor();

        await session.visit(`${instance.baseUrl}/${pond.slug}/-/graph`);
        const canvas = page.getByRole('img', { name: t('graph.canvasName', { pages: 3, links: 5, phantoms: 1 }) });
        await canvas.locator('canvas').first().waitFor();
        await page.locator('.graph-canvas[data-layout="done"]').waitFor();
        await page.getByText(t('graph.listView')).click();
        const rows = page.locator('.graph-table tbody tr');
        assert.deepEqual(await rows.locator('th').allInnerTexts(), ['Harbour', 'Lighthouse', 'Old bridge', t('graph.missing', { slug: 'ferry-dock' })]);
        assert.deepEqual(await rows.first().locator('td').allInnerTexts(), ['3', '2'], 'Harbour: three links out, two in');
        await session.check('graph');

        await page.getByLabel(t('graph.filter')).selectOption({ label: 'Bridges' });
        await page.getByText(t('graph.shown', { shown: 1, total: 4 })).waitFor();
        assert.deepEqual(await rows.locator('th').allInnerTexts(), ['Old bridge']);
        await page.getByLabel(t('graph.filter')).selectOption('');
        await page.getByLabel(t('graph.search')).fill('light');
        await page.getByText(t('graph.found', { title: 'Lighthouse' }), { exact: false }).waitFor();
        await page.getByLabel(t('graph.search')).fill('nowhere');
        await page.getByText(t('graph.notFound', { text: 'nowhere' }), { exact: false }).waitFor();
        await page.getByLabel(t('graph.search')).fill('harb');
        await page.getByText(t('graph.found', { title: 'Harbour' }), { exact: false }).waitFor();
        await page.waitForTimeout(800); // the camera's move to the node
        await session.check('graph-search');

        // The reader sees the missing page but may not create it.
        const readerSession = await openSession(browser, shape, 'phantoms-reader');
        await readerSession.context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
        try {
          await readerSession.visit(`${instance.baseUrl}/${pond.slug}/-/phantoms`);
          await readerSession.page.locator('[data-phantom="ferry-dock"]').waitFor();
          assert.equal(await readerSession.page.getByRole('button', { name: readerSession.t('phantoms.create') }).count(), 0);
          assert.deepEqual(readerSession.problems, []);
        } finally {
          await readerSession.context.close();
        }

        await session.visit(`${instance.baseUrl}/${pond.slug}/-/phantoms`);
        const entry = page.locator('[data-phantom="ferry-dock"]');
        await entry.getByRole('link', { name: 'Harbour' }).waitFor();
        await session.check('phantoms');
        await entry.getByRole('button', { name: t('phantoms.createNamed', { slug: 'Ferry dock' }) }).click();
        await page.getByText(t('phantoms.created', { title: 'Ferry dock' }), { exact: false }).waitFor();
        await page.getByText(t('phantoms.empty')).waitFor();
        await page.getByRole('status').getByRole('link', { name: 'Ferry dock' }).waitFor();
        await session.check('phantoms-created');

        const pages = ((await client.get(`/ponds/${pond.id}/pages`)).body as { items: { id: string; slug: string }[] }).items;
        const ferry = pages.find((candidate) => candidate.slug === 'ferry-dock');
        assert.ok(ferry, 'the page exists');
        assert.deepEqual(((await client.get(`/ponds/${pond.id}/phantom-links`)).body as { items: unknown[] }).items, []);
        const backlinks = ((await client.get(`/pages/${ferry.id}/backlinks`)).body as { items: { page: { id: string } }[] }).items;
        assert.deepEqual(backlinks.map((item) => item.page.id), [harbour.id]);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
