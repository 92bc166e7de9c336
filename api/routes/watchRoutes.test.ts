/**
 * Watches through HTTP: watching and unwatching pages and ponds (idempotent), the watch state
 * of a target, the user's list with names and links (unreadable and trashed targets left
 * out), and the 401 / 404 refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { invalidateAllPondAccess } from '../policies/pondAccessCache.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { assertError, MISSING_UUID, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

describe('watches', () => {
  const cast = usePondCast();

  const put = (client: TestClient, kind: 'page' | 'pond', id: string) => client.request('PUT', `/watches/${kind}/${id}`);
  const remove = (client: TestClient, kind: 'page' | 'pond', id: string) => client.request('DELETE', `/watches/${kind}/${id}`);
  const state = (client: TestClient, kind: 'page' | 'pond', id: string) => client.get(`/watches/${kind}/${id}`);

  async function watchRows(userId: string): Promise<{ target_type: string; pond_id: string; page_id: string | null }[]> {
    return cast.instance.services.sequelize.query(`SELECT target_type, pond_id, page_id FROM watches WHERE user_id = :userId ORDER BY created_at`, {
      replacements: { userId },
      type: QueryTypes.SELECT,
    });
  }

  async function assertNoContent(response: { status: number; text: string }): Promise<void> {
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');
  }

  test('PUT and DELETE a page watch are idempotent; GET tells the state, and whether the pond covers it', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Followed');
    assert.deepEqual((await state(cast.reader.client, 'page', page.id)).body, { watching: false, viaPond: false });
    await assertNoContent(await put(cast.reader.client, 'page', page.id));
    await assertNoContent(await put(cast.reader.client, 'page', page.id));
    assert.deepEqual(await watchRows(cast.reader.user.id), [{ target_type: 'page', pond_id: pond.id, page_id: page.id }]);
    assert.deepEqual((await state(cast.reader.client, 'page', page.id)).body, { watching: true, viaPond: false });

    await assertNoContent(await put(cast.reader.client, 'pond', pond.id));
    await assertNoContent(await put(cast.reader.client, 'pond', pond.id));
    assert.deepEqual((await state(cast.reader.client, 'pond', pond.id)).body, { watching: true });
    assert.deepEqual((await state(cast.reader.client, 'page', page.id)).body, { watching: true, viaPond: true });
    assert.equal((await watchRows(cast.reader.user.id)).length, 2);

    await assertNoContent(await remove(cast.reader.client, 'page', page.id));
    await assertNoContent(await remove(cast.reader.client, 'page', page.id));
    assert.deepEqual((await state(cast.reader.client, 'page', page.id)).body, { watching: false, viaPond: true });
    await assertNoContent(await remove(cast.reader.client, 'pond', pond.id));
    await assertNoContent(await remove(cast.reader.client, 'pond', pond.id));
    assert.deepEqual((await state(cast.reader.client, 'pond', pond.id)).body, { watching: false });
    assert.deepEqual(await watchRows(cast.reader.user.id), []);
    // Another user's watches are theirs alone.
    assert.deepEqual((await state(cast.editor.client, 'page', page.id)).body, { watching: false, viaPond: false });
  });

  test('a target the caller cannot read answers 404, an unknown or malformed id too', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Private');
    for (const [kind, id] of [
      ['page', page.id],
      ['pond', pond.id],
      ['page', MISSING_UUID],
      ['pond', MISSING_UUID],
      ['page', 'not-a-uuid'],
    ] as const) {
      for (const call of [put, remove, state]) assertError(await call(cast.outsider.client, kind, id), 404, 'not_found');
    }
    assert.deepEqual(await watchRows(cast.outsider.user.id), []);

    // A page hidden from the reader by a deny grant: 404 although the pond is readable.
    const hidden = await seedPage(pond.id, 'Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    assertError(await put(cast.reader.client, 'page', hidden.id), 404, 'not_found');
  });

  test('anonymous callers get 401 on public targets and 404 on hidden ones', async () => {
    const pond = await seedSharedPond(cast.owner.user.id);
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
    const page = await seedPage(pond.id, 'Public page');
    for (const call of [put, remove, state]) {
      assertError(await call(cast.anonymous, 'page', page.id), 401, 'unauthenticated');
      assertError(await call(cast.anonymous, 'pond', pond.id), 401, 'unauthenticated');
    }
    const hiddenPond = await cast.seedTeamPond();
    assertError(await put(cast.anonymous, 'pond', hiddenPond.id), 404, 'not_found');
    assertError(await cast.anonymous.get('/users/me/watches'), 401, 'unauthenticated');
    // A signed-in user without any grant may watch a public page: read access is all it takes.
    await assertNoContent(await put(cast.outsider.client, 'page', page.id));
  });

  test('a trashed page answers page_trashed to those who may see it', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Binned', { trashed: true });
    assertError(await put(cast.editor.client, 'page', page.id), 404, 'page_trashed');
    assertError(await put(cast.reader.client, 'page', page.id), 404, 'not_found');
  });

  test('GET /users/me/watches lists names and links newest first, leaving out unreadable and trashed targets', async () => {
    const pond = await cast.seedTeamPond();
    const first = await seedPage(pond.id, 'First page');
    const second = await seedPage(pond.id, 'Second page');
    const later = await seedPage(pond.id, 'Later trashed');
    const client = cast.reader.client;
    await assertNoContent(await put(client, 'page', first.id));
    await assertNoContent(await put(client, 'pond', pond.id));
    await assertNoContent(await put(client, 'page', second.id));
    await assertNoContent(await put(client, 'page', later.id));

    const listed = async () => {
      const response = await client.get('/users/me/watches');
      assert.equal(response.status, 200, response.text);
      return response.body.items as { id: string; targetType: string; pondId: string; pageId: string | null; name: string; url: string; createdAt: string }[];
    };
    let items = await listed();
    assert.deepEqual(
      items.map((item) => [item.targetType, item.pageId, item.name, item.url]),
      [
        ['page', later.id, 'Later trashed', `/${pond.slug}/${later.slug}`],
        ['page', second.id, 'Second page', `/${pond.slug}/${second.slug}`],
        ['pond', null, pond.name, `/${pond.slug}`],
        ['page', first.id, 'First page', `/${pond.slug}/${first.slug}`],
      ],
    );
    assert.deepEqual(Object.keys(items[0]!).sort(), ['createdAt', 'id', 'name', 'pageId', 'pondId', 'targetType', 'url']);
    assert.ok(items.every((item) => item.pondId === pond.id && !Number.isNaN(Date.parse(item.createdAt))));

    await later.update({ trashedAt: new Date() });
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: second.id }, effect: 'deny' });
    items = await listed();
    assert.deepEqual(
      items.map((item) => item.name),
      [pond.name, 'First page'],
    );
    // The rows stay: the list shows them again once the page is back.
    await later.update({ trashedAt: null });
    assert.deepEqual(
      (await listed()).map((item) => item.name),
      ['Later trashed', pond.name, 'First page'],
    );
    assert.equal((await watchRows(cast.reader.user.id)).length, 4);

    // Losing the pond drops every watch in it from the list.
    await cast.instance.services.sequelize.query(`DELETE FROM grants WHERE pond_id = :pondId AND subject_user_id = :userId`, {
      replacements: { pondId: pond.id, userId: cast.reader.user.id },
    });
    invalidateAllPondAccess();
    assert.deepEqual(await listed(), []);
  });
});
