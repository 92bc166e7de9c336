/**
 * GET /search gives one order: pages of equal rank come by page id, so the same query names the
 * same first hit every time, wherever the rows lie in the table, and a cursor walk with any
 * page size returns exactly the list one big page does — no page twice, none skipped. Also
 * where more pages match than the engine ranks (HEAD_CANDIDATES): the bounded list is walked
 * the same way.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { HEAD_CANDIDATES } from '../search/searchStatements.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { searchPath, type SearchParams } from '../testing/searchRequests.ts';

interface Listing {
  items: { id: string; match: string }[];
  nextCursor: string | null;
}

describe('GET /search order', () => {
  const cast = usePondCast();

  async function search(params: SearchParams): Promise<Listing> {
    const response = await cast.reader.client.get(searchPath(params));
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** Every hit, following the cursor with pages of `limit`. */
  async function walk(params: SearchParams, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let requests = 0; requests < 200; requests += 1) {
      const page: Listing = await search({ ...params, limit, ...(cursor ? { cursor } : {}) });
      if (page.nextCursor !== null) assert.equal(page.items.length, limit, `limit ${limit}: a full page before a cursor`);
      ids.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
      if (cursor === null) return ids;
    }
    assert.fail(`limit ${limit}: the walk does not end`);
  }

  async function createPages(pondId: string, count: number, title: string, markdown?: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const response = await cast.editor.client.post(`/ponds/${pondId}/pages`, { title, ...(markdown ? { markdown } : {}) });
      assert.equal(response.status, 201, response.text);
      ids.push(response.body.id);
    }
    return ids;
  }

  /** Rewrites the rows (same values): each row version moves to the end of the table. */
  async function moveRows(ids: string[]): Promise<void> {
    await cast.instance.services.sequelize.query(`UPDATE pages SET search_vector = search_vector, search_head = search_head WHERE id IN (:ids)`, {
      replacements: { ids },
      type: QueryTypes.UPDATE,
    });
  }

  test('equal ranks come by page id, the same every time and wherever the rows lie; every page size walks the same list', async () => {
    const pond = await cast.seedTeamPond();
    // Same title, same body: the same vectors, so the same rank within each tier.
    const titled = await createPages(pond.id, 30, 'Gleichrang', 'Nur ein Satz.');
    const bodied = await createPages(pond.id, 12, 'Anderes', 'Hier steht Gleichrang im Text.');
    const expected = [...[...titled].sort(), ...[...bodied].sort()];
    const params = { q: 'gleichrang', pondId: pond.id };
    const whole = await search({ ...params, limit: 50 });
    assert.deepEqual(whole.items.map((item) => item.id), expected);
    assert.equal(whole.nextCursor, null);
    for (let run = 0; run < 3; run += 1) assert.deepEqual((await search({ ...params, limit: 1 })).items[0]?.id, expected[0], 'the same first hit every time');

    // Rows rewritten in another order lie elsewhere in the table: the order stays.
    await moveRows([...titled.slice(0, 15)].reverse());
    await moveRows(bodied.filter((_, index) => index % 2 === 0));
    assert.deepEqual((await search({ ...params, limit: 50 })).items.map((item) => item.id), expected, 'after the rows moved');

    for (let limit = 1; limit <= expected.length; limit += 1) assert.deepEqual(await walk(params, limit), expected, `limit ${limit}`);
  });

  test('more matches than the engine ranks: the bounded list has no page twice and every page size walks it alike', async () => {
    const pond = await cast.seedTeamPond();
    const pages = await createPages(pond.id, HEAD_CANDIDATES + 5, 'Vielzahl');
    const params = { q: 'vielzahl', pondId: pond.id };
    const first = await search({ ...params, limit: 50 });
    const rest = await search({ ...params, limit: 50, cursor: first.nextCursor! });
    const list = [...first.items, ...rest.items].map((item) => item.id);
    assert.equal(rest.nextCursor, null);
    assert.equal(new Set(list).size, list.length, 'no page twice');
    assert.ok(list.length > HEAD_CANDIDATES && list.length < pages.length, `the list is bounded (${list.length} of ${pages.length})`);
    assert.deepEqual(list, [...list].sort(), 'equal ranks by page id');
    for (const limit of [1, 2, 3, 7, 13, 25, 50]) assert.deepEqual(await walk(params, limit), list, `limit ${limit}`);
  });
});
