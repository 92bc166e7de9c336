/**
 * Where notifications and watches come from, through the real paths: a named version made
 * through HTTP (an unnamed one and a restore's pre-restore version notify nobody), page
 * creation's auto-watch by preference, mentions from the save path's `page_mentions_changed`
 * heard by the instance's listener, and account deletion taking the user's notifications.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import type { DocumentJson } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../documents/derivedData.ts';
import { seedGrant, seedPage } from '../testing/accessFixtures.ts';
import { ADMIN, createVerifiedUser } from '../testing/fixtures.ts';
import { waitFor } from '../testing/polling.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import type { NotificationPayload } from './notificationFanOut.ts';

interface Row {
  user_id: string;
  type: string;
  payload: NotificationPayload;
}

describe('notification hooks', () => {
  const cast = usePondCast();
  const sequelize = () => cast.instance.services.sequelize;

  async function rowsOf(pageId: string, type?: string): Promise<Row[]> {
    return sequelize().query<Row>(`SELECT user_id, type, payload FROM notifications WHERE page_id = :pageId ${type ? 'AND type = :type' : ''} ORDER BY user_id`, {
      replacements: { pageId, type },
      type: QueryTypes.SELECT,
    });
  }

  async function watchPond(userId: string, pondId: string): Promise<void> {
    await sequelize().query(`INSERT INTO watches (user_id, target_type, pond_id) VALUES (:userId, 'pond', :pondId) ON CONFLICT DO NOTHING`, { replacements: { userId, pondId } });
  }

  async function pageWatchers(pageId: string): Promise<string[]> {
    const rows = await sequelize().query<{ user_id: string }>(`SELECT user_id FROM watches WHERE page_id = :pageId`, { replacements: { pageId }, type: QueryTypes.SELECT });
    return rows.map((row) => row.user_id);
  }

  test('a named version notifies the watchers, its creator as the actor; an unnamed one nobody', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Spec');
    for (const person of [cast.reader, cast.owner, cast.editor]) await watchPond(person.user.id, pond.id);

    const unnamed = await cast.editor.client.post(`/pages/${page.id}/versions`, { label: '  ' });
    assert.equal(unnamed.status, 201, unnamed.text);
    assert.deepEqual(await rowsOf(page.id), []);

    const named = await cast.editor.client.post(`/pages/${page.id}/versions`, { label: 'Ready for review' });
    assert.equal(named.status, 201, named.text);
    const rows = await rowsOf(page.id);
    assert.deepEqual(rows.map((row) => row.user_id), [cast.owner.user.id, cast.reader.user.id].sort());
    for (const row of rows) {
      assert.equal(row.type, 'page_changed');
      assert.equal(row.payload.versionLabel, 'Ready for review');
      assert.deepEqual(row.payload.actors, [{ id: cast.editor.user.id, displayName: cast.editor.credentials.displayName }]);
      assert.equal(row.payload.changeCount, 1);
    }

    // A restore keeps the replaced content as a pre-restore version: that notifies nobody.
    const restored = await cast.owner.client.post(`/versions/${named.body.id}/restore`);
    assert.equal(restored.status, 200, restored.text);
    assert.deepEqual(
      (await rowsOf(page.id)).map((row) => row.payload.changeCount),
      [1, 1],
    );
  });

  test('creating a page watches it for the creator when autoWatchOwnPages is on, not when off', async () => {
    const pond = await cast.seedTeamPond();
    const create = async (title: string) => {
      const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title });
      assert.equal(response.status, 201, response.text);
      return response.body.id as string;
    };
    const watched = await create('Mine');
    assert.deepEqual(await pageWatchers(watched), [cast.editor.user.id]);
    assert.deepEqual((await cast.editor.client.get(`/watches/page/${watched}`)).body, { watching: true, viaPond: false });

    assert.equal((await cast.editor.client.patch('/users/me', { autoWatchOwnPages: false })).status, 200);
    try {
      const unwatched = await create('Not followed');
      assert.deepEqual(await pageWatchers(unwatched), []);
    } finally {
      assert.equal((await cast.editor.client.patch('/users/me', { autoWatchOwnPages: true })).status, 200);
    }
  });

  describe('mentions', () => {
    const mentioning = (...people: { id: string; label: string }[]): DocumentJson => ({
      type: 'doc',
      content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hello ' }, ...people.map((person) => ({ type: 'mention', attrs: person }))] }],
    });
    const save = (pageId: string, authorIds: string[], ...people: { id: string; label: string }[]) =>
      saveDerivedData(sequelize(), { pageId, document: mentioning(...people), authorIds });
    const mentioned = async (pageId: string) => (await rowsOf(pageId, 'mentioned')).map((row) => row.user_id);

    test('only newly mentioned users are notified, never the author, each once', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Meeting notes');
      const reader = { id: cast.reader.user.id, label: 'Reader' };
      const owner = { id: cast.owner.user.id, label: 'Owner' };
      const editor = { id: cast.editor.user.id, label: 'Editor' };

      // The author mentions themself and the reader.
      const first = await save(page.id, [cast.editor.user.id], editor, reader);
      assert.deepEqual(first.addedMentionUserIds.sort(), [cast.editor.user.id, cast.reader.user.id].sort());
      await waitFor(async () => (await mentioned(page.id)).length === 1, 5000, 'the reader’s mention');
      const [row] = await rowsOf(page.id, 'mentioned');
      assert.equal(row!.user_id, cast.reader.user.id);
      assert.deepEqual(row!.payload.actors, [{ id: cast.editor.user.id, displayName: cast.editor.credentials.displayName }]);
      assert.equal(row!.payload.pageTitle, 'Meeting notes');

      // Saved again with the same mentions: nothing new. Then the owner is added: only the owner.
      await save(page.id, [cast.editor.user.id], editor, reader);
      await save(page.id, [cast.editor.user.id], editor, reader, owner);
      await waitFor(async () => (await mentioned(page.id)).length === 2, 5000, 'the owner’s mention');
      await cast.instance.mentions.settled();
      assert.deepEqual(await mentioned(page.id), [cast.owner.user.id, cast.reader.user.id].sort());
      // The reader's row was not touched by the later saves.
      const readerRow = (await rowsOf(page.id, 'mentioned')).find((entry) => entry.user_id === cast.reader.user.id)!;
      assert.deepEqual(readerRow.payload, row!.payload);
    });

    test('a mentioned user who may not read the page hears nothing; nor does a co-author', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Restricted');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
      const stranger = await createVerifiedUser(cast.instance);
      await save(page.id, [cast.editor.user.id], { id: cast.reader.user.id, label: 'R' }, { id: stranger.user.id, label: 'S' });
      // A save by two authors newly mentioning one of them (the owner) and the outsider, who has no access: nobody.
      await save(page.id, [cast.editor.user.id, cast.owner.user.id], { id: cast.reader.user.id, label: 'R' }, { id: cast.owner.user.id, label: 'O' }, { id: cast.outsider.user.id, label: 'X' });
      // Announcements arrive in order: once a later one is delivered, these have been too.
      const later = await seedPage(pond.id, 'Later');
      await save(later.id, [cast.editor.user.id], { id: cast.owner.user.id, label: 'O' });
      await waitFor(async () => (await mentioned(later.id)).length === 1, 5000, 'the owner’s mention on the later page');
      await cast.instance.mentions.settled();
      assert.deepEqual(await mentioned(page.id), []);

      // Still mentioned once they may read: the diff names nobody again.
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.outsider.user.id }, role: 'reader' });
      const third = await save(page.id, [cast.editor.user.id], { id: cast.outsider.user.id, label: 'X' }, { id: cast.owner.user.id, label: 'O' });
      assert.deepEqual(third.addedMentionUserIds, []);
    });

    test('a page newly mentioning 250 people saves, and every one of them who may read it hears of it', async () => {
      const pond = await cast.seedTeamPond();
      await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader' });
      const page = await seedPage(pond.id, 'Everyone');
      const people = await sequelize().query<{ id: string }>(
        `INSERT INTO users (username, email, display_name, status)
         SELECT 'crowd' || i || '-' || md5(random()::text), 'crowd' || i || '-' || md5(random()::text) || '@example.org', 'Crowd ' || i, 'ACTIVE'
           FROM generate_series(1, 250) AS i RETURNING id`,
        { type: QueryTypes.SELECT },
      );
      const saved = await save(page.id, [cast.editor.user.id], ...people.map((person, index) => ({ id: person.id, label: `Crowd ${index}` })));
      assert.equal(saved.addedMentionUserIds.length, 250);
      await waitFor(async () => (await mentioned(page.id)).length === 250, 10_000, 'all 250 mentions');
    });
  });

  test('deleting an account deletes its notifications', async () => {
    const person = await createVerifiedUser(cast.instance);
    const pond = await cast.seedTeamPond();
    await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role: 'reader' });
    const page = await seedPage(pond.id, 'Soon orphaned');
    await watchPond(person.user.id, pond.id);
    await cast.editor.client.post(`/pages/${page.id}/versions`, { label: 'One' });
    assert.equal((await rowsOf(page.id)).length, 1);

    const admin = new TestClient(cast.instance.baseUrl);
    assert.equal((await admin.post('/auth/login', { login: ADMIN.username, password: ADMIN.password })).status, 200);
    const response = await admin.request('DELETE', `/admin/users/${person.user.id}`);
    assert.equal(response.status, 204, response.text);
    assert.deepEqual(await rowsOf(page.id), []);
  });
});
