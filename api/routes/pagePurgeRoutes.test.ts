/**
 * Purging trashed pages and the pond's trash list through HTTP (spec, States: Page): what a
 * purge takes with it (favorites, watches, labels, page grants, attachments and their bytes,
 * so the quota is released), its trashed children moving up still restorable; the list's
 * grouping by trash action, its paging and who may see what. Trash and restore:
 * pageTrashRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { storedFilePath } from '../files/fileStore.ts';
import { Page } from '../models/index.ts';
import { seedGrant, seedLabel, seedPageLabels } from '../testing/accessFixtures.ts';
import { createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { buildPageTree, liveOutline, type PageShape } from '../testing/pageTreeFixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, PAGE_VIEW_KEYS, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

interface TrashEntry {
  trashedAt: string;
  trashedBy: { id: string; displayName: string } | null;
  pages: { id: string }[];
}

describe('page purge and the trash list', () => {
  const cast = usePondCast();

  const trash = (client: TestClient, pageId: string, mode = 'promote') => client.request('DELETE', `/pages/${pageId}?mode=${mode}`);
  const purge = (client: TestClient, pageId: string) => client.request('DELETE', `/pages/${pageId}/purge`);
  const trashList = (client: TestClient, pondId: string, query = '') => client.get(`/ponds/${pondId}/trash${query ? `?${query}` : ''}`);
  const build = (pondId: string, shape: PageShape) => buildPageTree(cast.editor.client, pondId, shape);
  const outline = (pondId: string) => liveOutline(cast.instance.services.sequelize, pondId);

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return cast.instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  async function count(query: string, replacements: Record<string, unknown>): Promise<number> {
    const [row] = await sql<{ count: number }>(query, replacements);
    return Number(row!.count);
  }

  async function pageRow(pageId: string) {
    const rows = await sql<{ parent_id: string | null; trashed_at: Date | null }>(`SELECT parent_id, trashed_at FROM pages WHERE id = :pageId`, { pageId });
    return rows[0] ?? null;
  }

  /** An attachment row of `size` bytes on the page, with its bytes on disk; returns the path. */
  async function seedFile(pondId: string, pageId: string, size: number): Promise<string> {
    const [row] = await sql<{ id: string }>(
      `INSERT INTO files (pond_id, page_id, extension, content_type, size_bytes) VALUES (:pondId, :pageId, 'pdf', 'application/pdf', :size) RETURNING id`,
      { pondId, pageId, size },
    );
    const file = storedFilePath(cast.instance.services.config.dataDir, row!.id);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, Buffer.alloc(size, 7));
    return file;
  }

  const storageUsed = (pondId: string) => count(`SELECT coalesce(sum(size_bytes), 0)::int AS count FROM files WHERE pond_id = :pondId`, { pondId });

  describe('DELETE /pages/:id/purge', () => {
    test('only a trashed page: 409 when live, then 204 and the row is gone', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Doomed: {}, Other: {} });
      assertError(await purge(cast.editor.client, id('Doomed')), 409, 'page_not_trashed');
      assert.ok(await pageRow(id('Doomed')));
      assert.equal((await trash(cast.editor.client, id('Doomed'))).status, 200);
      const response = await purge(cast.editor.client, id('Doomed'));
      assert.equal(response.status, 204, response.text);
      assert.equal(response.text, '');
      assert.equal(await pageRow(id('Doomed')), null);
      assert.equal(await outline(pond.id), 'Other');
      assertError(await purge(cast.editor.client, id('Doomed')), 404, 'not_found');
      assertError(await cast.editor.client.get(`/pages/${id('Doomed')}`), 404, 'not_found');
    });

    test('its trashed children move up to its parent at its place, stay trashed and can be restored there', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { S1: {}, X: { K1: { k: {} }, K2: {} }, S2: {} } });
      const trashed = await trash(cast.editor.client, id('X'), 'subtree');
      assert.equal(trashed.status, 200, trashed.text);
      assert.equal((await purge(cast.editor.client, id('X'))).status, 204);
      for (const title of ['K1', 'K2']) {
        const row = await pageRow(id(title));
        assert.equal(row?.parent_id, id('R'), `${title} moved up to R`);
        assert.equal(row?.trashed_at?.toISOString(), trashed.body.trashedAt, `${title} stays trashed`);
      }
      assert.equal((await pageRow(id('k')))?.parent_id, id('K1'));
      assert.equal(await outline(pond.id), 'R[S1 S2]');
      const restoredK2 = await cast.editor.client.post(`/pages/${id('K2')}/restore`);
      assert.equal(restoredK2.status, 200, restoredK2.text);
      assert.equal(restoredK2.body.page.parentId, id('R'));
      assert.equal(await outline(pond.id), 'R[S1 K2 S2]');
      const restoredK1 = await cast.editor.client.post(`/pages/${id('K1')}/restore`);
      assert.equal(restoredK1.status, 200, restoredK1.text);
      assert.deepEqual([...restoredK1.body.restoredPageIds].sort(), [id('K1'), id('k')].sort());
      assert.equal(await outline(pond.id), 'R[S1 K1[k] K2 S2]');
    });

    test('purging the trashed parent a restored page waits for: the page stays where it waits, the rest moves up', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { P: {}, A: { A1: {}, B: { B1: {}, C: { C1: {} }, B2: {} }, A2: {} }, Q: {} });
      assert.equal((await trash(cast.editor.client, id('A'), 'subtree')).status, 200);
      assert.equal((await cast.editor.client.post(`/pages/${id('C')}/restore`)).status, 200);
      assert.equal(await outline(pond.id), 'P C[C1] Q');
      assert.equal((await purge(cast.editor.client, id('B'))).status, 204);
      assert.equal((await pageRow(id('B1')))?.parent_id, id('A'));
      const restored = await cast.editor.client.post(`/pages/${id('A')}/restore`);
      assert.equal(restored.status, 200, restored.text);
      assert.deepEqual([...restored.body.restoredPageIds].sort(), ['A', 'A1', 'A2', 'B1', 'B2'].map(id).sort());
      assert.equal(await outline(pond.id), 'P A[A1 B1 B2 A2] C[C1] Q');
    });

    test('favorites and watches stay while trashed; purge takes them, labels, page grants and attachments (bytes and quota)', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Doomed: {}, Kept: {} });
      const [doomed, kept] = [id('Doomed'), id('Kept')];
      for (const user of [cast.editor, cast.reader]) {
        await sql(`INSERT INTO favorites (user_id, page_id, pond_id) VALUES (:userId, :pageId, :pondId) RETURNING user_id`, { userId: user.user.id, pageId: doomed, pondId: pond.id });
        // The editor created the page and watches it already (autoWatchOwnPages).
        await sql(`INSERT INTO watches (user_id, target_type, pond_id, page_id) VALUES (:userId, 'page', :pondId, :pageId) ON CONFLICT DO NOTHING RETURNING id`, { userId: user.user.id, pageId: doomed, pondId: pond.id });
      }
      await sql(`INSERT INTO watches (user_id, target_type, pond_id) VALUES (:userId, 'pond', :pondId) RETURNING id`, { userId: cast.editor.user.id, pondId: pond.id });
      await seedPageLabels((await Page.findByPk(doomed))!, [await seedLabel(pond.id, 'Topic')]);
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.outsider.user.id }, role: 'reader', scope: { type: 'page', id: doomed } });
      const doomedFiles = [await seedFile(pond.id, doomed, 1000), await seedFile(pond.id, doomed, 24)];
      const keptFile = await seedFile(pond.id, kept, 50);
      assert.equal(await storageUsed(pond.id), 1074);

      const onPage = {
        favorites: () => count(`SELECT count(*) FROM favorites WHERE page_id = :doomed`, { doomed }),
        watches: () => count(`SELECT count(*) FROM watches WHERE page_id = :doomed`, { doomed }),
        labels: () => count(`SELECT count(*) FROM page_labels WHERE page_id = :doomed`, { doomed }),
        grants: () => count(`SELECT count(*) FROM grants WHERE scope_page_id = :doomed`, { doomed }),
        files: () => count(`SELECT count(*) FROM files WHERE page_id = :doomed`, { doomed }),
      };
      const counts = async () => Object.fromEntries(await Promise.all(Object.entries(onPage).map(async ([name, read]) => [name, await read()] as const)));

      assert.equal((await trash(cast.editor.client, doomed)).status, 200);
      assert.deepEqual(await counts(), { favorites: 2, watches: 2, labels: 1, grants: 1, files: 2 }, 'a trashed page keeps everything');
      assert.equal(await storageUsed(pond.id), 1074, 'trash does not release quota');

      assert.equal((await purge(cast.editor.client, doomed)).status, 204);
      assert.deepEqual(await counts(), { favorites: 0, watches: 0, labels: 0, grants: 0, files: 0 });
      for (const file of doomedFiles) assert.equal(existsSync(file), false, `${file} is deleted`);
      assert.equal(existsSync(keptFile), true, 'other pages keep their bytes');
      assert.equal(await storageUsed(pond.id), 50, 'quota released');
      assert.equal(await count(`SELECT count(*) FROM watches WHERE pond_id = :pondId AND target_type = 'pond'`, { pondId: pond.id }), 1, 'the pond watch stays');
      assert.equal((await cast.editor.client.get(`/pages/${kept}`)).status, 200);
    });

    test('refusals: reader, outsider and a page-level deny 404, anonymous 401, missing 404; the page stays', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Binned: {} });
      assert.equal((await trash(cast.editor.client, id('Binned'))).status, 200);
      assertError(await purge(cast.reader.client, id('Binned')), 404, 'not_found');
      assertError(await purge(cast.outsider.client, id('Binned')), 404, 'not_found');
      assertError(await purge(cast.anonymous, id('Binned')), 401, 'unauthenticated');
      assertError(await purge(cast.editor.client, MISSING_UUID), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor', scope: { type: 'page', id: id('Binned') }, effect: 'deny' });
      assertError(await purge(cast.editor.client, id('Binned')), 404, 'not_found');
      assert.ok((await pageRow(id('Binned')))?.trashed_at);
      assert.equal((await purge(cast.owner.client, id('Binned'))).status, 204);
    });
  });

  describe('GET /ponds/:id/trash', () => {
    test('one entry per trash action, newest first: a subtree is one entry, its top page first, then its descendants in tree order', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { R: { A: { B: { C: {} }, D: {} }, X: {}, Y: {} } });
      const subtree = await trash(cast.editor.client, id('A'), 'subtree');
      const single = await trash(cast.owner.client, id('X'));
      assert.equal(subtree.status, 200, subtree.text);
      assert.equal(single.status, 200, single.text);
      for (const client of [cast.editor.client, cast.owner.client]) {
        const response = await trashList(client, pond.id);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(Object.keys(response.body).sort(), ['items', 'nextCursor']);
        assert.equal(response.body.nextCursor, null);
        const [newest, older] = response.body.items as TrashEntry[];
        assert.equal(response.body.items.length, 2);
        assert.equal(newest?.trashedAt, single.body.trashedAt);
        assert.deepEqual(newest?.trashedBy, { id: cast.owner.user.id, displayName: cast.owner.credentials.displayName });
        assert.deepEqual(newest?.pages.map((page) => page.id), [id('X')]);
        assert.equal(older?.trashedAt, subtree.body.trashedAt);
        assert.deepEqual(older?.trashedBy, { id: cast.editor.user.id, displayName: cast.editor.credentials.displayName });
        assert.deepEqual(older?.pages.map((page) => page.id), ['A', 'B', 'C', 'D'].map(id));
        for (const page of [...newest!.pages, ...older!.pages]) assert.deepEqual(Object.keys(page).sort(), PAGE_VIEW_KEYS);
      }
      // Restoring part of a group leaves the rest as one entry; a restored or purged page leaves the list.
      assert.equal((await cast.editor.client.post(`/pages/${id('B')}/restore`)).status, 200);
      assert.equal((await purge(cast.editor.client, id('X'))).status, 204);
      const after = await trashList(cast.editor.client, pond.id);
      assert.deepEqual((after.body.items as TrashEntry[]).map((entry) => entry.pages.map((page) => page.id)), [[id('A'), id('D')]]);
    });

    test('who may look: reader 403, outsider and anonymous 404 on a private pond, anonymous 401 on a public one', async () => {
      const pond = await cast.seedTeamPond();
      assertError(await trashList(cast.reader.client, pond.id), 403, 'forbidden');
      assertError(await trashList(cast.outsider.client, pond.id), 404, 'not_found');
      assertError(await trashList(cast.anonymous, pond.id), 404, 'not_found');
      assertError(await trashList(cast.editor.client, MISSING_UUID), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
      assertError(await trashList(cast.anonymous, pond.id), 401, 'unauthenticated');
      assert.equal((await trashList(cast.editor.client, pond.id)).status, 200);
    });

    test('lists only pages the caller may write: a page-level deny hides one, a page-scope editor sees just its page', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { Open: {}, Denied: {}, Scoped: {} });
      await resetRateLimits(cast.instance);
      const scoped = await createVerifiedUser(cast.instance);
      await seedGrant(pond.id, { subject: { type: 'user', id: scoped.user.id }, role: 'editor', scope: { type: 'page', id: id('Scoped') } });
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor', scope: { type: 'page', id: id('Denied') }, effect: 'deny' });
      for (const title of ['Open', 'Denied', 'Scoped']) assert.equal((await trash(cast.owner.client, id(title))).status, 200);
      const listed = async (client: TestClient) => {
        const response = await trashList(client, pond.id);
        assert.equal(response.status, 200, response.text);
        return (response.body.items as TrashEntry[]).flatMap((entry) => entry.pages.map((page) => page.id));
      };
      assert.deepEqual(await listed(cast.owner.client), ['Scoped', 'Denied', 'Open'].map(id));
      assert.deepEqual(await listed(cast.editor.client), ['Scoped', 'Open'].map(id));
      assert.deepEqual(await listed(scoped.client), [id('Scoped')]);
    });

    test('limit=1 pages through every entry with nextCursor; a bad cursor or limit is 400', async () => {
      const pond = await cast.seedTeamPond();
      const id = await build(pond.id, { One: {}, Two: {}, Three: {} });
      for (const title of ['One', 'Two', 'Three']) assert.equal((await trash(cast.editor.client, id(title))).status, 200);
      const full = await trashList(cast.editor.client, pond.id);
      assert.deepEqual((full.body.items as TrashEntry[]).map((entry) => entry.pages[0]!.id), ['Three', 'Two', 'One'].map(id));
      const walked: TrashEntry[] = [];
      let cursor: string | null = null;
      for (let round = 0; round < 5; round += 1) {
        const response = await trashList(cast.editor.client, pond.id, `limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.items.length, 1);
        walked.push(...response.body.items);
        cursor = response.body.nextCursor;
        if (cursor === null) break;
      }
      assert.deepEqual(walked, full.body.items);
      assertFieldError(await trashList(cast.editor.client, pond.id, 'cursor=garbage'), 'query.cursor');
      assertFieldError(await trashList(cast.editor.client, pond.id, `cursor=${Buffer.from(JSON.stringify('2024-13-45 99:00:00')).toString('base64url')}`), 'query.cursor');
      assertFieldError(await trashList(cast.editor.client, pond.id, 'limit=0'), 'query.limit');
      assertFieldError(await trashList(cast.editor.client, pond.id, 'limit=201'), 'query.limit');
    });
  });
});
