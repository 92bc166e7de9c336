/**
 * Overrides set through the admin quota routes are what the pond enforces: seat quotas when
 * members are added or promoted (10 parallel adds at a limit of 3 seats: exactly 3 succeed,
 * for editor and reader seats alike), and `max_file_bytes` / `storage_bytes` at upload
 * (413 `quota_exceeded` naming the quota), with the pond owner's user override as the second
 * rung whoever uploads.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { QuotaOverride, User } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { uploadFile } from '../testing/uploadFixtures.ts';

let seeded = 0;
async function seedUser(): Promise<User> {
  seeded += 1;
  return User.create({ username: `seat${seeded}`, email: `seat${seeded}@example.org`, displayName: `Seat ${seeded}`, locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date() });
}

function assertError(response: { status: number; body: any; text: string }, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body?.error?.code, code, response.text);
}

describe('quota overrides are enforced', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let owner: Awaited<ReturnType<typeof createVerifiedUser>>;
  let editor: Awaited<ReturnType<typeof createVerifiedUser>>;
  const setOverride = async (targetType: 'pond' | 'user', targetId: string, quota: string, value: number | null) => {
    const response = await admin.request('PUT', `/admin/quotas/${targetType}/${targetId}/${quota}`, { body: { value } });
    assert.equal(response.status, 200, response.text);
  };
  const seatsOf = async (pondId: string, role: string) => {
    const [row] = await instance.services.sequelize.query<{ count: number }>(
      `SELECT count(DISTINCT subject_user_id)::int AS count FROM grants WHERE pond_id = :pondId AND scope_type = 'pond' AND subject_type = 'user' AND effect = 'allow' AND role = :role`,
      { replacements: { pondId, role }, type: QueryTypes.SELECT },
    );
    return row!.count;
  };
  const addInParallel = async (pondId: string, role: 'editor' | 'reader', count: number) => {
    const users = await Promise.all(Array.from({ length: count }, () => seedUser()));
    return Promise.all(users.map((user) => owner.client.post(`/ponds/${pondId}/members`, { user: user.username, role })));
  };

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    owner = await createVerifiedUser(instance);
    editor = await createVerifiedUser(instance);
    // Generous defaults: every refusal below comes from an override.
    assert.equal((await admin.patch('/admin/settings', { 'quota.editors_per_pond': 100, 'quota.readers_per_pond': 100, 'quota.storage_bytes': 10_000_000, 'quota.max_file_bytes': 1_000_000 })).status, 200);
  });
  after(() => instance.close());
  beforeEach(async () => {
    await resetRateLimits(instance);
    await QuotaOverride.destroy({ where: {} });
  });

  describe('seats', () => {
    test('10 parallel reader adds at a pond override of 3 reader seats: exactly 3 succeed', async () => {
      const pond = await seedSharedPond(owner.user.id);
      await setOverride('pond', pond.id, 'readers_per_pond', 3);
      const responses = await addInParallel(pond.id, 'reader', 10);
      assert.equal(responses.filter((response) => response.status === 201).length, 3, responses.map((response) => response.status).join(','));
      const refused = responses.filter((response) => response.status !== 201);
      assert.equal(refused.length, 7);
      for (const response of refused) {
        assertError(response, 409, 'quota_exceeded');
        assert.deepEqual(response.body.error.details, { quota: 'readers_per_pond', limit: 3, used: 3 });
      }
      assert.equal(await seatsOf(pond.id, 'reader'), 3);
    });

    test("10 parallel editor adds at the owner's user override of 3 editor seats: the owner holds one, exactly 2 succeed", async () => {
      const pond = await seedSharedPond(owner.user.id);
      await setOverride('user', owner.user.id, 'editors_per_pond', 3);
      const responses = await addInParallel(pond.id, 'editor', 10);
      assert.equal(responses.filter((response) => response.status === 201).length, 2);
      for (const response of responses.filter((candidate) => candidate.status !== 201)) assertError(response, 409, 'quota_exceeded');
      // The pond admin (owner) takes an editor seat: 3 in all, never more.
      assert.equal((await seatsOf(pond.id, 'editor')) + (await seatsOf(pond.id, 'pond_admin')), 3);
    });

    test('10 parallel editor adds at a pond override of 4 (owner included): exactly 3 succeed, the pond override beating a larger user override', async () => {
      const pond = await seedSharedPond(owner.user.id);
      await setOverride('user', owner.user.id, 'editors_per_pond', 50);
      await setOverride('pond', pond.id, 'editors_per_pond', 4);
      const responses = await addInParallel(pond.id, 'editor', 10);
      assert.equal(responses.filter((response) => response.status === 201).length, 3);
      assert.equal(await seatsOf(pond.id, 'editor'), 3);
    });

    test('promoting a reader to editor at the editor limit is refused; an unlimited override lets it through', async () => {
      const pond = await seedSharedPond(owner.user.id);
      const reader = await seedUser();
      await seedGrant(pond.id, { subject: { type: 'user', id: reader.id }, role: 'reader' });
      await setOverride('pond', pond.id, 'editors_per_pond', 1);
      const refused = await owner.client.patch(`/ponds/${pond.id}/members/${reader.id}`, { role: 'editor' });
      assertError(refused, 409, 'quota_exceeded');
      assert.equal(refused.body.error.details.quota, 'editors_per_pond');
      assert.equal(await seatsOf(pond.id, 'reader'), 1);
      // Reader seats are checked too when a role moves into them.
      await setOverride('pond', pond.id, 'readers_per_pond', 1);
      assertError(await owner.client.post(`/ponds/${pond.id}/members`, { user: (await seedUser()).username, role: 'reader' }), 409, 'quota_exceeded');
      await setOverride('pond', pond.id, 'editors_per_pond', null);
      assert.equal((await owner.client.patch(`/ponds/${pond.id}/members/${reader.id}`, { role: 'editor' })).status, 200);
    });
  });

  describe('uploads', () => {
    const pondWithPage = async () => {
      const pond = await seedSharedPond(owner.user.id);
      await seedGrant(pond.id, { subject: { type: 'user', id: editor.user.id }, role: 'editor' });
      const page = await seedPage(pond.id, 'Ablage');
      return { pond, page };
    };
    const filesOf = async (pondId: string) => {
      const [row] = await instance.services.sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM files WHERE pond_id = :pondId`, { replacements: { pondId }, type: QueryTypes.SELECT });
      return row!.count;
    };

    test('max_file_bytes set on the pond: a larger upload is refused 413 quota_exceeded naming the quota, a smaller one is stored', async () => {
      const { pond, page } = await pondWithPage();
      await setOverride('pond', pond.id, 'max_file_bytes', 1000);
      const refused = await uploadFile(editor.client, page.id, 'gross.txt', 'x'.repeat(1001));
      assertError(refused, 413, 'quota_exceeded');
      assert.deepEqual(refused.body.error.details, { quota: 'max_file_bytes', limit: 1000 });
      assert.equal(await filesOf(pond.id), 0);
      assert.equal((await uploadFile(editor.client, page.id, 'klein.txt', 'x'.repeat(1000))).status, 201);
      assert.equal(await filesOf(pond.id), 1);
    });

    test("the pond owner's user override on max_file_bytes holds for another member's upload", async () => {
      const { pond, page } = await pondWithPage();
      await setOverride('user', owner.user.id, 'max_file_bytes', 500);
      // The uploader's own override does not widen what the pond takes.
      await setOverride('user', editor.user.id, 'max_file_bytes', null);
      const refused = await uploadFile(editor.client, page.id, 'gross.txt', 'x'.repeat(501));
      assertError(refused, 413, 'quota_exceeded');
      assert.equal(refused.body.error.details.quota, 'max_file_bytes');
      // A pond override of unlimited lifts it.
      await setOverride('pond', pond.id, 'max_file_bytes', null);
      assert.equal((await uploadFile(editor.client, page.id, 'gross.txt', 'x'.repeat(501))).status, 201);
    });

    test("storage_bytes from the owner's user override refuses the upload that would pass it", async () => {
      const { pond, page } = await pondWithPage();
      await setOverride('user', owner.user.id, 'storage_bytes', 1500);
      assert.equal((await uploadFile(editor.client, page.id, 'eins.txt', 'x'.repeat(1000))).status, 201);
      const refused = await uploadFile(editor.client, page.id, 'zwei.txt', 'x'.repeat(600));
      assertError(refused, 413, 'quota_exceeded');
      assert.deepEqual(refused.body.error.details, { quota: 'storage_bytes', limit: 1500 });
      assert.equal(await filesOf(pond.id), 1);
      const report = await admin.get(`/admin/quotas?pond=${pond.slug}`);
      const maxFile = report.body.quotas.find((row: any) => row.quota === 'max_file_bytes');
      // The largest upload the pond takes now is what the storage has left.
      assert.equal(maxFile.usage.allowedNow, 500);
    });
  });
});
