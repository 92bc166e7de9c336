/**
 * Notifications through HTTP: the list's view and order (unread first, then newest), its
 * keyset pages, read permission re-checked when listed (and in the unread count), marking one
 * and all read, and the 400 / 401 / 404 refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { notifyPageEvent } from '../notifications/notificationFanOut.ts';
import { seedGrant, seedPage } from '../testing/accessFixtures.ts';
import { createVerifiedUser } from '../testing/fixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

interface Item {
  id: string;
  type: string;
  pondId: string;
  pageId: string;
  payload: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  readAt: string | null;
  mailedAt: string | null;
  url: string;
}

const VIEW_KEYS = ['createdAt', 'id', 'mailedAt', 'pageId', 'payload', 'pondId', 'readAt', 'type', 'updatedAt', 'url'];

describe('notifications', () => {
  const cast = usePondCast();
  const sequelize = () => cast.instance.services.sequelize;

  async function listOf(client: TestClient, query = '') {
    const response = await client.get(`/notifications${query ? `?${query}` : ''}`);
    assert.equal(response.status, 200, response.text);
    return response.body as { items: Item[]; nextCursor: string | null; unreadCount: number };
  }

  /** Every item, page by page of `limit`, following the cursors. */
  async function walk(client: TestClient, limit: number): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages += 1) {
      const body = await listOf(client, `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.ok(body.items.length <= limit);
      items.push(...body.items);
      cursor = body.nextCursor;
      if (!cursor) return items;
      assert.equal(body.items.length, limit, 'a page before the last is full');
    }
    throw new Error('the cursors never ended');
  }

  async function watchPond(userId: string, pondId: string): Promise<void> {
    await sequelize().query(`INSERT INTO watches (user_id, target_type, pond_id) VALUES (:userId, 'pond', :pondId)`, { replacements: { userId, pondId } });
  }

  /** A row as the fan-out would write it, with a chosen time; mailed rows may share a page and type. */
  async function seedRow(userId: string, page: { id: string; pondId: string }, options: { minutesAgo: number; read?: boolean; mailed?: boolean; type?: string }): Promise<string> {
    const [row] = await sequelize().query<{ id: string }>(
      `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at, updated_at, read_at, mailed_at)
       VALUES (:userId, :type, :pondId, :pageId, :payload, now() - make_interval(mins => :minutes), now() - make_interval(mins => :minutes),
               CASE WHEN :read THEN now() END, CASE WHEN :mailed THEN now() END)
       RETURNING id`,
      {
        replacements: {
          userId,
          type: options.type ?? 'page_changed',
          pondId: page.pondId,
          pageId: page.id,
          payload: JSON.stringify({ pondName: 'P', pondSlug: 'p', pageTitle: 'T', pageSlug: 't', actors: [], changeCount: 1, commentCount: 0 }),
          minutes: options.minutesAgo,
          read: options.read ?? false,
          mailed: options.mailed ?? true,
        },
        type: QueryTypes.SELECT,
      },
    );
    return row!.id;
  }

  test('the list shows the fan-out rows as views with links; empty for someone without any', async () => {
    assert.deepEqual(await listOf(cast.outsider.client), { items: [], nextCursor: null, unreadCount: 0 });
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Roadmap');
    await watchPond(cast.reader.user.id, pond.id);
    await notifyPageEvent(sequelize(), { type: 'page_changed', pageId: page.id, actorIds: [cast.editor.user.id], versionLabel: 'v1' });

    const body = await listOf(cast.reader.client);
    assert.equal(body.unreadCount, 1);
    assert.equal(body.nextCursor, null);
    assert.equal(body.items.length, 1);
    const [item] = body.items;
    assert.deepEqual(Object.keys(item!).sort(), VIEW_KEYS);
    assert.equal(item!.type, 'page_changed');
    assert.equal(item!.pondId, pond.id);
    assert.equal(item!.pageId, page.id);
    assert.equal(item!.url, `/${pond.slug}/${page.slug}`);
    assert.equal(item!.readAt, null);
    assert.equal(item!.mailedAt, null);
    assert.equal(item!.payload.pageTitle, 'Roadmap');
    assert.equal(item!.payload.versionLabel, 'v1');
    assert.deepEqual(item!.payload.actors, [{ id: cast.editor.user.id, displayName: cast.editor.credentials.displayName }]);

    // The link follows the page's current slug.
    await page.update({ slug: 'roadmap-renamed' });
    assert.equal((await listOf(cast.reader.client)).items[0]!.url, `/${pond.slug}/roadmap-renamed`);
  });

  test('unread first, then newest first; the cursors walk every item once in that order', async () => {
    const person = await createVerifiedUser(cast.instance);
    const pond = await cast.seedTeamPond();
    await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role: 'reader' });
    const pages = [await seedPage(pond.id, 'A'), await seedPage(pond.id, 'B'), await seedPage(pond.id, 'C')];
    const expectedUnread: string[] = [];
    const expectedRead: string[] = [];
    // Minutes ago: unread at odd minutes, read at even ones, interleaved in time.
    for (let minutes = 1; minutes <= 23; minutes += 1) {
      const read = minutes % 2 === 0;
      const id = await seedRow(person.user.id, pages[minutes % 3]!, { minutesAgo: minutes, read });
      (read ? expectedRead : expectedUnread).push(id);
    }
    // Two rows at the same instant: the larger id first.
    const [tieA, tieB] = await sequelize().query<{ id: string }>(
      `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at, updated_at, read_at, mailed_at)
       SELECT :userId, 'comment', :pondId, :pageId, '{"actors":[]}', t, t, t, t FROM (SELECT now() - interval '1 day' AS t) x, generate_series(1, 2)
       RETURNING id`,
      { replacements: { userId: person.user.id, pondId: pond.id, pageId: pages[0]!.id }, type: QueryTypes.SELECT },
    );
    expectedRead.push(...[tieA!.id, tieB!.id].sort().reverse());

    const full = await listOf(person.client, 'limit=100');
    assert.equal(full.unreadCount, expectedUnread.length);
    assert.deepEqual(
      full.items.map((item) => item.id),
      [...expectedUnread, ...expectedRead],
    );
    for (const limit of [1, 2, 5, 12, 25]) {
      assert.deepEqual(
        (await walk(person.client, limit)).map((item) => item.id),
        [...expectedUnread, ...expectedRead],
        `limit ${limit}`,
      );
    }
    const defaultPage = await listOf(person.client);
    assert.equal(defaultPage.items.length, 25);
    assert.equal(defaultPage.nextCursor, null);
  });

  test('read permission is re-checked when listed: unreadable and trashed pages drop out of the items and the count', async () => {
    const person = await createVerifiedUser(cast.instance);
    const pond = await cast.seedTeamPond();
    await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role: 'reader' });
    const pages = [];
    for (let index = 0; index < 6; index += 1) pages.push(await seedPage(pond.id, `Page ${index}`));
    const ids = new Map<string, string[]>();
    for (let index = 0; index < 30; index += 1) {
      const page = pages[index % pages.length]!;
      const id = await seedRow(person.user.id, page, { minutesAgo: index + 1, read: index >= 20 });
      ids.set(page.id, [...(ids.get(page.id) ?? []), id]);
    }
    const all = (await walk(person.client, 4)).map((item) => item.id);
    assert.equal(all.length, 30);
    assert.equal((await listOf(person.client)).unreadCount, 20);

    const hidden = pages[1]!;
    const trashed = pages[4]!;
    await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    await trashed.update({ trashedAt: new Date() });
    const gone = new Set([...ids.get(hidden.id)!, ...ids.get(trashed.id)!]);
    const expected = all.filter((id) => !gone.has(id));
    for (const limit of [1, 3, 7, 100]) {
      assert.deepEqual(
        (await walk(person.client, limit)).map((item) => item.id),
        expected,
        `limit ${limit}`,
      );
    }
    // Pages 1 and 4 held the unread rows at indexes 1, 7, 13, 19 and 4, 10, 16: seven of the twenty.
    assert.equal((await listOf(person.client)).unreadCount, 13);

    // The editor may see the trashed page (the trash rule), but a trashed page is never listed.
    await trashed.update({ trashedAt: null });
    assert.equal((await listOf(person.client)).unreadCount, 16);
  });

  test('POST /notifications/:id/read marks one read (204); another user’s, unknown or malformed id: 404', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Notes');
    const older = await seedRow(cast.editor.user.id, page, { minutesAgo: 10 });
    const newer = await seedRow(cast.editor.user.id, page, { minutesAgo: 5 });
    const client = cast.editor.client;
    assert.equal((await listOf(client)).unreadCount, 2);

    for (const id of [older, MISSING_UUID, 'not-a-uuid']) assertError(await cast.reader.client.post(`/notifications/${id}/read`), 404, 'not_found');
    assert.equal((await listOf(client)).unreadCount, 2);

    const response = await client.post(`/notifications/${older}/read`);
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');
    let body = await listOf(client);
    assert.equal(body.unreadCount, 1);
    assert.deepEqual(
      body.items.map((item) => [item.id, item.readAt !== null]),
      [
        [newer, false],
        [older, true],
      ],
    );
    const readAt = body.items[1]!.readAt;
    assert.equal((await client.post(`/notifications/${older}/read`)).status, 204);
    body = await listOf(client);
    assert.equal(body.items[1]!.readAt, readAt, 'marking read again keeps the time');

    assertError(await cast.anonymous.post(`/notifications/${older}/read`), 401, 'unauthenticated');
  });

  test('POST /notifications/read-all marks every unread one of the caller read, and nobody else’s', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Everything');
    for (const minutesAgo of [1, 2, 3]) await seedRow(cast.owner.user.id, page, { minutesAgo });
    await seedRow(cast.editor.user.id, page, { minutesAgo: 1 });
    const ownerBefore = (await listOf(cast.owner.client)).unreadCount;
    assert.ok(ownerBefore >= 3);
    const editorBefore = (await listOf(cast.editor.client)).unreadCount;

    const response = await cast.owner.client.post('/notifications/read-all');
    assert.equal(response.status, 204, response.text);
    const body = await listOf(cast.owner.client);
    assert.equal(body.unreadCount, 0);
    assert.ok(body.items.every((item) => item.readAt !== null));
    assert.equal((await listOf(cast.editor.client)).unreadCount, editorBefore);
    assert.equal((await cast.owner.client.post('/notifications/read-all')).status, 204);
    assertError(await cast.anonymous.post('/notifications/read-all'), 401, 'unauthenticated');
  });

  test('a new event after read starts a new unread row at the top', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Again');
    await watchPond(cast.outsider.user.id, pond.id);
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.outsider.user.id }, role: 'reader' });
    const event = { type: 'page_changed' as const, pageId: page.id, actorIds: [cast.editor.user.id] };
    await notifyPageEvent(sequelize(), event);
    await notifyPageEvent(sequelize(), event);
    let body = await listOf(cast.outsider.client);
    const first = body.items.find((item) => item.pageId === page.id)!;
    assert.equal(first.payload.changeCount, 2);
    assert.equal((await cast.outsider.client.post(`/notifications/${first.id}/read`)).status, 204);
    await notifyPageEvent(sequelize(), event);
    body = await listOf(cast.outsider.client);
    assert.equal(body.items[0]!.pageId, page.id);
    assert.equal(body.items[0]!.readAt, null);
    assert.equal(body.items[0]!.payload.changeCount, 1);
    assert.notEqual(body.items[0]!.id, first.id);
  });

  test('refusals: anonymous 401, a bad cursor or limit 400', async () => {
    assertError(await cast.anonymous.get('/notifications'), 401, 'unauthenticated');
    assertFieldError(await cast.reader.client.get('/notifications?cursor=nonsense'), 'query.cursor');
    const forged = Buffer.from(JSON.stringify([false, '2024-02-31 00:00:00', MISSING_UUID])).toString('base64url');
    assertFieldError(await cast.reader.client.get(`/notifications?cursor=${forged}`), 'query.cursor');
    assertFieldError(await cast.reader.client.get('/notifications?limit=0'), 'query.limit');
    assertFieldError(await cast.reader.client.get('/notifications?limit=101'), 'query.limit');
  });
});
