/**
 * Favorites through HTTP: starring and unstarring (idempotent), the pond's list restricted to
 * live pages the caller may still read, its keyset pagination, trash and purge, and the
 * 401 / 404 refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import type { Page } from '../models/index.ts';
import { seedGrant, seedPage } from '../testing/accessFixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, PAGE_VIEW_KEYS, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient, TestResponse } from '../testing/testClient.ts';

const FAVORITE_VIEW_KEYS = [...PAGE_VIEW_KEYS, 'favoritedAt'].sort();

describe('favorites', () => {
  const cast = usePondCast();

  const star = (client: TestClient, pageId: string) => client.request('PUT', `/pages/${pageId}/favorite`);
  const unstar = (client: TestClient, pageId: string) => client.request('DELETE', `/pages/${pageId}/favorite`);
  const listOf = (client: TestClient, pondId: string, query = '') => client.get(`/ponds/${pondId}/favorites${query ? `?${query}` : ''}`);

  async function listedIds(client: TestClient, pondId: string): Promise<string[]> {
    const response = await listOf(client, pondId);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.nextCursor, null);
    return response.body.items.map((item: { id: string }) => item.id);
  }

  async function assertStarred(client: TestClient, pageId: string): Promise<void> {
    const response = await star(client, pageId);
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');
  }

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return cast.instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  async function favoriteRows(pageId: string): Promise<{ user_id: string }[]> {
    return sql(`SELECT user_id FROM favorites WHERE page_id = :pageId ORDER BY user_id`, { pageId });
  }

  test('PUT stars a page (204, no body) and GET lists it as the page view plus favoritedAt', async () => {
    const pond = await cast.seedTeamPond();
    const parent = await seedPage(pond.id, 'Parent', { createdBy: cast.owner.user.id });
    const child = await seedPage(pond.id, 'Child', { parentId: parent.id, createdBy: cast.owner.user.id });
    assert.deepEqual((await listOf(cast.editor.client, pond.id)).body, { items: [], nextCursor: null });

    const startedAt = Date.now();
    await assertStarred(cast.editor.client, child.id);
    const response = await listOf(cast.editor.client, pond.id);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.nextCursor, null);
    assert.equal(response.body.items.length, 1);
    const [item] = response.body.items;
    assert.deepEqual(Object.keys(item).sort(), FAVORITE_VIEW_KEYS);
    const detail = await cast.editor.client.get(`/pages/${child.id}`);
    for (const key of PAGE_VIEW_KEYS) assert.deepEqual(item[key], detail.body[key], key);
    assert.equal(item.parentId, parent.id);
    assert.equal(item.trashedAt, null);
    const favoritedAt = Date.parse(item.favoritedAt);
    assert.ok(favoritedAt >= startedAt - 1000 && favoritedAt <= Date.now() + 1000, item.favoritedAt);
    assert.deepEqual(await favoriteRows(child.id), [{ user_id: cast.editor.user.id }]);
  });

  test('PUT twice keeps one favorite and its first timestamp', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Twice');
    await assertStarred(cast.editor.client, page.id);
    const first = (await listOf(cast.editor.client, pond.id)).body.items[0].favoritedAt;
    await assertStarred(cast.editor.client, page.id);
    const listed = (await listOf(cast.editor.client, pond.id)).body.items;
    assert.deepEqual(
      listed.map((item: { id: string; favoritedAt: string }) => [item.id, item.favoritedAt]),
      [[page.id, first]],
    );
    assert.equal((await favoriteRows(page.id)).length, 1);
  });

  test('DELETE unstars (204, no body); DELETE again, or without a star, is 204 as well', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Unstar');
    const kept = await seedPage(pond.id, 'Kept');
    await assertStarred(cast.editor.client, page.id);
    await assertStarred(cast.editor.client, kept.id);
    for (let i = 0; i < 2; i += 1) {
      const response = await unstar(cast.editor.client, page.id);
      assert.equal(response.status, 204, response.text);
      assert.equal(response.text, '');
    }
    assert.deepEqual(await listedIds(cast.editor.client, pond.id), [kept.id]);
    assert.deepEqual(await favoriteRows(page.id), []);
    assert.equal((await unstar(cast.reader.client, page.id)).status, 204);
  });

  test('a reader (read-only member) may star and unstar', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'For readers');
    await assertStarred(cast.reader.client, page.id);
    assert.deepEqual(await listedIds(cast.reader.client, pond.id), [page.id]);
    assert.equal((await unstar(cast.reader.client, page.id)).status, 204);
    assert.deepEqual(await listedIds(cast.reader.client, pond.id), []);
  });

  test('anonymous: 401 where a public grant lets it see the page or pond, else 404', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Private');
    assertError(await star(cast.anonymous, page.id), 404, 'not_found');
    assertError(await unstar(cast.anonymous, page.id), 404, 'not_found');
    assertError(await listOf(cast.anonymous, pond.id), 404, 'not_found');

    const open = await cast.seedTeamPond();
    await seedGrant(open.id, { subject: { type: 'public' }, role: 'reader' });
    const published = await seedPage(open.id, 'Published');
    assertError(await star(cast.anonymous, published.id), 401, 'unauthenticated');
    assertError(await unstar(cast.anonymous, published.id), 401, 'unauthenticated');
    assertError(await listOf(cast.anonymous, open.id), 401, 'unauthenticated');
    assertError(await listOf(cast.anonymous, open.id, 'cursor=garbage'), 401, 'unauthenticated');
    assert.equal((await sql(`SELECT 1 FROM favorites WHERE pond_id = :pondId`, { pondId: open.id })).length, 0);
  });

  test('404 for a missing page, a malformed id and a page hidden from the caller by a deny grant', async () => {
    const pond = await cast.seedTeamPond();
    const hidden = await seedPage(pond.id, 'Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    for (const request of [star, unstar]) {
      assertError(await request(cast.reader.client, MISSING_UUID), 404, 'not_found');
      assertError(await request(cast.reader.client, 'not-a-uuid'), 404, 'not_found');
      assertError(await request(cast.reader.client, hidden.id), 404, 'not_found');
      assertError(await request(cast.outsider.client, hidden.id), 404, 'not_found');
    }
    assert.deepEqual(await favoriteRows(hidden.id), []);
    // The editor is not denied and may still star it.
    await assertStarred(cast.editor.client, hidden.id);
  });

  test('a favorite hidden later by a deny grant drops out of the list; a hidden parent is nulled', async () => {
    const pond = await cast.seedTeamPond();
    const parent = await seedPage(pond.id, 'Parent');
    const child = await seedPage(pond.id, 'Child', { parentId: parent.id });
    const secret = await seedPage(pond.id, 'Soon secret');
    for (const page of [parent, child, secret]) await assertStarred(cast.reader.client, page.id);
    assert.deepEqual(await listedIds(cast.reader.client, pond.id), [parent.id, child.id, secret.id]);

    for (const page of [secret, parent]) {
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
    }
    const items = (await listOf(cast.reader.client, pond.id)).body.items;
    assert.deepEqual(
      items.map((item: { id: string; parentId: string | null }) => [item.id, item.parentId]),
      [[child.id, null]],
    );
    // The rows stay: lifting the deny brings them back.
    assert.equal((await favoriteRows(secret.id)).length, 1);
  });

  test('a trashed page keeps its favorites but is not listed; PUT answers page_trashed to an editor', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'To the bin');
    const live = await seedPage(pond.id, 'Stays');
    for (const person of [cast.editor, cast.reader]) {
      await assertStarred(person.client, page.id);
      await assertStarred(person.client, live.id);
    }
    await sql(`UPDATE pages SET trashed_at = now() WHERE id = :id RETURNING id`, { id: page.id });

    assert.deepEqual((await favoriteRows(page.id)).map((row) => row.user_id).sort(), [cast.editor.user.id, cast.reader.user.id].sort());
    assert.deepEqual(await listedIds(cast.editor.client, pond.id), [live.id]);
    assert.deepEqual(await listedIds(cast.reader.client, pond.id), [live.id]);
    assertError(await star(cast.editor.client, page.id), 404, 'page_trashed');
    assertError(await star(cast.reader.client, page.id), 404, 'not_found');
    assertError(await unstar(cast.reader.client, page.id), 404, 'not_found');

    // Restored, the page shows up again with its original star.
    await sql(`UPDATE pages SET trashed_at = NULL WHERE id = :id RETURNING id`, { id: page.id });
    assert.deepEqual(await listedIds(cast.reader.client, pond.id), [page.id, live.id]);
  });

  test('deleting the page row (purge) cascades its favorites away', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Purged');
    await assertStarred(cast.editor.client, page.id);
    await assertStarred(cast.reader.client, page.id);
    await sql(`DELETE FROM pages WHERE id = :id RETURNING id`, { id: page.id });
    assert.deepEqual(await favoriteRows(page.id), []);
    assert.deepEqual(await listedIds(cast.editor.client, pond.id), []);
  });

  test('favorites are personal and per pond', async () => {
    const pond = await cast.seedTeamPond();
    const other = await cast.seedTeamPond();
    const mine = await seedPage(pond.id, 'Mine');
    const elsewhere = await seedPage(other.id, 'Elsewhere');
    await assertStarred(cast.editor.client, mine.id);
    await assertStarred(cast.editor.client, elsewhere.id);
    assert.deepEqual(await listedIds(cast.editor.client, pond.id), [mine.id]);
    assert.deepEqual(await listedIds(cast.editor.client, other.id), [elsewhere.id]);
    assert.deepEqual(await listedIds(cast.owner.client, pond.id), []);
    assert.deepEqual(await listedIds(cast.reader.client, pond.id), []);
    // Unstarring is personal too.
    await assertStarred(cast.reader.client, mine.id);
    assert.equal((await unstar(cast.reader.client, mine.id)).status, 204);
    assert.deepEqual(await listedIds(cast.editor.client, pond.id), [mine.id]);
  });

  test('GET for a pond the caller cannot see, a missing or a malformed pond id: 404', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Members only');
    await assertStarred(cast.editor.client, page.id);
    assertError(await listOf(cast.outsider.client, pond.id), 404, 'not_found');
    assertError(await listOf(cast.outsider.client, MISSING_UUID), 404, 'not_found');
    assertError(await listOf(cast.outsider.client, 'not-a-uuid'), 404, 'not_found');
  });

  test('limit=1 walks every readable favorite once, by star time then page id; bad limit or cursor: 400', async () => {
    const pond = await cast.seedTeamPond();
    const pages: Page[] = [];
    for (let i = 0; i < 5; i += 1) pages.push(await seedPage(pond.id, `Page ${i}`));
    for (const page of pages) await assertStarred(cast.reader.client, page.id);
    // Star times out of creation order; two share one timestamp (microseconds the cursor must keep).
    const tied = '2024-03-01T10:00:00.123456Z';
    const stamps = ['2024-03-02T00:00:00Z', tied, '2024-02-01T00:00:00Z', tied, '2024-03-01T10:00:00.123457Z'];
    for (const [i, page] of pages.entries()) {
      await sql(`UPDATE favorites SET created_at = :stamp WHERE page_id = :pageId RETURNING page_id`, { stamp: stamps[i], pageId: page.id });
    }
    const hidden = pages[4]!;
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    const expected = pages
      .map((page, i) => ({ id: page.id, stamp: stamps[i]! }))
      .filter(({ id }) => id !== hidden.id)
      .sort((a, b) => a.stamp.localeCompare(b.stamp) || a.id.localeCompare(b.id))
      .map(({ id }) => id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let requests = 0;
    do {
      const query: string = cursor ? `limit=1&cursor=${encodeURIComponent(cursor)}` : 'limit=1';
      const response: TestResponse = await listOf(cast.reader.client, pond.id, query);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.items.length, 1, response.text);
      seen.push(response.body.items[0].id);
      cursor = response.body.nextCursor;
      requests += 1;
      assert.ok(requests <= expected.length, 'pagination terminates');
    } while (cursor);
    assert.deepEqual(seen, expected);
    assert.equal((await listOf(cast.reader.client, pond.id, 'limit=2')).body.items.length, 2);
    assert.equal((await listOf(cast.reader.client, pond.id)).body.items[0].favoritedAt, '2024-02-01T00:00:00.000Z');

    assertFieldError(await listOf(cast.reader.client, pond.id, 'cursor=garbage'), 'query.cursor');
    assertFieldError(await listOf(cast.reader.client, pond.id, `cursor=${Buffer.from(JSON.stringify(['2024-01-01 00:00:00', 'not-a-uuid'])).toString('base64url')}`), 'query.cursor');
    assertFieldError(await listOf(cast.reader.client, pond.id, 'limit=0'), 'query.limit');
    assertFieldError(await listOf(cast.reader.client, pond.id, 'limit=ten'), 'query.limit');
  });
});
