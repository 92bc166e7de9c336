/**
 * Trashing and restoring ponds through HTTP: who may (a pond admin or a Site Admin), idempotence,
 * the audit, search vectors cleared and refilled in step, a personal pond that cannot be trashed;
 * trashed ponds left out of the live list and listed with ?trashed=true to those who may restore
 * them; a trashed pond refuses changes.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { Pond } from '../models/index.ts';
import { reindexPages } from '../search/pageSearchIndex.ts';
import { seedPage } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { assertError, auditOf, fieldPaths, pondApiHelpers } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('pond trash', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  const { ownerWithPond, memberOf } = pondApiHelpers(() => instance);

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  async function vectorsOf(pondId: string): Promise<Map<string, boolean>> {
    const rows = await instance.services.sequelize.query<{ id: string; empty: boolean }>(
      `SELECT id, search_vector IS NULL AS empty FROM pages WHERE pond_id = :pondId`,
      { replacements: { pondId }, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((row) => [row.id, row.empty]));
  }

  describe('GET /ponds', () => {
    test('a trashed personal pond is not listed', async () => {
      const { client, user } = await createVerifiedUser(instance);
      await Pond.update({ trashedAt: new Date() }, { where: { ownerId: user.id } });
      const response = await client.get('/ponds');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.items, []);
    });

    test('?trashed=true lists the trashed ponds the caller may restore: its admins and Site Admins, not its editors', async () => {
      const { client: owner, pond } = await ownerWithPond();
      const editor = await memberOf(pond.id, 'editor');
      assert.equal((await owner.post(`/ponds/${pond.id}/trash`)).status, 200);

      const ownerLive = await owner.get('/ponds');
      assert.ok(!ownerLive.body.items.some((item: { id: string }) => item.id === pond.id), 'not among the live ponds');
      const ownerTrash = await owner.get('/ponds?trashed=true');
      assert.equal(ownerTrash.status, 200, ownerTrash.text);
      const listed = ownerTrash.body.items.find((item: { id: string }) => item.id === pond.id);
      assert.ok(listed, 'the pond admin sees it in the trash');
      assert.equal(listed.role, 'pond_admin');
      assert.equal(typeof listed.trashedAt, 'string');
      assert.equal(ownerTrash.body.nextCursor, null);

      for (const path of ['/ponds', '/ponds?trashed=true']) {
        const listing = await editor.client.get(path);
        assert.equal(listing.status, 200);
        assert.ok(!listing.body.items.some((item: { id: string }) => item.id === pond.id), `editor does not see it in ${path}`);
      }
      const adminTrash = await admin.get('/ponds?trashed=true');
      const adminListed = adminTrash.body.items.find((item: { id: string }) => item.id === pond.id);
      assert.ok(adminListed, 'a Site Admin sees every trashed pond');
      assert.equal(adminListed.role, null, 'a Site Admin is not a member by bypass');
    });

    test('?trashed=maybe answers 400 validation_failed', async () => {
      const { client } = await createVerifiedUser(instance);
      const response = await client.get('/ponds?trashed=maybe');
      assertError(response, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(response), ['query.trashed']);
    });
  });

  describe('PATCH /ponds/:id', () => {
    test('a trashed pond answers 409 pond_trashed', async () => {
      const { client, pond } = await ownerWithPond();
      assert.equal((await client.post(`/ponds/${pond.id}/trash`)).status, 200);
      assertError(await client.patch(`/ponds/${pond.id}`, { name: 'While trashed' }), 409, 'pond_trashed');
      assert.equal((await Pond.findByPk(pond.id))!.name, pond.name);
    });
  });

  describe('POST /ponds/:id/trash and /restore', () => {
    test('trashing hides the pond from its editors but not from its admin or a Site Admin, who can restore it', async () => {
      const { client: owner, user: ownerUser, pond } = await ownerWithPond();
      const editor = await memberOf(pond.id, 'editor');
      assert.equal((await editor.client.get(`/ponds/${pond.id}`)).status, 200);

      const trashed = await owner.post(`/ponds/${pond.id}/trash`);
      assert.equal(trashed.status, 200, trashed.text);
      assert.equal(typeof trashed.body.trashedAt, 'string');
      assert.equal(trashed.body.role, 'pond_admin');
      assert.equal((await Pond.findByPk(pond.id))!.trashedBy, ownerUser.id);

      assertError(await editor.client.get(`/ponds/${pond.id}`), 404, 'not_found');
      assert.ok(!(await editor.client.get('/ponds')).body.items.some((item: { id: string }) => item.id === pond.id));
      assertError(await editor.client.post(`/ponds/${pond.id}/restore`), 404, 'not_found');
      assert.equal((await owner.get(`/ponds/${pond.id}`)).body.trashedAt, trashed.body.trashedAt);
      assert.equal((await admin.get(`/ponds/${pond.id}`)).status, 200);

      const [trashAudit] = await auditOf('pond.trashed', pond.id);
      assert.ok(trashAudit, 'pond.trashed is audited');
      assert.equal(trashAudit.actorId, ownerUser.id);

      const restored = await admin.post(`/ponds/${pond.id}/restore`);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.body.trashedAt, null);
      assert.equal((await Pond.findByPk(pond.id))!.trashedBy, null);
      assert.equal((await editor.client.get(`/ponds/${pond.id}`)).status, 200);
      assert.ok((await editor.client.get('/ponds')).body.items.some((item: { id: string }) => item.id === pond.id));
      const [restoreAudit] = await auditOf('pond.restored', pond.id);
      assert.ok(restoreAudit, 'pond.restored is audited');
      assert.equal(restoreAudit.actorId, adminId);
      assert.equal(restoreAudit.actorName, 'admin');
    });

    test('trash and restore are idempotent: a second call answers 200 and changes nothing', async () => {
      const { client, pond } = await ownerWithPond();
      assert.equal((await client.post(`/ponds/${pond.id}/restore`)).status, 200, 'restoring a live pond');
      const first = await client.post(`/ponds/${pond.id}/trash`);
      const second = await client.post(`/ponds/${pond.id}/trash`);
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.trashedAt, first.body.trashedAt);
      assert.equal((await auditOf('pond.trashed', pond.id)).length, 1);
      assert.equal((await client.post(`/ponds/${pond.id}/restore`)).status, 200);
      const again = await client.post(`/ponds/${pond.id}/restore`);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.trashedAt, null);
      assert.equal((await auditOf('pond.restored', pond.id)).length, 1);
    });

    test('trashing clears the search vector of every page; restoring refills only the pages that were live', async () => {
      const { client, user, pond } = await ownerWithPond();
      const live = await seedPage(pond.id, 'Live page', { createdBy: user.id });
      const other = await seedPage(pond.id, 'Another live page', { createdBy: user.id });
      const inTrash = await seedPage(pond.id, 'Trashed page', { createdBy: user.id, trashed: true });
      await instance.services.sequelize.transaction((transaction) => reindexPages([live.id, other.id, inTrash.id], transaction));
      assert.deepEqual(Object.fromEntries(await vectorsOf(pond.id)), { [live.id]: false, [other.id]: false, [inTrash.id]: true });

      assert.equal((await client.post(`/ponds/${pond.id}/trash`)).status, 200);
      assert.deepEqual(Object.fromEntries(await vectorsOf(pond.id)), { [live.id]: true, [other.id]: true, [inTrash.id]: true });

      assert.equal((await client.post(`/ponds/${pond.id}/restore`)).status, 200);
      assert.deepEqual(Object.fromEntries(await vectorsOf(pond.id)), { [live.id]: false, [other.id]: false, [inTrash.id]: true });
    });

    test('a personal pond cannot be trashed: 409 personal_pond_protected, even for a Site Admin', async () => {
      const { client, user } = await createVerifiedUser(instance);
      const personal = (await Pond.findOne({ where: { ownerId: user.id, kind: 'personal' } }))!;
      assertError(await client.post(`/ponds/${personal.id}/trash`), 409, 'personal_pond_protected');
      assertError(await admin.post(`/ponds/${personal.id}/trash`), 409, 'personal_pond_protected');
      assert.equal((await Pond.findByPk(personal.id))!.trashedAt, null);
    });

    test('401 anonymously, 404 for a non-member and a malformed id, 403 for a reader or editor', async () => {
      const { client: owner, pond } = await ownerWithPond();
      const stranger = await createVerifiedUser(instance);
      const reader = await memberOf(pond.id, 'reader');
      const editor = await memberOf(pond.id, 'editor');
      for (const action of ['trash', 'restore']) {
        assertError(await new TestClient(instance.baseUrl).post(`/ponds/${pond.id}/${action}`), 401, 'unauthenticated');
        assertError(await stranger.client.post(`/ponds/${pond.id}/${action}`), 404, 'not_found');
        assertError(await stranger.client.post(`/ponds/not-a-uuid/${action}`), 404, 'not_found');
        assertError(await reader.client.post(`/ponds/${pond.id}/${action}`), 403, 'forbidden');
        assertError(await editor.client.post(`/ponds/${pond.id}/${action}`), 403, 'forbidden');
      }
      assert.equal((await Pond.findByPk(pond.id))!.trashedAt, null);
      // Once trashed, the stranger still gets 404 on restore.
      assert.equal((await owner.post(`/ponds/${pond.id}/trash`)).status, 200);
      assertError(await stranger.client.post(`/ponds/${pond.id}/restore`), 404, 'not_found');
      assert.notEqual((await Pond.findByPk(pond.id))!.trashedAt, null);
    });
  });
});
