/**
 * Page versions through HTTP: manual versions (named, unnamed, label limits), the newest-first
 * list and its paging, a version rendered as it was (not as the page is now), restore
 * (pre-restore snapshot first, content back through the update log, history append-only, the
 * collaboration server told), contributors consumed and resolved to names, and the refusals.
 *
 * Edits are made as the collaboration server makes them: updates appended to the page's log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import * as Y from 'yjs';
import { markdownToDocument, yDocToDocument, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { loadDocumentState, loadPageUpdates } from '../documents/documentLog.ts';
import { createVersion } from '../documents/versions.ts';
import { User, type Pond } from '../models/index.ts';
import { seedGrant, seedPage } from '../testing/accessFixtures.ts';
import { storeCollabEdit } from '../testing/collabEdit.ts';
import { assertError, assertFieldError, MISSING_UUID, usePondCast, type SignedIn } from '../testing/pondTestSetup.ts';
import { waitFor } from '../testing/polling.ts';
import type { TestClient, TestResponse } from '../testing/testClient.ts';

const VERSION_VIEW_KEYS = ['contributors', 'createdAt', 'createdBy', 'id', 'label', 'pageId', 'trigger'];
const VERSION_DETAIL_KEYS = [...VERSION_VIEW_KEYS, 'html', 'markdown'].sort();

/** How a version view names a signed-in test user. */
function personOf(signedIn: SignedIn): { id: string; displayName: string } {
  return { id: signedIn.user.id, displayName: signedIn.credentials.displayName };
}

describe('page versions', () => {
  let pool: pg.Pool;
  // Registered before the cast's hooks: the pool closes before the instance drops the database.
  after(() => pool?.end());
  const cast = usePondCast();
  before(() => {
    pool = new pg.Pool({ connectionString: cast.instance.services.config.databaseUrl!, max: 3 });
  });

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return cast.instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  /** A page created through the API with `markdown` as its body. */
  async function pageWith(pond: Pond, markdown: string): Promise<string> {
    const response = await cast.owner.client.post(`/ponds/${pond.id}/pages`, { title: `Page ${Math.random().toString(36).slice(2, 8)}`, markdown });
    assert.equal(response.status, 201, response.text);
    return response.body.id;
  }

  /** An edit as the collaboration server stores it (api/testing/collabEdit.ts), by the owner. */
  async function edit(pageId: string, markdown: string): Promise<void> {
    await storeCollabEdit(pool, cast.instance.services.sequelize, { pageId, markdown, authorIds: [cast.owner.user.id] });
  }

  const createManual = (client: TestClient, pageId: string, body?: unknown) => client.post(`/pages/${pageId}/versions`, body);

  async function versionCount(pageId: string): Promise<number> {
    return (await sql<{ count: number }>(`SELECT count(*)::int AS count FROM page_versions WHERE page_id = :pageId`, { pageId }))[0]!.count;
  }

  describe('POST /pages/:id/versions', () => {
    test('an editor stores the current document as a named MANUAL version', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, '# Plan\n\nFirst draft.');
      await edit(pageId, '# Plan\n\nSecond draft.');
      const startedAt = Date.now();

      const response = await createManual(cast.editor.client, pageId, { label: '  Release 1  ' });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), VERSION_VIEW_KEYS);
      assert.equal(response.body.pageId, pageId);
      assert.equal(response.body.trigger, 'MANUAL');
      assert.equal(response.body.label, 'Release 1');
      assert.deepEqual(response.body.createdBy, personOf(cast.editor));
      assert.deepEqual(response.body.contributors, []);
      const createdAt = Date.parse(response.body.createdAt);
      assert.ok(createdAt >= startedAt - 1000 && createdAt <= Date.now() + 1000, response.body.createdAt);

      // The stored state is the log's document at that moment.
      const [row] = await sql<{ state: Buffer }>(`SELECT state FROM page_versions WHERE id = :id`, { id: response.body.id });
      assert.deepEqual(yjsUpdateToDocument(row!.state), yjsUpdateToDocument((await loadDocumentState(pool, pageId)).state));
      assert.deepEqual(yjsUpdateToDocument(row!.state), markdownToDocument('# Plan\n\nSecond draft.'));
    });

    test('an unnamed version is allowed: no body, no label, null or a blank label', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Text');
      for (const body of [undefined, {}, { label: null }, { label: '   ' }]) {
        const response = await createManual(cast.owner.client, pageId, body);
        assert.equal(response.status, 201, `${JSON.stringify(body)}: ${response.text}`);
        assert.equal(response.body.label, null);
        assert.equal(response.body.trigger, 'MANUAL');
      }
      assert.equal(await versionCount(pageId), 4);
    });

    test('a label is at most 200 characters (after trimming); unknown fields are refused', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Text');
      assertFieldError(await createManual(cast.editor.client, pageId, { label: 'x'.repeat(201) }), 'label');
      assertFieldError(await createManual(cast.editor.client, pageId, { label: 42 }), 'label');
      assertError(await createManual(cast.editor.client, pageId, { label: 'ok', trigger: 'auto' }), 400, 'validation_failed');
      assert.equal(await versionCount(pageId), 0);
      const longest = await createManual(cast.editor.client, pageId, { label: ` ${'x'.repeat(200)} ` });
      assert.equal(longest.status, 201, longest.text);
      assert.equal(longest.body.label, 'x'.repeat(200));
    });

    test('the body is JSON: a NUL in the label, a null body and a text/plain one make no version', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Text');
      for (const label of ['v\u0000', '\ud800']) assertFieldError(await createManual(cast.editor.client, pageId, { label }), 'label');
      const path = `/pages/${pageId}/versions`;
      assertError(await cast.editor.client.request('POST', path, { rawBody: 'null' }), 400, 'validation_failed');
      assertError(await cast.editor.client.request('POST', path, { rawBody: '{"label":"typed"}', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
      assert.equal(await versionCount(pageId), 0);
    });

    test('refusals: 401 anonymous, 403 reader, 404 outsider and missing page, page_trashed for a trashed page', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Text');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
      assertError(await createManual(cast.anonymous, pageId, {}), 401, 'unauthenticated');
      assertError(await createManual(cast.reader.client, pageId, {}), 403, 'forbidden');
      assertError(await createManual(cast.outsider.client, pageId, {}), 403, 'forbidden');
      const hidden = await seedPage((await cast.seedTeamPond()).id, 'Hidden');
      assertError(await createManual(cast.outsider.client, hidden.id, {}), 404, 'not_found');
      assertError(await createManual(cast.editor.client, MISSING_UUID, {}), 404, 'not_found');
      assertError(await createManual(cast.editor.client, 'not-a-uuid', {}), 404, 'not_found');
      const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
      assertError(await createManual(cast.editor.client, trashed.id, {}), 404, 'page_trashed');
      assert.equal(await versionCount(pageId), 0);
    });
  });

  describe('GET /pages/:id/versions', () => {
    test('lists newest first, pages with limit and cursor, readable by readers and public visitors', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Text');
      const ids: string[] = [];
      for (let i = 1; i <= 5; i += 1) ids.push((await createManual(cast.editor.client, pageId, { label: `v${i}` })).body.id);
      // Two versions in the same instant: the id breaks the tie, and paging still sees each once.
      await cast.instance.services.sequelize.query(`UPDATE page_versions SET created_at = '2025-01-01T00:00:00Z' WHERE id IN (:tied)`, { replacements: { tied: [ids[1], ids[2]] } });

      const all = await cast.reader.client.get(`/pages/${pageId}/versions`);
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.nextCursor, null);
      assert.deepEqual(Object.keys(all.body.items[0]).sort(), VERSION_VIEW_KEYS);
      const newestFirst = all.body.items.map((item: { id: string }) => item.id);
      const tiedInOrder = [ids[1]!, ids[2]!].sort().reverse();
      assert.deepEqual(newestFirst, [ids[4], ids[3], ids[0], ...tiedInOrder], 'the tied pair is oldest, ordered by id descending');

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response: TestResponse = await cast.reader.client.get(`/pages/${pageId}/versions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(response.status, 200, response.text);
        assert.ok(response.body.items.length <= 2);
        seen.push(...response.body.items.map((item: { id: string }) => item.id));
        cursor = response.body.nextCursor;
        pages += 1;
      } while (cursor);
      assert.deepEqual(seen, newestFirst);
      assert.equal(pages, 3);

      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
      const anonymous = await cast.anonymous.get(`/pages/${pageId}/versions?limit=1`);
      assert.equal(anonymous.status, 200, anonymous.text);
      assert.deepEqual(anonymous.body.items.map((item: { id: string }) => item.id), [ids[4]]);
      assert.equal(typeof anonymous.body.nextCursor, 'string');
    });

    test('a page without versions lists nothing; bad paging and unreadable pages are refused', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Text');
      assert.deepEqual((await cast.reader.client.get(`/pages/${pageId}/versions`)).body, { items: [], nextCursor: null });
      assertFieldError(await cast.reader.client.get(`/pages/${pageId}/versions?cursor=nonsense`), 'query.cursor');
      assertFieldError(await cast.reader.client.get(`/pages/${pageId}/versions?limit=0`), 'query.limit');
      assertFieldError(await cast.reader.client.get(`/pages/${pageId}/versions?limit=201`), 'query.limit');
      assertError(await cast.outsider.client.get(`/pages/${pageId}/versions`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/pages/${pageId}/versions`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/pages/${MISSING_UUID}/versions`), 404, 'not_found');
    });
  });

  describe('GET /versions/:id', () => {
    test('renders the version as it was, not the current content', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, '# Old title\n\nOld body with [[some-target]].');
      const old = (await createManual(cast.editor.client, pageId, { label: 'old' })).body;
      await edit(pageId, '# New title\n\nNew body.');

      const response = await cast.reader.client.get(`/versions/${old.id}`);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), VERSION_DETAIL_KEYS);
      assert.deepEqual({ ...response.body, html: undefined, markdown: undefined }, { ...old, html: undefined, markdown: undefined });
      assert.match(response.body.markdown, /^# Old title\n\nOld body with \[\[some-target\]\]\.\n?$/);
      assert.match(response.body.html, /<h1[^>]*>Old title<\/h1>/);
      assert.match(response.body.html, /Old body with/);
      assert.doesNotMatch(response.body.html + response.body.markdown, /New/);
    });

    test('read access follows the page: 404 for outsiders, anonymous and missing versions; public pages are readable anonymously', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Public text');
      const version = (await createManual(cast.editor.client, pageId, {})).body;
      assertError(await cast.outsider.client.get(`/versions/${version.id}`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/versions/${version.id}`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/versions/${MISSING_UUID}`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/versions/not-a-uuid`), 404, 'not_found');

      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
      const anonymous = await cast.anonymous.get(`/versions/${version.id}`);
      assert.equal(anonymous.status, 200, anonymous.text);
      assert.match(anonymous.body.markdown, /Public text/);
    });

    test('a version of a trashed page: page_trashed for editors, plain 404 for readers', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Soon binned');
      const version = (await createManual(cast.editor.client, pageId, {})).body;
      const trashed = await cast.editor.client.request('DELETE', `/pages/${pageId}`);
      assert.equal(trashed.status < 300, true, trashed.text);
      assertError(await cast.editor.client.get(`/versions/${version.id}`), 404, 'page_trashed');
      assertError(await cast.reader.client.get(`/versions/${version.id}`), 404, 'not_found');
      assertError(await cast.editor.client.post(`/versions/${version.id}/restore`), 404, 'page_trashed');
    });
  });

  describe('POST /versions/:id/restore', () => {
    test('stores the current content as pre_restore first, then brings the old content back through the log', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, '# Version one\n\nThe original text.');
      const v1 = (await createManual(cast.owner.client, pageId, { label: 'one' })).body;
      await edit(pageId, '# Version two\n\nRewritten text.');
      const v2 = (await createManual(cast.owner.client, pageId, { label: 'two' })).body;
      await edit(pageId, '# Version three\n\nUnsaved edits.');

      const versionsBefore = await sql<{ id: string; state: Buffer; label: string | null }>(`SELECT id, state, label FROM page_versions WHERE page_id = :pageId ORDER BY id`, { pageId });
      const logBefore = await loadPageUpdates(pool, pageId);
      const currentBefore = await loadDocumentState(pool, pageId);
      // An open editor holds the current document; it must converge once it applies the new rows.
      const liveEditor = new Y.Doc();
      Y.applyUpdate(liveEditor, currentBefore.state);

      const listener = new pg.Client({ connectionString: cast.instance.services.config.databaseUrl! });
      await listener.connect();
      const notified: string[] = [];
      listener.on('notification', (message) => {
        if (message.channel === 'page_updates_appended') notified.push(message.payload ?? '');
      });
      await listener.query('LISTEN page_updates_appended');
      let response: TestResponse;
      try {
        response = await cast.editor.client.post(`/versions/${v1.id}/restore`);
        assert.equal(response.status, 200, response.text);
        // Notifications reach the listener asynchronously, after the commit.
        await waitFor(() => notified.length > 0, 5000, 'page_updates_appended');
      } finally {
        await listener.end();
      }
      assert.deepEqual(notified, [pageId]);

      assert.deepEqual(Object.keys(response.body).sort(), ['page', 'preRestoreVersionId', 'restoredVersionId']);
      assert.equal(response.body.restoredVersionId, v1.id);
      assert.equal(response.body.page.id, pageId);
      assert.equal(response.body.page.canWrite, true);
      assert.equal(response.body.page.updatedBy, cast.editor.user.id);

      // The pre-restore version holds what the page held before, created by the restorer.
      const preRestore = await cast.reader.client.get(`/versions/${response.body.preRestoreVersionId}`);
      assert.equal(preRestore.status, 200, preRestore.text);
      assert.equal(preRestore.body.trigger, 'pre_restore');
      assert.equal(preRestore.body.label, null);
      assert.deepEqual(preRestore.body.createdBy, personOf(cast.editor));
      assert.match(preRestore.body.markdown, /# Version three\n\nUnsaved edits\./);
      const [preRestoreRow] = await sql<{ state: Buffer }>(`SELECT state FROM page_versions WHERE id = :id`, { id: response.body.preRestoreVersionId });
      assert.deepEqual(yjsUpdateToDocument(preRestoreRow!.state), yjsUpdateToDocument(currentBefore.state));

      // The page now holds version one: in the log and in the render cache.
      const expected = markdownToDocument('# Version one\n\nThe original text.');
      const currentAfter = await loadDocumentState(pool, pageId);
      assert.deepEqual(yjsUpdateToDocument(currentAfter.state), expected);
      const [content] = await sql<{ markdown: string; plain_text: string }>(`SELECT markdown, plain_text FROM page_contents WHERE page_id = :pageId`, { pageId });
      assert.match(content!.markdown, /^# Version one\n\nThe original text\.\n?$/);
      assert.doesNotMatch(content!.plain_text, /Unsaved/);

      // Append-only: exactly one new log row, every earlier row untouched; one new version, the others unchanged.
      const logAfter = await loadPageUpdates(pool, pageId);
      assert.equal(logAfter.length, logBefore.length + 1);
      assert.deepEqual(logAfter.slice(0, -1), logBefore);
      const versionsAfter = await sql<{ id: string; state: Buffer; label: string | null }>(`SELECT id, state, label FROM page_versions WHERE page_id = :pageId ORDER BY id`, { pageId });
      assert.equal(versionsAfter.length, versionsBefore.length + 1);
      assert.deepEqual(versionsAfter.filter((row) => row.id !== response.body.preRestoreVersionId), versionsBefore);
      assert.ok(versionsBefore.some((row) => row.id === v2.id));

      // The open editor converges by applying the rows it has not seen.
      for (const row of await loadPageUpdates(pool, pageId, currentBefore.lastId)) Y.applyUpdate(liveEditor, row.update);
      assert.deepEqual(yDocToDocument(liveEditor), expected);
      liveEditor.destroy();

      // The listed history now starts with the pre-restore version; restoring v2 works the same way.
      const listed = (await cast.reader.client.get(`/pages/${pageId}/versions`)).body.items.map((item: { id: string }) => item.id);
      assert.deepEqual(listed, [response.body.preRestoreVersionId, v2.id, v1.id]);
      const again = await cast.owner.client.post(`/versions/${v2.id}/restore`);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(yjsUpdateToDocument((await loadDocumentState(pool, pageId)).state), markdownToDocument('# Version two\n\nRewritten text.'));
      assert.equal(await versionCount(pageId), 4);
    });

    test('refusals: 401 anonymous, 403 reader, 404 outsider and missing version; nothing changes', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Guarded');
      const version = (await createManual(cast.editor.client, pageId, {})).body;
      await edit(pageId, 'Changed');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
      const logLength = (await loadPageUpdates(pool, pageId)).length;

      assertError(await cast.anonymous.post(`/versions/${version.id}/restore`), 401, 'unauthenticated');
      assertError(await cast.reader.client.post(`/versions/${version.id}/restore`), 403, 'forbidden');
      assertError(await cast.outsider.client.post(`/versions/${version.id}/restore`), 403, 'forbidden');
      const hiddenPage = await pageWith(await cast.seedTeamPond(), 'Hidden');
      const hiddenVersion = (await createManual(cast.owner.client, hiddenPage, {})).body;
      assertError(await cast.outsider.client.post(`/versions/${hiddenVersion.id}/restore`), 404, 'not_found');
      assertError(await cast.editor.client.post(`/versions/${MISSING_UUID}/restore`), 404, 'not_found');
      assertError(await cast.editor.client.post(`/versions/not-a-uuid/restore`), 404, 'not_found');

      assert.equal((await loadPageUpdates(pool, pageId)).length, logLength);
      assert.equal(await versionCount(pageId), 1);
      assert.equal(await versionCount(hiddenPage), 1);
    });
  });

  describe('contributors', () => {
    test('a version consumes who edited since the last one and shows their names; deleted users drop out', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Shared text');
      const gone = await User.create({ username: `gone${Date.now()}`, email: `gone${Date.now()}@example.org`, displayName: 'Gone Soon', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
      await cast.instance.services.sequelize.query(
        `INSERT INTO page_contributors (page_id, user_id, last_edit_at) VALUES
           (:pageId, :first, now() - interval '2 minutes'), (:pageId, :second, now() - interval '1 minute')`,
        { replacements: { pageId, first: gone.id, second: cast.editor.user.id } },
      );

      const created = await createManual(cast.owner.client, pageId, { label: 'with contributors' });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.contributors, [
        { id: gone.id, displayName: 'Gone Soon' },
        personOf(cast.editor),
      ]);
      assert.deepEqual(created.body.createdBy, personOf(cast.owner));
      assert.deepEqual(await sql(`SELECT user_id FROM page_contributors WHERE page_id = :pageId`, { pageId }), [], 'consumed');
      const [row] = await sql<{ contributor_ids: string[] }>(`SELECT contributor_ids FROM page_versions WHERE id = :id`, { id: created.body.id });
      assert.deepEqual(row!.contributor_ids, [gone.id, cast.editor.user.id]);

      // The next version has no contributors: nobody edited since.
      assert.deepEqual((await createManual(cast.owner.client, pageId, {})).body.contributors, []);

      // A version created by the user who is then deleted (e.g. their pre-restore snapshot) loses its creator too.
      const byGone = await createVersion(pool, { pageId, trigger: 'pre_restore', createdBy: gone.id, state: (await loadDocumentState(pool, pageId)).state });
      await gone.destroy();
      const detail = await cast.reader.client.get(`/versions/${created.body.id}`);
      assert.deepEqual(detail.body.contributors, [personOf(cast.editor)]);
      const listed = (await cast.reader.client.get(`/pages/${pageId}/versions`)).body.items;
      assert.deepEqual(listed.find((item: { id: string }) => item.id === created.body.id).contributors, detail.body.contributors);
      assert.equal(listed.find((item: { id: string }) => item.id === byGone.id).createdBy, null);
    });

    test('a restore counts as an edit: the restorer is a contributor of the next version', async () => {
      const pond = await cast.seedTeamPond();
      const pageId = await pageWith(pond, 'Before');
      await cast.instance.services.sequelize.query(`INSERT INTO page_contributors (page_id, user_id) VALUES (:pageId, :userId)`, {
        replacements: { pageId, userId: cast.owner.user.id },
      });
      const v1 = (await createManual(cast.owner.client, pageId, {})).body;
      assert.deepEqual(v1.contributors.map((person: { id: string }) => person.id), [cast.owner.user.id]);
      await edit(pageId, 'After');
      const restored = await cast.editor.client.post(`/versions/${v1.id}/restore`);
      assert.equal(restored.status, 200, restored.text);
      const next = (await createManual(cast.owner.client, pageId, {})).body;
      assert.deepEqual(next.contributors, [personOf(cast.editor)]);
    });
  });
});
