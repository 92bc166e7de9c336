/**
 * The admin quota routes through HTTP: who may call them (401, 403), what they refuse (400
 * for a bad quota, value, target type or lookup; 404 for an unknown user or pond), the
 * report (`override` as `{ value }` or null, default, effective with its rung, usage), the
 * ladder for every quota with a pond override, with only the owner's user override and with
 * none, and the audit of every set and clear (a write that changes nothing is not audited).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, QuotaOverride, User, type Pond } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { uploadFile } from '../testing/uploadFixtures.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const QUOTAS = ['editors_per_pond', 'readers_per_pond', 'storage_bytes', 'max_file_bytes'] as const;
const DEFAULTS = { editors_per_pond: 40, readers_per_pond: 400, storage_bytes: 4_000_000, max_file_bytes: 400_000 };

function assertError(response: { status: number; body: any; text: string }, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body?.error?.code, code, response.text);
}

function rowOf(report: any, quota: string) {
  const row = report.quotas.find((candidate: any) => candidate.quota === quota);
  assert.ok(row, `a row for ${quota}`);
  return row;
}

describe('admin quota routes', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  let owner: Awaited<ReturnType<typeof createVerifiedUser>>;
  let plain: Awaited<ReturnType<typeof createVerifiedUser>>;
  let pond: Pond;
  const put = (client: TestClient, path: string, body: unknown) => client.request('PUT', path, { body });
  const del = (client: TestClient, path: string) => client.request('DELETE', path);

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
    owner = await createVerifiedUser(instance);
    plain = await createVerifiedUser(instance);
    pond = await seedSharedPond(owner.user.id, 'Seerosen');
    assert.equal((await admin.patch('/admin/settings', Object.fromEntries(Object.entries(DEFAULTS).map(([quota, value]) => [`quota.${quota}`, value])))).status, 200);
  });
  after(() => instance.close());
  beforeEach(async () => {
    await resetRateLimits(instance);
    await QuotaOverride.destroy({ where: {} });
  });

  describe('access and refusals', () => {
    const paths = () => ({ lookup: `/admin/quotas?pond=${pond.slug}`, write: `/admin/quotas/pond/${pond.id}/storage_bytes` });

    test('anonymous: 401 on every route', async () => {
      const anonymous = new TestClient(instance.baseUrl);
      assertError(await anonymous.get(paths().lookup), 401, 'unauthenticated');
      assertError(await put(anonymous, paths().write, { value: 5 }), 401, 'unauthenticated');
      assertError(await del(anonymous, paths().write), 401, 'unauthenticated');
    });

    test('signed in without Site Admin: 403 on every route, nothing written', async () => {
      assertError(await owner.client.get(paths().lookup), 403, 'forbidden');
      assertError(await put(owner.client, paths().write, { value: 5 }), 403, 'forbidden');
      assertError(await del(plain.client, paths().write), 403, 'forbidden');
      assert.equal(await QuotaOverride.count(), 0);
    });

    test('400 for a lookup with neither or both of user and pond', async () => {
      assertError(await admin.get('/admin/quotas'), 400, 'validation_failed');
      assertError(await admin.get(`/admin/quotas?user=${owner.user.username}&pond=${pond.slug}`), 400, 'validation_failed');
      assertError(await admin.get('/admin/quotas?user='), 400, 'validation_failed');
    });

    test('400 for an unknown quota, target type, a malformed id or a bad value; nothing written', async () => {
      assertError(await put(admin, `/admin/quotas/pond/${pond.id}/pages_per_pond`, { value: 5 }), 400, 'validation_failed');
      assertError(await put(admin, `/admin/quotas/group/${pond.id}/storage_bytes`, { value: 5 }), 400, 'validation_failed');
      assertError(await put(admin, `/admin/quotas/pond/not-a-uuid/storage_bytes`, { value: 5 }), 400, 'validation_failed');
      assertError(await del(admin, `/admin/quotas/user/${owner.user.id}/seats`), 400, 'validation_failed');
      for (const body of [{ value: -1 }, { value: 1.5 }, { value: '10' }, { value: true }, {}, { value: 2 ** 60 }]) {
        assertError(await put(admin, `/admin/quotas/pond/${pond.id}/storage_bytes`, body), 400, 'validation_failed');
      }
      assert.equal(await QuotaOverride.count(), 0);
    });

    test('404 for an unknown user or pond, by lookup and by id', async () => {
      assertError(await admin.get('/admin/quotas?user=nobody-here'), 404, 'not_found');
      assertError(await admin.get('/admin/quotas?user=nobody@example.org'), 404, 'not_found');
      assertError(await admin.get('/admin/quotas?pond=no-such-pond'), 404, 'not_found');
      assertError(await put(admin, `/admin/quotas/pond/${MISSING_ID}/storage_bytes`, { value: 5 }), 404, 'not_found');
      assertError(await put(admin, `/admin/quotas/user/${MISSING_ID}/storage_bytes`, { value: 5 }), 404, 'not_found');
      // The pond's id is not a user's: the target type decides where it is looked for.
      assertError(await put(admin, `/admin/quotas/user/${pond.id}/storage_bytes`, { value: 5 }), 404, 'not_found');
      assertError(await del(admin, `/admin/quotas/pond/${MISSING_ID}/storage_bytes`), 404, 'not_found');
      assert.equal(await QuotaOverride.count(), 0);
    });

    test('a deleted account is unknown', async () => {
      const gone = await createVerifiedUser(instance);
      await User.update({ status: 'deleted' }, { where: { id: gone.user.id } });
      assertError(await admin.get(`/admin/quotas?user=${gone.user.username}`), 404, 'not_found');
      assertError(await put(admin, `/admin/quotas/user/${gone.user.id}/storage_bytes`, { value: 5 }), 404, 'not_found');
    });
  });

  describe('the report and the ladder', () => {
    test('a pond without overrides: every quota at the instance default, override null, usage counted', async () => {
      const editor = await createVerifiedUser(instance);
      const team = await seedSharedPond(owner.user.id, 'Froschlaich');
      await seedGrant(team.id, { subject: { type: 'user', id: editor.user.id }, role: 'editor' });
      await seedGrant(team.id, { subject: { type: 'user', id: plain.user.id }, role: 'reader' });
      const page = await seedPage(team.id, 'Teich');
      assert.equal((await uploadFile(editor.client, page.id, 'a.txt', 'x'.repeat(300))).status, 201);
      assert.equal((await uploadFile(editor.client, page.id, 'b.txt', 'y'.repeat(700))).status, 201);

      const response = await admin.get(`/admin/quotas?pond=${team.slug.toUpperCase()}`);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.target, { type: 'pond', id: team.id, name: 'Froschlaich', slug: team.slug, owner: { id: owner.user.id, username: owner.user.username } });
      assert.deepEqual(response.body.quotas.map((row: any) => row.quota), [...QUOTAS]);
      for (const quota of QUOTAS) {
        const row = rowOf(response.body, quota);
        assert.equal(row.override, null, quota);
        assert.equal(row.default, DEFAULTS[quota], quota);
        assert.equal(row.effective, DEFAULTS[quota], quota);
        assert.equal(row.source, 'instance', quota);
        assert.deepEqual(row.usage.pond, { id: team.id, slug: team.slug, name: 'Froschlaich' });
      }
      // The owner (pond admin) and the editor take editor seats; the reader a reader seat.
      assert.equal(rowOf(response.body, 'editors_per_pond').usage.used, 2);
      assert.equal(rowOf(response.body, 'readers_per_pond').usage.used, 1);
      assert.equal(rowOf(response.body, 'storage_bytes').usage.used, 1000);
      assert.equal(rowOf(response.body, 'max_file_bytes').usage.used, 700);
      assert.equal(rowOf(response.body, 'max_file_bytes').usage.allowedNow, DEFAULTS.max_file_bytes);
    });

    for (const quota of QUOTAS) {
      test(`${quota}: the owner's user override beats the default, a pond override beats both, clearing steps back down`, async () => {
        const base = `/admin/quotas/pond/${pond.id}/${quota}`;
        const userPath = `/admin/quotas/user/${owner.user.id}/${quota}`;
        const lookup = () => admin.get(`/admin/quotas?pond=${pond.slug}`);

        const byUser = await put(admin, userPath, { value: 7 });
        assert.equal(byUser.status, 200, byUser.text);
        assert.deepEqual(byUser.body.target.type, 'user');
        assert.deepEqual(rowOf(byUser.body, quota).override, { value: 7 });
        assert.equal(rowOf(byUser.body, quota).effective, 7);
        let row = rowOf((await lookup()).body, quota);
        assert.deepEqual([row.override, row.default, row.effective, row.source], [null, DEFAULTS[quota], 7, 'user']);

        const byPond = await put(admin, base, { value: 3 });
        assert.equal(byPond.status, 200, byPond.text);
        row = rowOf(byPond.body, quota);
        assert.deepEqual([row.override, row.default, row.effective, row.source], [{ value: 3 }, DEFAULTS[quota], 3, 'pond']);

        // Unlimited is an override of its own, told apart from none.
        row = rowOf((await put(admin, base, { value: null })).body, quota);
        assert.deepEqual([row.override, row.effective, row.source], [{ value: null }, null, 'pond']);
        row = rowOf((await put(admin, base, { value: 0 })).body, quota);
        assert.deepEqual([row.override, row.effective], [{ value: 0 }, 0]);

        const cleared = await del(admin, base);
        assert.equal(cleared.status, 200, cleared.text);
        row = rowOf(cleared.body, quota);
        assert.deepEqual([row.override, row.effective, row.source], [null, 7, 'user']);
        row = rowOf((await del(admin, userPath)).body, quota);
        assert.deepEqual([row.override, row.effective, row.source], [null, DEFAULTS[quota], 'instance']);
        // The other quotas never moved.
        for (const other of QUOTAS.filter((name) => name !== quota)) assert.equal(rowOf((await lookup()).body, other).source, 'instance');
      });
    }

    test('a user looked up by e-mail: their override, and the usage of the busiest pond it governs', async () => {
      const busy = await seedSharedPond(owner.user.id, 'Busy');
      for (let i = 0; i < 3; i += 1) await seedGrant(busy.id, { subject: { type: 'user', id: (await createVerifiedUser(instance)).user.id }, role: 'reader' });
      const response = await admin.get(`/admin/quotas?user=${owner.credentials.email.toUpperCase()}`);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.target, { type: 'user', id: owner.user.id, name: owner.user.username, displayName: owner.credentials.displayName });
      const readers = rowOf(response.body, 'readers_per_pond');
      assert.deepEqual([readers.override, readers.effective, readers.source], [null, DEFAULTS.readers_per_pond, 'instance']);
      assert.equal(readers.usage.used, 3);
      assert.equal(readers.usage.pond.id, busy.id);
      const governed = readers.usage.ponds;
      // A pond with its own override is no longer governed by the user's rung.
      assert.equal((await put(admin, `/admin/quotas/pond/${busy.id}/readers_per_pond`, { value: 10 })).status, 200);
      const after = rowOf((await admin.get(`/admin/quotas?user=${owner.user.username}`)).body, 'readers_per_pond');
      assert.equal(after.usage.ponds, governed - 1);
      assert.notEqual(after.usage.pond?.id, busy.id);
    });
  });

  describe('audit', () => {
    const auditsOf = (action: string) => AuditEntry.findAll({ where: { action, actorId: adminId }, order: [['id', 'ASC']] });

    test('set, replace and clear are audited with target, quota and value; a no-op is not', async () => {
      const path = `/admin/quotas/pond/${pond.id}/max_file_bytes`;
      const setBefore = (await auditsOf('admin.quota_set')).length;
      const clearedBefore = (await auditsOf('admin.quota_cleared')).length;
      assert.equal((await put(admin, path, { value: 1000 })).status, 200);
      assert.equal((await put(admin, path, { value: 1000 })).status, 200);
      assert.equal((await put(admin, path, { value: null })).status, 200);
      const sets = (await auditsOf('admin.quota_set')).slice(setBefore);
      assert.equal(sets.length, 2, 'setting the same value again is not audited');
      assert.deepEqual(sets[0]!.details, { targetType: 'pond', targetId: pond.id, targetName: pond.slug, quota: 'max_file_bytes', value: 1000, previous: null });
      assert.deepEqual(sets[1]!.details, { targetType: 'pond', targetId: pond.id, targetName: pond.slug, quota: 'max_file_bytes', value: null, previous: { value: 1000 } });

      assert.equal((await del(admin, path)).status, 200);
      assert.equal((await del(admin, path)).status, 200);
      const clears = (await auditsOf('admin.quota_cleared')).slice(clearedBefore);
      assert.equal(clears.length, 1, 'clearing where nothing is set is not audited');
      assert.deepEqual(clears[0]!.details, { targetType: 'pond', targetId: pond.id, targetName: pond.slug, quota: 'max_file_bytes', value: null });

      assert.equal((await put(admin, `/admin/quotas/user/${owner.user.id}/editors_per_pond`, { value: 2 })).status, 200);
      const userSet = (await auditsOf('admin.quota_set')).at(-1)!;
      assert.deepEqual(userSet.details, { targetType: 'user', targetId: owner.user.id, targetName: owner.user.username, quota: 'editors_per_pond', value: 2, previous: null });
      const stored = await QuotaOverride.findOne({ where: { userId: owner.user.id, quota: 'editors_per_pond' } });
      assert.equal(stored?.updatedBy, adminId);
    });

    test('parallel sets of one override are serialized: one row, and the audit trail chains every value to the one it replaced', async () => {
      const path = `/admin/quotas/pond/${pond.id}/readers_per_pond`;
      const before = (await auditsOf('admin.quota_set')).length;
      const values = [11, 12, 13, 14, 15, 16];
      const responses = await Promise.all(values.map((value) => put(admin, path, { value })));
      for (const response of responses) assert.equal(response.status, 200, response.text);
      const rows = await QuotaOverride.findAll({ where: { pondId: pond.id, quota: 'readers_per_pond' } });
      assert.equal(rows.length, 1);
      const sets = (await auditsOf('admin.quota_set')).slice(before);
      assert.equal(sets.length, values.length);
      // In the order they were written, each one's `previous` is the value before it.
      let previous: { value: number | null } | null = null;
      for (const entry of sets) {
        assert.deepEqual(entry.details.previous, previous);
        previous = { value: entry.details.value as number };
      }
      assert.deepEqual(previous, { value: rows[0]!.value });
    });
  });
});
