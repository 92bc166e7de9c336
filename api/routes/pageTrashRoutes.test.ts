/**
 * Trashing and restoring pages through HTTP (spec, States: Page): promote and subtree trash,
 * the page as seen while trashed, restore to the old place or the nearest live ancestor, and
 * the same tree again whatever order the pages of a trashed subtree are restored in.
 * Purge and the pond's trash list: pagePurgeRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { seedGrant } from '../testing/accessFixtures.ts';
import { buildPageTree, liveOutline, type PageShape } from '../testing/pageTreeFixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

interface PageRow {
  parent_id: string | null;
  position: string;
  trashed_at: Date | null;
  trashed_by: string | null;
  vector_null: boolean;
}

/** Every ordering of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}

describe('page trash and restore', () => {
  const cast = usePondCast();

  const trash = (client: TestClient, pageId: string, mode?: string) => client.request('DELETE', `/pages/${pageId}${mode ? `?mode=${mode}` : ''}`);
  const restore = (client: TestClient, pageId: string) => client.post(`/pages/${pageId}/restore`);
  const build = (pondId: string, shape: PageShape) => buildPageTree(cast.editor.client, pondId, shape);
  const outline = (pondId: string) => liveOutline(cast.instance.services.sequelize, pondId);

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return cast.instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  async function pageRow(pageId: string): Promise<PageRow> {
    const rows = await sql<PageRow>(
      `SELECT parent_id, position, trashed_at, trashed_by, search_vector IS NULL AS vector_null FROM pages WHERE id = :pageId`,
      { pageId },
    );
    assert.ok(rows[0], `page ${pageId} is gone`);
    return rows[0];
  }

  async function trashedCount(pondId: string): Promise<number> {
    const [row] = await sql<{ count: number }>(`SELECT count(*)::int AS count FROM pages WHERE pond_id = :pondId AND trashed_at IS NOT NULL`, { pondId });
    return row!.count;
  }

  describe('DELETE /pages/:id (promote, the default)', () => {
    test('moves the live children, in order, to the parent at the page\'s former place; clears its vector; records who and when', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { S1: {}, X: { c1: {}, c2: { g: {} }, c3: {} }, S2: {} }, T: {} });
      const response = await trash(cast.editor.client, id('X'));
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), ['pageIds', 'trashedAt']);
      assert.deepEqual(response.body.pageIds, [id('X')]);
      assert.equal(await outline(pond.id), 'R[S1 c1 c2[g] c3 S2] T');
      const row = await pageRow(id('X'));
      assert.equal(row.trashed_at?.toISOString(), response.body.trashedAt);
      assert.equal(row.trashed_by, cast.editor.user.id);
      assert.equal(row.parent_id, id('R'), 'a trashed page keeps its parent');
      assert.equal(row.vector_null, true);
      for (const title of ['c1', 'c2', 'g', 'c3']) assert.equal((await pageRow(id(title))).vector_null, false, `${title} stays searchable`);
      // The promoted children sit strictly between the page's previous and next sibling.
      const [s1, c1, c3, s2] = await Promise.all(['S1', 'c1', 'c3', 'S2'].map(async (title) => (await pageRow(id(title))).position));
      assert.ok(s1! < c1! && c3! < s2!, 'between S1 and S2');
    });

    test('a top-level page promotes its children to the top level; trashed children stay with it', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { A: {}, X: { old: {}, k1: {}, k2: {} }, B: {} });
      assert.equal((await trash(cast.editor.client, id('old'))).status, 200);
      assert.equal((await trash(cast.editor.client, id('X'), 'promote')).status, 200);
      assert.equal(await outline(pond.id), 'A k1 k2 B');
      assert.equal((await pageRow(id('old'))).parent_id, id('X'));
      assert.equal((await pageRow(id('X'))).parent_id, null);
    });

    test('promoting a page and its child at the same time: the tree ends the same whichever runs first', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { S1: {}, X: { c1: {}, c2: {} }, S2: {} }, T: {} });
      const responses = await Promise.all([trash(cast.editor.client, id('R')), trash(cast.owner.client, id('X'))]);
      for (const response of responses) assert.equal(response.status, 200, response.text);
      assert.equal(await outline(pond.id), 'S1 c1 c2 S2 T');
      assert.notEqual(responses[0].body.trashedAt, responses[1].body.trashedAt);
    });

    test('the trashed page: editors get page_trashed, readers a plain 404; the page list leaves it out; a second trash is refused', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Kept: {}, Gone: {} });
      const trashed = await trash(cast.editor.client, id('Gone'));
      assert.equal(trashed.status, 200, trashed.text);
      assertError(await cast.editor.client.get(`/pages/${id('Gone')}`), 404, 'page_trashed');
      assertError(await cast.owner.client.get(`/pages/${id('Gone')}`), 404, 'page_trashed');
      assertError(await cast.reader.client.get(`/pages/${id('Gone')}`), 404, 'not_found');
      assertError(await cast.outsider.client.get(`/pages/${id('Gone')}`), 404, 'not_found');
      for (const client of [cast.editor.client, cast.reader.client]) {
        const list = await client.get(`/ponds/${pond.id}/pages`);
        assert.equal(list.status, 200, list.text);
        assert.deepEqual(list.body.items.map((item: { id: string }) => item.id), [id('Kept')]);
      }
      assertError(await trash(cast.editor.client, id('Gone')), 404, 'page_trashed');
      assertError(await trash(cast.editor.client, id('Gone'), 'subtree'), 404, 'page_trashed');
    });

    test('refusals: reader 403, outsider 404, anonymous 401, missing 404, a bad mode 400; nothing changes', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { P: { C: {} } });
      assertError(await trash(cast.reader.client, id('P')), 403, 'forbidden');
      assertError(await trash(cast.outsider.client, id('P')), 404, 'not_found');
      assertError(await trash(cast.anonymous, id('P')), 401, 'unauthenticated');
      assertError(await trash(cast.editor.client, MISSING_UUID), 404, 'not_found');
      assertError(await trash(cast.editor.client, 'not-a-uuid'), 404, 'not_found');
      assertFieldError(await trash(cast.editor.client, id('P'), 'bogus'), 'query.mode');
      assert.equal(await trashedCount(pond.id), 0);
      assert.equal(await outline(pond.id), 'P[C]');
    });
  });

  describe('DELETE /pages/:id?mode=subtree', () => {
    test('trashes the page and every live descendant with one timestamp; parents kept, vectors cleared', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { A: { B: { C: {} }, D: {}, E: {} }, Z: {} } });
      const earlier = await trash(cast.editor.client, id('E'));
      assert.equal(earlier.status, 200);
      const response = await trash(cast.editor.client, id('A'), 'subtree');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual([...response.body.pageIds].sort(), ['A', 'B', 'C', 'D'].map(id).sort());
      assert.equal(await outline(pond.id), 'R[Z]');
      const stamps = await sql<{ trashed_at: Date }>(`SELECT DISTINCT trashed_at FROM pages WHERE id IN (:ids)`, { ids: ['A', 'B', 'C', 'D'].map(id) });
      assert.equal(stamps.length, 1, 'one shared trash timestamp');
      assert.equal(stamps[0]!.trashed_at.toISOString(), response.body.trashedAt);
      const expectedParents: Record<string, string> = { A: 'R', B: 'A', C: 'B', D: 'A', E: 'A' };
      for (const [title, parent] of Object.entries(expectedParents)) {
        const row = await pageRow(id(title));
        assert.equal(row.parent_id, id(parent), `${title} keeps its parent`);
        assert.equal(row.vector_null, true, `${title} has no search vector`);
        assert.equal(row.trashed_by, cast.editor.user.id);
      }
      // A page trashed before keeps its own timestamp.
      assert.equal((await pageRow(id('E'))).trashed_at?.toISOString(), earlier.body.trashedAt);
    });

    test('a descendant the editor may not write (page-level deny) gives 403 and changes nothing', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { A: { B: { C: {} }, D: {} } });
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor', scope: { type: 'page', id: id('C') }, effect: 'deny' });
      const response = await trash(cast.editor.client, id('A'), 'subtree');
      assertError(response, 403, 'forbidden');
      assert.deepEqual(response.body.error.details, { reason: 'descendants_not_writable', count: 1 });
      assert.equal(await trashedCount(pond.id), 0);
      assert.equal(await outline(pond.id), 'A[B[C] D]');
      for (const title of ['A', 'B', 'C', 'D']) assert.equal((await pageRow(id(title))).vector_null, false);
      // The pond admin may write everything and trashes it.
      assert.equal((await trash(cast.owner.client, id('A'), 'subtree')).status, 200);
      assert.equal(await trashedCount(pond.id), 4);
    });
  });

  describe('POST /pages/:id/restore', () => {
    test('a promoted page returns under its live parent at its old position, searchable again', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { S1: {}, X: { c1: {} }, S2: {} } });
      const before = await pageRow(id('X'));
      assert.equal((await trash(cast.editor.client, id('X'))).status, 200);
      const response = await restore(cast.editor.client, id('X'));
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.restoredPageIds, [id('X')]);
      assert.equal(response.body.page.id, id('X'));
      assert.equal(response.body.page.trashedAt, null);
      assert.equal(response.body.page.parentId, id('R'));
      assert.equal(response.body.page.canWrite, true);
      assert.equal(await outline(pond.id), 'R[S1 X c1 S2]');
      const after = await pageRow(id('X'));
      assert.equal(after.position, before.position);
      assert.equal(after.trashed_at, null);
      assert.equal(after.trashed_by, null);
      assert.equal(after.vector_null, false);
      assert.equal((await cast.editor.client.get(`/pages/${id('X')}`)).status, 200);
      assert.equal((await cast.reader.client.get(`/pages/${id('X')}`)).status, 200);
    });

    test('restoring a trashed subtree restores the whole group, not pages trashed on their own', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { A: { B: { C: {} }, D: {}, E: {} }, Z: {} } });
      assert.equal((await trash(cast.editor.client, id('E'))).status, 200);
      assert.equal((await trash(cast.editor.client, id('A'), 'subtree')).status, 200);
      const response = await restore(cast.editor.client, id('A'));
      assert.equal(response.status, 200, response.text);
      assert.deepEqual([...response.body.restoredPageIds].sort(), ['A', 'B', 'C', 'D'].map(id).sort());
      assert.equal(await outline(pond.id), 'R[A[B[C] D] Z]');
      for (const title of ['A', 'B', 'C', 'D']) assert.equal((await pageRow(id(title))).vector_null, false, `${title} is reindexed`);
      assert.ok((await pageRow(id('E'))).trashed_at);
      assert.equal((await restore(cast.editor.client, id('E'))).status, 200);
      assert.equal(await outline(pond.id), 'R[A[B[C] D E] Z]');
    });

    const chain: PageShape = { P: {}, A: { A1: {}, B: { B1: {}, C: { C1: {} }, B2: {} }, A2: {} }, Q: {} };
    const original = 'P A[A1 B[B1 C[C1] B2] A2] Q';

    /** Restores `order` one by one (409 page_not_trashed for a page an earlier restore brought back) and checks the tree. */
    async function restoreInOrder(pondId: string, id: (title: string) => string, order: string[], firstParent: string | null): Promise<void> {
      for (const [step, title] of order.entries()) {
        const live = (await pageRow(id(title))).trashed_at === null;
        const response = await restore(cast.editor.client, id(title));
        if (live) {
          assertError(response, 409, 'page_not_trashed');
          continue;
        }
        assert.equal(response.status, 200, `${order.join(',')}: restoring ${title}: ${response.text}`);
        if (step === 0) assert.equal(response.body.page.parentId, firstParent && id(firstParent), `${title} attaches to the nearest live ancestor`);
        await outline(pondId);
      }
      assert.equal(await outline(pondId), original, `restore order ${order.join(', ')}`);
      assert.equal(await trashedCount(pondId), 0);
      const vectors = await sql<{ count: number }>(`SELECT count(*)::int AS count FROM pages WHERE pond_id = :pondId AND search_vector IS NULL`, { pondId });
      assert.equal(vectors[0]!.count, 0, 'every restored page is searchable');
    }

    for (const order of permutations(['A', 'B', 'C'])) {
      test(`a chain A>B>C trashed as one subtree: restoring ${order.join(', ')} rebuilds the same tree`, async () => {
        const pond = await cast.seedTeamPond();
        const id = await build(pond.id, chain);
        assert.equal((await trash(cast.editor.client, id('A'), 'subtree')).status, 200);
        assert.equal(await outline(pond.id), 'P Q');
        // No live ancestor: the first page restored waits at the top level, right after A's place.
        await restoreInOrder(pond.id, id, order, null);
      });
    }

    for (const order of permutations(['B', 'C', 'C1'])) {
      test(`C trashed first, then B as a subtree: restoring ${order.join(', ')} rebuilds the same tree`, async () => {
        const pond = await cast.seedTeamPond();
        const id = await build(pond.id, chain);
        assert.equal((await trash(cast.editor.client, id('C'), 'subtree')).status, 200);
        assert.equal((await trash(cast.editor.client, id('B'), 'subtree')).status, 200);
        assert.equal(await outline(pond.id), 'P A[A1 A2] Q');
        await restoreInOrder(pond.id, id, order, 'A');
      });
    }

    test('a page whose parent is still trashed waits under the nearest live ancestor, right after the trashed branch', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, chain);
      assert.equal((await trash(cast.editor.client, id('C'), 'subtree')).status, 200);
      assert.equal((await trash(cast.editor.client, id('B'), 'subtree')).status, 200);
      assert.equal((await restore(cast.editor.client, id('C'))).status, 200);
      assert.equal(await outline(pond.id), 'P A[A1 C[C1] A2] Q');
      assert.equal((await restore(cast.editor.client, id('B'))).status, 200);
      assert.equal(await outline(pond.id), original);
    });

    test('a subtree that would be too deep under its parent (moved deeper meanwhile) goes to the nearest ancestor with room', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { G: { H: {} }, A: { B: { C: { D: { E: { F: {} } } } } } });
      assert.equal((await trash(cast.editor.client, id('B'), 'subtree')).status, 200);
      const moved = await cast.editor.client.patch(`/pages/${id('A')}/position`, { parentId: id('H') });
      assert.equal(moved.status, 200, moved.text);
      // Under A (depth 3) the five levels from B down would reach depth 8; under G they end at 6.
      const response = await restore(cast.editor.client, id('B'));
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.page.parentId, id('G'));
      assert.equal(await outline(pond.id), 'G[H[A] B[C[D[E[F]]]]]');
    });

    test('refusals: live 409, reader and outsider 404, anonymous 401, missing 404; a descendant not writable 403', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Live: {}, A: { B: {} } });
      assertError(await restore(cast.editor.client, id('Live')), 409, 'page_not_trashed');
      assert.equal((await trash(cast.editor.client, id('A'), 'subtree')).status, 200);
      assertError(await restore(cast.reader.client, id('A')), 404, 'not_found');
      assertError(await restore(cast.outsider.client, id('A')), 404, 'not_found');
      // Restoring needs a session before anything else is looked at, on any pond.
      assertError(await restore(cast.anonymous, id('A')), 401, 'unauthenticated');
      assertError(await restore(cast.anonymous, MISSING_UUID), 401, 'unauthenticated');
      assertError(await restore(cast.editor.client, MISSING_UUID), 404, 'not_found');
      assertError(await restore(cast.editor.client, 'not-a-uuid'), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor', scope: { type: 'page', id: id('B') }, effect: 'deny' });
      const blocked = await restore(cast.editor.client, id('A'));
      assertError(blocked, 403, 'forbidden');
      assert.deepEqual(blocked.body.error.details, { reason: 'pages_not_writable', count: 1 });
      assert.equal(await trashedCount(pond.id), 2);
      assert.equal(await outline(pond.id), 'Live');
    });

    test('anonymous gets 401 on a publicly readable pond too', async () => {
      const pond = await cast.seedTeamPond();
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
      const id = await build(pond.id, { Open: {} });
      assert.equal((await cast.anonymous.get(`/pages/${id('Open')}`)).status, 200);
      assert.equal((await trash(cast.editor.client, id('Open'))).status, 200);
      assertError(await cast.anonymous.get(`/pages/${id('Open')}`), 404, 'not_found');
      assertError(await restore(cast.anonymous, id('Open')), 401, 'unauthenticated');
    });

    test('in a trashed pond: 409 pond_trashed for its admin, 404 for an editor; the page stays trashed', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Page: {} });
      assert.equal((await trash(cast.editor.client, id('Page'))).status, 200);
      const trashedPond = await cast.owner.client.post(`/ponds/${pond.id}/trash`);
      assert.equal(trashedPond.status, 200, trashedPond.text);
      assertError(await restore(cast.owner.client, id('Page')), 409, 'pond_trashed');
      assertError(await restore(cast.editor.client, id('Page')), 404, 'not_found');
      assert.ok((await pageRow(id('Page'))).trashed_at);
    });
  });
});
