/**
 * `GET /ponds/:pondSlug/search` of the public REST API: hits of the one pond the caller may
 * read, `**` around the matches in the snippet (never the engine's private-use marks), the
 * parent's slug only where it is readable, cursor pages, and the refusals. The engine itself
 * (ranking, folding, fallback) is tested through the internal route (api/routes/searchRoutes.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pond } from '../../models/index.ts';
import { seedGrant, seedLabel, seedPageLabels } from '../../testing/accessFixtures.ts';
import { assertApiError, seedForeignPond, useRestCast } from '../../testing/restApiCast.ts';
import { Page } from '../../models/index.ts';

describe('public REST search', () => {
  const cast = useRestCast();

  /** A page with Markdown through the internal API, so its search vector is there at once. */
  async function createPage(pond: Pond, title: string, markdown: string, parentId?: string) {
    const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title, markdown, ...(parentId ? { parentId } : {}) });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; slug: string };
  }

  test('hits of the pond with ** around each match, the plain title, parent, url and labels', async () => {
    const pond = await cast.seedApiPond();
    const other = await cast.seedApiPond();
    const parent = await createPage(pond, 'Garden', 'Where the trees grow.\n');
    const page = await createPage(pond, 'Apple trees', 'We planted three apple trees in spring.\n', parent.id);
    await createPage(other, 'Apple elsewhere', 'Apple trees of another pond.\n');
    const label = await seedLabel(pond.id, 'Orchard');
    await seedPageLabels((await Page.findByPk(page.id))!, [label]);

    const api = await cast.client(cast.reader, 'read');
    const response = await api.get(`/ponds/${pond.slug}/search`, { query: { q: 'apple' } });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.nextCursor, null);
    assert.equal(response.body.items.length, 1, 'only the pond named');
    const [hit] = response.body.items;
    assert.equal(hit.id, page.id);
    assert.equal(hit.slug, page.slug);
    assert.equal(hit.title, 'Apple trees');
    assert.equal(hit.snippet, 'We planted three **apple** trees in spring.');
    assert.equal(hit.parent, parent.slug);
    assert.equal(hit.url, `${cast.instance.baseUrl}/${pond.slug}/${page.slug}`);
    assert.deepEqual(hit.labels, [{ id: label.id, name: 'Orchard', color: label.color }]);
    assert.doesNotMatch(response.text, /[\uE000\uE001]/u, "the engine's marks never leave");

    const twoWords = await api.get(`/ponds/${pond.slug}/search`, { query: { q: 'apple trees' } });
    assert.equal(twoWords.body.items.find((item: { id: string }) => item.id === page.id).snippet, 'We planted three **apple** **trees** in spring.');
  });

  test('pages the caller may not read are not found, and an unreadable parent is named as none', async () => {
    const pond = await cast.seedApiPond();
    const hiddenParent = await createPage(pond, 'Secret parent', 'Nothing here.\n');
    const child = await createPage(pond, 'Visible comet', 'A comet passes.\n', hiddenParent.id);
    const hidden = await createPage(pond, 'Hidden comet', 'Another comet.\n');
    for (const pageId of [hiddenParent.id, hidden.id]) {
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: pageId }, effect: 'deny' });
    }
    const reader = await cast.client(cast.reader, 'read');
    const seen = await reader.get(`/ponds/${pond.slug}/search`, { query: { q: 'comet' } });
    assert.deepEqual(
      seen.body.items.map((hit: { id: string; parent: string | null }) => [hit.id, hit.parent]),
      [[child.id, null]],
    );
    const owner = await cast.client(cast.owner, 'read');
    const all = await owner.get(`/ponds/${pond.slug}/search`, { query: { q: 'comet' } });
    assert.deepEqual(all.body.items.map((hit: { id: string }) => hit.id).sort(), [child.id, hidden.id].sort());
    assert.equal(all.body.items.find((hit: { id: string }) => hit.id === child.id).parent, hiddenParent.slug);
  });

  test('cursor pages go through every hit once, in order', async () => {
    const pond = await cast.seedApiPond();
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await createPage(pond, `Nebula ${i}`, `Nebula number ${i}.\n`));
    const api = await cast.client(cast.owner, 'read');
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let round = 0; round < 5; round += 1) {
      const response = await api.get(`/ponds/${pond.slug}/search`, { query: { q: 'nebula', limit: 2, cursor } });
      assert.equal(response.status, 200, response.text);
      assert.ok(response.body.items.length <= 2);
      seen.push(...response.body.items.map((hit: { id: string }) => hit.id));
      cursor = response.body.nextCursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(cursor, undefined, 'the last page has no next cursor');
    assert.deepEqual([...seen].sort(), created.map((page) => page.id).sort());
    assert.equal(new Set(seen).size, 5);
  });

  test('q is required (1 to 500 characters); limit and cursor are checked', async () => {
    const pond = await cast.seedApiPond();
    const api = await cast.client(cast.owner, 'read');
    const path = `/ponds/${pond.slug}/search`;
    for (const query of [{}, { q: '' }, { q: '   ' }, { q: 'x'.repeat(501) }, { q: 'ok', limit: 0 }, { q: 'ok', limit: 51 }, { q: 'ok', cursor: 'garbage' }]) {
      assertApiError(await api.get(path, { query }), 400, 'validation_failed');
    }
    const longest = await api.get(path, { query: { q: 'x'.repeat(500) } });
    assert.equal(longest.status, 200, longest.text);
    assert.deepEqual(longest.body, { items: [], nextCursor: null });
  });

  test('a pond the caller cannot see is a 404; one not switched on is a 403 to its members; a restricted token a 403', async () => {
    const foreign = await seedForeignPond(cast);
    const api = await cast.client(cast.owner, 'read');
    assertApiError(await api.get(`/ponds/${foreign.slug}/search`, { query: { q: 'x' } }), 404, 'not_found');
    assertApiError(await api.get('/ponds/no-such-pond/search', { query: { q: 'x' } }), 404, 'not_found');
    const off = await cast.seedApiPond({ apiEnabled: false });
    assertApiError(await api.get(`/ponds/${off.slug}/search`, { query: { q: 'x' } }), 404, 'not_found');
    const pond = await cast.seedApiPond();
    const restricted = await cast.client(cast.owner, 'read', { pondId: off.id });
    assertApiError(await restricted.get(`/ponds/${pond.slug}/search`, { query: { q: 'x' } }), 404, 'not_found');
  });
});
