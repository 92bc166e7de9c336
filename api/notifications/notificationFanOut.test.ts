/**
 * The fan-out against a real database: who gets a row (watchers of the page and of its pond,
 * named users for mentions, never an actor, never an inactive account or someone who may no
 * longer read the page), what the payload says, how repeated events fold into one unread row,
 * and auto-watch by preference.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import type { Page, Pond } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { autoWatchPage, notifyPageEvent, type NotificationPayload, type PageEvent } from './notificationFanOut.ts';

interface Row {
  id: string;
  user_id: string;
  type: string;
  pond_id: string;
  payload: NotificationPayload;
  created_at: Date;
  updated_at: Date;
  read_at: Date | null;
}

describe('notification fan-out', () => {
  const cast = usePondCast();
  const sequelize = () => cast.instance.services.sequelize;

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return sequelize().query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  async function watch(userId: string, target: { page: Page } | { pond: Pond }): Promise<void> {
    const [pondId, pageId, type] = 'page' in target ? [target.page.pondId, target.page.id, 'page'] : [target.pond.id, null, 'pond'];
    await sequelize().query(`INSERT INTO watches (user_id, target_type, pond_id, page_id) VALUES (:userId, :type, :pondId, :pageId)`, { replacements: { userId, type, pondId, pageId } });
  }

  async function rowsOf(pageId: string): Promise<Row[]> {
    return sql<Row>(`SELECT * FROM notifications WHERE page_id = :pageId ORDER BY created_at, user_id`, { pageId });
  }

  async function recipientsOf(pageId: string): Promise<string[]> {
    return (await rowsOf(pageId)).map((row) => row.user_id).sort();
  }

  const change = (page: Page, actorIds: string[], extra: Partial<PageEvent> = {}): PageEvent => ({ type: 'page_changed', pageId: page.id, actorIds, ...extra });

  async function pondWithPage(title = 'Watched page') {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, title, { createdBy: cast.owner.user.id });
    return { pond, page };
  }

  test('watchers of the page and of its pond get one row each; the actor none', async () => {
    const { pond, page } = await pondWithPage();
    await watch(cast.reader.user.id, { page });
    await watch(cast.reader.user.id, { pond });
    await watch(cast.owner.user.id, { pond });
    await watch(cast.editor.user.id, { page });
    const other = await seedPage(pond.id, 'Unwatched');
    await watch(cast.editor.user.id, { page: other });

    const result = await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id], { versionLabel: 'Release 1' }));
    assert.deepEqual(result, { notified: 2 });
    assert.deepEqual(await recipientsOf(page.id), [cast.owner.user.id, cast.reader.user.id].sort());
    assert.deepEqual(await recipientsOf(other.id), []);
    const [row] = await rowsOf(page.id);
    assert.equal(row!.type, 'page_changed');
    assert.equal(row!.pond_id, pond.id);
    assert.equal(row!.read_at, null);
    assert.deepEqual(row!.payload, {
      pondName: pond.name,
      pondSlug: pond.slug,
      pageTitle: 'Watched page',
      pageSlug: page.slug,
      actors: [{ id: cast.editor.user.id, displayName: cast.editor.credentials.displayName }],
      changeCount: 1,
      commentCount: 0,
      versionLabel: 'Release 1',
    });
  });

  test('nobody watching, or only actors watching: nothing', async () => {
    const { page } = await pondWithPage();
    assert.deepEqual(await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id])), { notified: 0 });
    await watch(cast.editor.user.id, { page });
    assert.deepEqual(await notifyPageEvent(sequelize(), change(page, [cast.owner.user.id, cast.editor.user.id])), { notified: 0 });
    assert.deepEqual(await rowsOf(page.id), []);
  });

  test('a watcher who lost read access (a deny grant, or no grant left) gets nothing', async () => {
    const { pond, page } = await pondWithPage();
    await watch(cast.reader.user.id, { page });
    await watch(cast.outsider.user.id, { pond });
    await watch(cast.owner.user.id, { page });
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });

    assert.deepEqual(await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id])), { notified: 1 });
    assert.deepEqual(await recipientsOf(page.id), [cast.owner.user.id]);
  });

  test('a grant to all signed-in users reaches watchers named by no grant; a trashed page only those who may write', async () => {
    const pond = await seedSharedPond(cast.owner.user.id);
    await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader' });
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor' });
    const page = await seedPage(pond.id, 'Open to all');
    await watch(cast.outsider.user.id, { pond });
    await watch(cast.reader.user.id, { page });
    await watch(cast.editor.user.id, { page });
    assert.deepEqual(await notifyPageEvent(sequelize(), change(page, [cast.owner.user.id])), { notified: 3 });

    const trashed = await seedPage(pond.id, 'Trashed', { trashed: true });
    await watch(cast.reader.user.id, { page: trashed });
    await watch(cast.editor.user.id, { page: trashed });
    assert.deepEqual(await notifyPageEvent(sequelize(), change(trashed, [cast.owner.user.id])), { notified: 1 });
    assert.deepEqual(await recipientsOf(trashed.id), [cast.editor.user.id]);
  });

  test('disabled and deleted accounts get nothing', async () => {
    const { pond, page } = await pondWithPage();
    const [disabled, deleted] = await Promise.all([cast.reader, cast.editor].map(async (person) => person.user.id));
    await watch(disabled!, { page });
    await watch(deleted!, { pond });
    const transaction = await sequelize().transaction();
    try {
      await sequelize().query(`UPDATE users SET status = CASE id WHEN :disabled THEN 'disabled' ELSE 'deleted' END WHERE id IN (:disabled, :deleted)`, { replacements: { disabled, deleted }, transaction });
      assert.deepEqual(await notifyPageEvent(sequelize(), change(page, [cast.owner.user.id]), transaction), { notified: 0 });
    } finally {
      await transaction.rollback();
    }
    assert.deepEqual(await notifyPageEvent(sequelize(), change(page, [cast.owner.user.id])), { notified: 2 });
  });

  test('two changes fold into one unread row with the counts and the actors merged; after read a new row starts', async () => {
    const { pond, page } = await pondWithPage();
    await watch(cast.reader.user.id, { pond });
    await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id], { versionLabel: 'Draft' }));
    await notifyPageEvent(sequelize(), change(page, [cast.owner.user.id, cast.editor.user.id]));
    let rows = await rowsOf(page.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.payload.changeCount, 2);
    assert.deepEqual(
      rows[0]!.payload.actors.map((actor) => actor.id),
      [cast.editor.user.id, cast.owner.user.id],
    );
    assert.equal(rows[0]!.payload.versionLabel, 'Draft', 'an automatic snapshot keeps the last named label');
    assert.ok(rows[0]!.updated_at.getTime() > rows[0]!.created_at.getTime());

    await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id], { versionLabel: 'Final' }));
    rows = await rowsOf(page.id);
    assert.equal(rows[0]!.payload.versionLabel, 'Final');
    assert.equal(rows[0]!.payload.changeCount, 3);

    // Another type never folds into a page change.
    await notifyPageEvent(sequelize(), { type: 'comment', pageId: page.id, actorIds: [cast.editor.user.id], commentId: 'c1', commentExcerpt: 'First' });
    await notifyPageEvent(sequelize(), { type: 'comment', pageId: page.id, actorIds: [cast.owner.user.id], commentId: 'c2', commentExcerpt: 'Second' });
    rows = await rowsOf(page.id);
    assert.deepEqual(rows.map((row) => row.type).sort(), ['comment', 'page_changed']);
    const comment = rows.find((row) => row.type === 'comment')!;
    assert.equal(comment.payload.commentCount, 2);
    assert.equal(comment.payload.changeCount, 0);
    assert.equal(comment.payload.commentId, 'c2');
    assert.equal(comment.payload.commentExcerpt, 'Second');
    assert.equal('versionLabel' in comment.payload, false);

    await sequelize().query(`UPDATE notifications SET read_at = now() WHERE page_id = :pageId AND type = 'page_changed'`, { replacements: { pageId: page.id } });
    await notifyPageEvent(sequelize(), change(page, [cast.owner.user.id]));
    const changes = (await rowsOf(page.id)).filter((row) => row.type === 'page_changed');
    assert.equal(changes.length, 2);
    const fresh = changes.find((row) => row.read_at === null)!;
    assert.equal(fresh.payload.changeCount, 1);
    assert.deepEqual(fresh.payload.actors, [{ id: cast.owner.user.id, displayName: cast.owner.credentials.displayName }]);
    assert.equal(fresh.payload.versionLabel, null);
  });

  test('a mailed row is not folded into either', async () => {
    const { page } = await pondWithPage();
    await watch(cast.reader.user.id, { page });
    await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id]));
    await sequelize().query(`UPDATE notifications SET mailed_at = now() WHERE page_id = :pageId`, { replacements: { pageId: page.id } });
    await notifyPageEvent(sequelize(), change(page, [cast.editor.user.id]));
    assert.deepEqual((await rowsOf(page.id)).map((row) => row.payload.changeCount), [1, 1]);
  });

  test('the actors folded are kept in first-seen order, at most ten', async () => {
    const { pond, page } = await pondWithPage();
    await watch(cast.reader.user.id, { pond });
    const users = await sql<{ id: string }>(`SELECT id FROM users WHERE id <> :reader ORDER BY created_at`, { reader: cast.reader.user.id });
    const extra = await sql<{ id: string }>(
      `INSERT INTO users (username, email, display_name, password_hash, status)
       SELECT 'actor' || i || '-' || md5(random()::text), 'actor' || i || '-' || md5(random()::text) || '@example.org', 'Actor ' || i, 'x', 'ACTIVE'
         FROM generate_series(1, 12) AS i RETURNING id`,
    );
    const ids = [...users, ...extra].map((user) => user.id);
    for (const id of ids) await notifyPageEvent(sequelize(), change(page, [id]));
    const [row] = await rowsOf(page.id);
    assert.equal(row!.payload.changeCount, ids.length);
    assert.deepEqual(
      row!.payload.actors.map((actor) => actor.id),
      ids.slice(0, 10),
    );
  });

  test('mentioned: exactly the named users, read-checked, never the actor', async () => {
    const { pond, page } = await pondWithPage();
    await watch(cast.owner.user.id, { pond });
    const result = await notifyPageEvent(sequelize(), {
      type: 'mentioned',
      pageId: page.id,
      actorIds: [cast.editor.user.id],
      recipientIds: [cast.reader.user.id, cast.editor.user.id, cast.outsider.user.id],
    });
    assert.deepEqual(result, { notified: 1 });
    const rows = await rowsOf(page.id);
    assert.deepEqual(
      rows.map((row) => [row.user_id, row.type]),
      [[cast.reader.user.id, 'mentioned']],
    );
    assert.deepEqual(await notifyPageEvent(sequelize(), { type: 'mentioned', pageId: page.id, actorIds: [], recipientIds: [] }), { notified: 0 });
  });

  test('an unknown page notifies nobody', async () => {
    assert.deepEqual(await notifyPageEvent(sequelize(), { type: 'page_changed', pageId: '00000000-0000-4000-8000-000000000000', actorIds: [] }), { notified: 0 });
    assert.deepEqual(await notifyPageEvent(sequelize(), { type: 'page_changed', pageId: 'not-a-uuid', actorIds: [] }), { notified: 0 });
  });

  test('autoWatchPage follows the preference and is idempotent', async () => {
    const { page } = await pondWithPage();
    const watchers = async () => (await sql<{ user_id: string }>(`SELECT user_id FROM watches WHERE page_id = :pageId`, { pageId: page.id })).map((row) => row.user_id).sort();
    await sequelize().query(`UPDATE users SET auto_watch_own_pages = false WHERE id = :id`, { replacements: { id: cast.reader.user.id } });
    await sequelize().query(`UPDATE users SET auto_watch_on_comment = false WHERE id = :id`, { replacements: { id: cast.editor.user.id } });
    try {
      const input = (userId: string, preference: 'ownPages' | 'onComment') => ({ userId, pageId: page.id, pondId: page.pondId, preference });
      await autoWatchPage(sequelize(), input(cast.reader.user.id, 'ownPages'));
      await autoWatchPage(sequelize(), input(cast.editor.user.id, 'onComment'));
      assert.deepEqual(await watchers(), []);
      await autoWatchPage(sequelize(), input(cast.reader.user.id, 'onComment'));
      await autoWatchPage(sequelize(), input(cast.reader.user.id, 'onComment'));
      await autoWatchPage(sequelize(), input(cast.editor.user.id, 'ownPages'));
      assert.deepEqual(await watchers(), [cast.editor.user.id, cast.reader.user.id].sort());
    } finally {
      await sequelize().query(`UPDATE users SET auto_watch_own_pages = true, auto_watch_on_comment = true WHERE id IN (:ids)`, { replacements: { ids: [cast.reader.user.id, cast.editor.user.id] } });
    }
  });
});
