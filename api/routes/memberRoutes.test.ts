/**
 * Pond members through HTTP: the grouped list with seats, adding, re-roling and removing
 * members, the owner / last-admin / personal-pond rules, 401/403/404 for every route, and
 * seat quotas under concurrency (20 parallel adds never overrun a seat count, and neither
 * the member routes nor the grant routes get around them).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { AuditEntry, Grant, Pond, QuotaOverride, User } from '../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

let seeded = 0;
/** An account that only needs to exist (it never signs in). */
async function seedUser(displayName?: string): Promise<User> {
  seeded += 1;
  return User.create({
    username: `member${seeded}`,
    email: `member${seeded}@example.org`,
    displayName: displayName ?? `Member ${seeded}`,
    locale: null,
    status: 'ACTIVE',
    passwordHash: null,
    emailVerifiedAt: new Date(),
  });
}

async function latestAudit(action: string, userId: string): Promise<AuditEntry | undefined> {
  const entries = await AuditEntry.findAll({ where: { action }, order: [['id', 'DESC']] });
  return entries.find((entry) => entry.details.userId === userId);
}

function assertError(response: { status: number; body: any; text: string }, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code);
}

describe('pond members', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let owner: Awaited<ReturnType<typeof createVerifiedUser>>;
  let editor: Awaited<ReturnType<typeof createVerifiedUser>>;
  let reader: Awaited<ReturnType<typeof createVerifiedUser>>;
  let outsider: Awaited<ReturnType<typeof createVerifiedUser>>;
  let pond: Pond;
  const anonymous = () => new TestClient(instance.baseUrl);

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    owner = await createVerifiedUser(instance);
    editor = await createVerifiedUser(instance);
    reader = await createVerifiedUser(instance);
    outsider = await createVerifiedUser(instance);
    pond = await seedSharedPond(owner.user.id, 'Team pond');
    await seedGrant(pond.id, { subject: { type: 'user', id: editor.user.id }, role: 'editor' });
    await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader' });
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  /** A fresh shared pond of the owner, so one test's members do not leak into another's. */
  async function freshPond(): Promise<Pond> {
    return seedSharedPond(owner.user.id);
  }

  test('GET lists members grouped by effective role, sorted by display name, with seats and everyone', async () => {
    const team = await freshPond();
    const zora = await seedUser('Zora');
    const anna = await seedUser('anna');
    const denied = await seedUser('Denied editor');
    const rita = await seedUser('Rita');
    await seedGrant(team.id, { subject: { type: 'user', id: zora.id }, role: 'editor' });
    await seedGrant(team.id, { subject: { type: 'user', id: anna.id }, role: 'editor' });
    await seedGrant(team.id, { subject: { type: 'user', id: denied.id }, role: 'editor' });
    await seedGrant(team.id, { subject: { type: 'user', id: denied.id }, role: 'reader', effect: 'deny' });
    await seedGrant(team.id, { subject: { type: 'user', id: rita.id }, role: 'reader' });
    await seedGrant(team.id, { subject: { type: 'signed-in' }, role: 'reader' });
    const response = await owner.client.get(`/ponds/${team.id}/members`);
    assert.equal(response.status, 200, response.text);
    const body = response.body;
    assert.deepEqual(body.groups.map((group: { role: string }) => group.role), ['pond_admin', 'editor', 'reader', 'none']);
    const names = (role: string) => body.groups.find((group: { role: string }) => group.role === role).members.map((member: { displayName: string }) => member.displayName);
    assert.deepEqual(names('pond_admin'), [owner.credentials.displayName]);
    assert.deepEqual(names('editor'), ['anna', 'Zora']);
    assert.deepEqual(names('reader'), ['Rita']);
    assert.deepEqual(names('none'), ['Denied editor']);
    const ownerView = body.groups[0].members[0];
    assert.deepEqual(ownerView, { userId: owner.user.id, username: owner.credentials.username, displayName: owner.credentials.displayName, grantedRole: 'pond_admin', effectiveRole: 'pond_admin', isOwner: true });
    assert.deepEqual(body.groups[3].members[0], { userId: denied.id, username: denied.username, displayName: 'Denied editor', grantedRole: 'editor', effectiveRole: null, isOwner: false });
    // Seats follow the granted role: owner + three editors; one reader.
    assert.deepEqual(body.seats, { editors: { used: 4, limit: 100 }, readers: { used: 1, limit: 1000 } });
    assert.deepEqual(body.everyone, { signedIn: 'reader', public: null });
    assert.equal(body.canManage, true);
    // A deny of another subject at pond level makes an editor read-only: grouped as reader.
    const readOnly = await freshPond();
    await seedGrant(readOnly.id, { subject: { type: 'user', id: zora.id }, role: 'editor' });
    await seedGrant(readOnly.id, { subject: { type: 'public' }, role: 'editor', effect: 'deny' });
    const list = (await owner.client.get(`/ponds/${readOnly.id}/members`)).body;
    assert.deepEqual(list.groups[2].members.map((member: { userId: string; grantedRole: string; effectiveRole: string }) => [member.userId, member.grantedRole, member.effectiveRole]), [[zora.id, 'editor', 'reader']]);
    assert.equal(list.groups[1].members.length, 0);
    assert.deepEqual(list.everyone, { signedIn: null, public: null });
  });

  test('GET: readers see the list without canManage; outsiders and anonymous callers get 404', async () => {
    const asReader = await reader.client.get(`/ponds/${pond.id}/members`);
    assert.equal(asReader.status, 200, asReader.text);
    assert.equal(asReader.body.canManage, false);
    assertError(await outsider.client.get(`/ponds/${pond.id}/members`), 404, 'not_found');
    assertError(await anonymous().get(`/ponds/${pond.id}/members`), 404, 'not_found');
    assertError(await owner.client.get('/ponds/not-a-uuid/members'), 404, 'not_found');
    assertError(await owner.client.get(`/ponds/${MISSING_ID}/members`), 404, 'not_found');
    // A Site Admin may manage any pond.
    assert.equal((await admin.get(`/ponds/${pond.id}/members`)).body.canManage, true);
  });

  test('GET on a public pond: public readers, signed in or not, get 404; members and Site Admins the list', async () => {
    const open = await freshPond();
    const page = await seedPage(open.id, 'Shared page');
    await seedGrant(open.id, { subject: { type: 'public' }, role: 'editor' });
    await seedGrant(open.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } });
    // Public readers see the pond itself, but not who works in it.
    assert.equal((await outsider.client.get(`/ponds/${open.id}`)).status, 200);
    assert.equal((await anonymous().get(`/ponds/${open.id}`)).status, 200);
    assertError(await outsider.client.get(`/ponds/${open.id}/members`), 404, 'not_found');
    assertError(await anonymous().get(`/ponds/${open.id}/members`), 404, 'not_found');
    // A deny naming the outsider does not make them a member either, nor lists the pond as theirs.
    await seedGrant(open.id, { subject: { type: 'user', id: outsider.user.id }, role: 'editor', scope: { type: 'page', id: page.id }, effect: 'deny' });
    assertError(await outsider.client.get(`/ponds/${open.id}/members`), 404, 'not_found');
    const outsiderPonds = (await outsider.client.get('/ponds')).body.items as { id: string }[];
    assert.ok(!outsiderPonds.some((item) => item.id === open.id), 'public reading is not membership');
    const asOwner = await owner.client.get(`/ponds/${open.id}/members`);
    assert.equal(asOwner.status, 200, asOwner.text);
    assert.equal(asOwner.body.everyone.public, 'editor');
    const asAdmin = await admin.get(`/ponds/${open.id}/members`);
    assert.equal(asAdmin.status, 200, asAdmin.text);
    assert.equal(asAdmin.body.canManage, true);
  });

  test('GET: a user reached only by a page-scope grant, or through all signed-in users, belongs to the pond', async () => {
    const team = await freshPond();
    const page = await seedPage(team.id, 'Their page');
    const scoped = await createVerifiedUser(instance);
    assertError(await scoped.client.get(`/ponds/${team.id}/members`), 404, 'not_found');
    await seedGrant(team.id, { subject: { type: 'user', id: scoped.user.id }, role: 'reader', scope: { type: 'page', id: page.id } });
    const asScoped = await scoped.client.get(`/ponds/${team.id}/members`);
    assert.equal(asScoped.status, 200, asScoped.text);
    assert.equal(asScoped.body.canManage, false);
    assert.ok(((await scoped.client.get('/ponds')).body.items as { id: string }[]).some((item) => item.id === team.id), 'and the pond is in their list');
    await seedGrant(team.id, { subject: { type: 'signed-in' }, role: 'reader' });
    assert.equal((await outsider.client.get(`/ponds/${team.id}/members`)).status, 200);
    assertError(await anonymous().get(`/ponds/${team.id}/members`), 404, 'not_found');
  });

  test('POST adds by username or e-mail (any letter case): 201, one grant, audited, effective at once', async () => {
    const team = await freshPond();
    const byName = await createVerifiedUser(instance);
    assertError(await byName.client.get(`/ponds/${team.id}/members`), 404, 'not_found');
    const added = await owner.client.post(`/ponds/${team.id}/members`, { user: byName.credentials.username.toUpperCase(), role: 'editor' });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(added.body, { userId: byName.user.id, username: byName.credentials.username, displayName: byName.credentials.displayName, grantedRole: 'editor', effectiveRole: 'editor', isOwner: false });
    // The permission cache was invalidated: the new member sees the pond immediately.
    assert.equal((await byName.client.get(`/ponds/${team.id}/members`)).status, 200);
    const grants = await Grant.findAll({ where: { pondId: team.id, subjectUserId: byName.user.id } });
    assert.deepEqual(grants.map((grant) => [grant.role, grant.scopeType, grant.effect, grant.createdBy]), [['editor', 'pond', 'allow', owner.user.id]]);
    const audit = await latestAudit('member.added', byName.user.id);
    assert.ok(audit, 'member.added is audited');
    assert.equal(audit.actorId, owner.user.id);
    assert.equal(audit.details.role, 'editor');
    assert.equal(audit.details.pondId, team.id);
    const byMail = await seedUser();
    const viaEmail = await owner.client.post(`/ponds/${team.id}/members`, { user: ` ${byMail.email.toUpperCase()} `, role: 'reader' });
    assert.equal(viaEmail.status, 201, viaEmail.text);
    assert.equal(viaEmail.body.grantedRole, 'reader');
  });

  test('POST refuses unknown users, existing members, bad bodies and callers who are not pond admins', async () => {
    const somebody = await seedUser();
    assertError(await owner.client.post(`/ponds/${pond.id}/members`, { user: 'nobody-by-that-name', role: 'reader' }), 404, 'user_not_found');
    assertError(await owner.client.post(`/ponds/${pond.id}/members`, { user: reader.credentials.email, role: 'editor' }), 409, 'member_exists');
    const badRole = await owner.client.post(`/ponds/${pond.id}/members`, { user: somebody.username, role: 'owner' });
    assertError(badRole, 400, 'validation_failed');
    assert.deepEqual(badRole.body.error.details.fields.map((field: { path: string }) => field.path), ['role']);
    assertError(await owner.client.post(`/ponds/${pond.id}/members`, { role: 'reader' }), 400, 'validation_failed');
    const body = { user: somebody.username, role: 'reader' };
    assertError(await reader.client.post(`/ponds/${pond.id}/members`, body), 403, 'forbidden');
    assertError(await editor.client.post(`/ponds/${pond.id}/members`, body), 403, 'forbidden');
    assertError(await outsider.client.post(`/ponds/${pond.id}/members`, body), 404, 'not_found');
    assertError(await anonymous().post(`/ponds/${pond.id}/members`, body), 401, 'unauthenticated');
    assertError(await owner.client.post('/ponds/not-a-uuid/members', body), 404, 'not_found');
    assert.equal(await Grant.count({ where: { subjectUserId: somebody.id } }), 0);
  });

  test('a personal pond refuses a second pond admin (add and re-role) but takes editors', async () => {
    const personal = (await Pond.findOne({ where: { ownerId: owner.user.id, kind: 'personal' } }))!;
    const friend = await seedUser();
    assertError(await owner.client.post(`/ponds/${personal.id}/members`, { user: friend.username, role: 'pond_admin' }), 409, 'personal_pond_single_admin');
    assert.equal((await owner.client.post(`/ponds/${personal.id}/members`, { user: friend.username, role: 'editor' })).status, 201);
    assertError(await owner.client.patch(`/ponds/${personal.id}/members/${friend.id}`, { role: 'pond_admin' }), 409, 'personal_pond_single_admin');
    assert.equal(await Grant.count({ where: { pondId: personal.id, role: 'pond_admin' } }), 1);
  });

  test('PATCH replaces the pond-scope allow grants with one of the new role and is audited', async () => {
    const team = await freshPond();
    const member = await seedUser();
    await seedGrant(team.id, { subject: { type: 'user', id: member.id }, role: 'reader' });
    await seedGrant(team.id, { subject: { type: 'user', id: member.id }, role: 'editor' });
    const label = await seedLabel(team.id, 'Intern');
    await seedGrant(team.id, { subject: { type: 'user', id: member.id }, role: 'reader', scope: { type: 'label', id: label.id }, effect: 'deny' });
    const response = await owner.client.patch(`/ponds/${team.id}/members/${member.id.toUpperCase()}`, { role: 'pond_admin' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.grantedRole, 'pond_admin');
    assert.equal(response.body.effectiveRole, 'pond_admin');
    const grants = await Grant.findAll({ where: { pondId: team.id, subjectUserId: member.id }, order: [['scopeType', 'ASC']] });
    assert.deepEqual(grants.map((grant) => [grant.scopeType, grant.role, grant.effect]), [['label', 'reader', 'deny'], ['pond', 'pond_admin', 'allow']]);
    const audit = await latestAudit('member.role_changed', member.id);
    assert.ok(audit);
    assert.equal(audit.details.from, 'editor');
    assert.equal(audit.details.to, 'pond_admin');
    // A second admin besides the owner may be demoted again.
    assert.equal((await owner.client.patch(`/ponds/${team.id}/members/${member.id}`, { role: 'reader' })).body.grantedRole, 'reader');
  });

  test('PATCH failure paths: not a member, malformed id, owner lowered, last admin, bad role, 401/403/404', async () => {
    assertError(await owner.client.patch(`/ponds/${pond.id}/members/${outsider.user.id}`, { role: 'reader' }), 404, 'not_found');
    assertError(await owner.client.patch(`/ponds/${pond.id}/members/not-a-uuid`, { role: 'reader' }), 404, 'not_found');
    assertError(await owner.client.patch(`/ponds/${pond.id}/members/${owner.user.id}`, { role: 'editor' }), 409, 'owner_membership');
    assertError(await owner.client.patch(`/ponds/${pond.id}/members/${reader.user.id}`, { role: 'boss' }), 400, 'validation_failed');
    assertError(await reader.client.patch(`/ponds/${pond.id}/members/${reader.user.id}`, { role: 'editor' }), 403, 'forbidden');
    assertError(await editor.client.patch(`/ponds/${pond.id}/members/${reader.user.id}`, { role: 'editor' }), 403, 'forbidden');
    assertError(await outsider.client.patch(`/ponds/${pond.id}/members/${reader.user.id}`, { role: 'editor' }), 404, 'not_found');
    assertError(await anonymous().patch(`/ponds/${pond.id}/members/${reader.user.id}`, { role: 'editor' }), 401, 'unauthenticated');
    // A pond whose owner account is gone keeps at least one admin.
    const orphan = await Pond.create({ slug: `orphan-${Date.now()}`, name: 'Orphan', kind: 'shared', ownerId: null });
    await seedGrant(orphan.id, { subject: { type: 'user', id: owner.user.id }, role: 'pond_admin' });
    assertError(await owner.client.patch(`/ponds/${orphan.id}/members/${owner.user.id}`, { role: 'editor' }), 409, 'last_pond_admin');
    assertError(await owner.client.request('DELETE', `/ponds/${orphan.id}/members/${owner.user.id}`), 409, 'last_pond_admin');
    assert.equal(await Grant.count({ where: { pondId: orphan.id, role: 'pond_admin' } }), 1);
  });

  test('DELETE removes the pond-scope allow grants only, is audited, and refuses the owner', async () => {
    const team = await freshPond();
    const member = await createVerifiedUser(instance);
    const label = await seedLabel(team.id, 'Team');
    await seedGrant(team.id, { subject: { type: 'user', id: member.user.id }, role: 'editor' });
    await seedGrant(team.id, { subject: { type: 'user', id: member.user.id }, role: 'reader' });
    await seedGrant(team.id, { subject: { type: 'user', id: member.user.id }, role: 'reader', scope: { type: 'label', id: label.id } });
    await seedGrant(team.id, { subject: { type: 'user', id: member.user.id }, role: 'editor', scope: { type: 'label', id: label.id }, effect: 'deny' });
    assert.equal((await member.client.get(`/ponds/${team.id}/members`)).status, 200);
    const response = await owner.client.request('DELETE', `/ponds/${team.id}/members/${member.user.id}`);
    assert.equal(response.status, 204, response.text);
    const left = await Grant.findAll({ where: { pondId: team.id, subjectUserId: member.user.id }, order: [['effect', 'ASC']] });
    assert.deepEqual(left.map((grant) => [grant.scopeType, grant.role, grant.effect]), [['label', 'reader', 'allow'], ['label', 'editor', 'deny']]);
    const audit = await latestAudit('member.removed', member.user.id);
    assert.ok(audit);
    assert.equal(audit.details.role, 'editor');
    const members = await owner.client.get(`/ponds/${team.id}/members`);
    assert.ok(!members.body.groups.some((group: { members: { userId: string }[] }) => group.members.some((view) => view.userId === member.user.id)));
    assertError(await owner.client.request('DELETE', `/ponds/${team.id}/members/${member.user.id}`), 404, 'not_found');
    assertError(await owner.client.request('DELETE', `/ponds/${team.id}/members/${owner.user.id}`), 409, 'owner_membership');
    assertError(await owner.client.request('DELETE', `/ponds/${team.id}/members/xyz`), 404, 'not_found');
  });

  test('DELETE: 401 anonymous, 403 for readers and editors, 404 for outsiders', async () => {
    const path = `/ponds/${pond.id}/members/${reader.user.id}`;
    assertError(await anonymous().request('DELETE', path), 401, 'unauthenticated');
    assertError(await reader.client.request('DELETE', path), 403, 'forbidden');
    assertError(await editor.client.request('DELETE', path), 403, 'forbidden');
    assertError(await outsider.client.request('DELETE', path), 404, 'not_found');
    assert.equal(await Grant.count({ where: { pondId: pond.id, subjectUserId: reader.user.id } }), 1);
  });

  describe('seats', () => {
    after(async () => {
      assert.equal((await admin.patch('/admin/settings', { 'quota.editors_per_pond': 100, 'quota.readers_per_pond': 1000 })).status, 200);
    });

    /** Members whose highest pond-scope allow role takes a seat of this kind, counted in SQL. */
    async function seatMembers(pondId: string, kind: 'editors' | 'readers'): Promise<number> {
      const ranks = kind === 'editors' ? [1, 2] : [3];
      const rows = await instance.services.sequelize.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM (
           SELECT min(array_position(ARRAY['pond_admin', 'editor', 'reader'], role)) AS rank FROM grants
            WHERE pond_id = :pondId AND subject_type = 'user' AND scope_type = 'pond' AND effect = 'allow'
            GROUP BY subject_user_id) members
          WHERE rank IN (:ranks)`,
        { replacements: { pondId, ranks }, type: QueryTypes.SELECT },
      );
      return rows[0]!.count;
    }

    async function raceAdds(pondId: string, role: 'editor' | 'reader', count: number) {
      const users = await Promise.all(Array.from({ length: count }, () => seedUser()));
      return Promise.all(users.map((user) => owner.client.post(`/ponds/${pondId}/members`, { user: user.username, role })));
    }

    test('20 concurrent editor adds fill exactly the free editor seats', async () => {
      assert.equal((await admin.patch('/admin/settings', { 'quota.editors_per_pond': 5 })).status, 200);
      const team = await freshPond();
      const responses = await raceAdds(team.id, 'editor', 20);
      assert.equal(responses.filter((response) => response.status === 201).length, 4);
      const refused = responses.filter((response) => response.status !== 201);
      assert.equal(refused.length, 16);
      for (const response of refused) {
        assertError(response, 409, 'quota_exceeded');
        assert.deepEqual(response.body.error.details, { quota: 'editors_per_pond', limit: 5, used: 5 });
      }
      assert.equal(await seatMembers(team.id, 'editors'), 5);
      const seats = (await owner.client.get(`/ponds/${team.id}/members`)).body.seats;
      assert.deepEqual(seats.editors, { used: 5, limit: 5 });
    });

    test('20 concurrent reader adds fill exactly the reader seats; editor seats are not touched', async () => {
      assert.equal((await admin.patch('/admin/settings', { 'quota.readers_per_pond': 5 })).status, 200);
      const team = await freshPond();
      const responses = await raceAdds(team.id, 'reader', 20);
      assert.equal(responses.filter((response) => response.status === 201).length, 5);
      assert.equal(responses.filter((response) => response.status === 409 && response.body.error.code === 'quota_exceeded').length, 15);
      assert.equal(await seatMembers(team.id, 'readers'), 5);
      assert.equal(await seatMembers(team.id, 'editors'), 1);
    });

    test('grants and re-roling cannot get around the seats, even racing the member route', async () => {
      assert.equal((await admin.patch('/admin/settings', { 'quota.editors_per_pond': 3, 'quota.readers_per_pond': 2 })).status, 200);
      const team = await freshPond();
      const users = await Promise.all(Array.from({ length: 10 }, () => seedUser()));
      const responses = await Promise.all(
        users.map((user, index) =>
          index % 2 === 0
            ? owner.client.post(`/ponds/${team.id}/members`, { user: user.username, role: 'editor' })
            : owner.client.post(`/ponds/${team.id}/grants`, { subject: { type: 'user', id: user.id }, role: 'editor', scope: { type: 'pond' }, effect: 'allow' }),
        ),
      );
      assert.equal(responses.filter((response) => response.status === 201).length, 2);
      assert.equal(await seatMembers(team.id, 'editors'), 3);
      // Full editor seats: neither a grant nor re-roling a reader makes an editor.
      const extra = await seedUser();
      const grant = await owner.client.post(`/ponds/${team.id}/grants`, { subject: { type: 'user', id: extra.id }, role: 'pond_admin', scope: { type: 'pond' }, effect: 'allow' });
      assertError(grant, 409, 'quota_exceeded');
      assert.equal((await owner.client.post(`/ponds/${team.id}/members`, { user: extra.username, role: 'reader' })).status, 201);
      assertError(await owner.client.patch(`/ponds/${team.id}/members/${extra.id}`, { role: 'editor' }), 409, 'quota_exceeded');
      const upgrade = await owner.client.post(`/ponds/${team.id}/grants`, { subject: { type: 'user', id: extra.id }, role: 'editor', scope: { type: 'pond' }, effect: 'allow' });
      assertError(upgrade, 409, 'quota_exceeded');
      // Rules that are not memberships take no seat.
      const deny = await owner.client.post(`/ponds/${team.id}/grants`, { subject: { type: 'user', id: extra.id }, role: 'editor', scope: { type: 'pond' }, effect: 'deny' });
      assert.equal(deny.status, 201, deny.text);
      // Reader seats: one left, then full.
      const lastReader = await seedUser();
      assert.equal((await owner.client.post(`/ponds/${team.id}/grants`, { subject: { type: 'user', id: lastReader.id }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' })).status, 201);
      assertError(await owner.client.post(`/ponds/${team.id}/members`, { user: (await seedUser()).username, role: 'reader' }), 409, 'quota_exceeded');
      assert.equal(await seatMembers(team.id, 'readers'), 2);
      // Dropping an editor's editor grant would leave a third reader: refused as well.
      const editorGrant = (await Grant.findOne({ where: { pondId: team.id, role: 'editor', effect: 'allow', subjectUserId: users.map((user) => user.id) } }))!;
      const keptReader = await owner.client.post(`/ponds/${team.id}/grants`, { subject: { type: 'user', id: editorGrant.subjectUserId }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
      assert.equal(keptReader.status, 201, keptReader.text);
      assertError(await owner.client.request('DELETE', `/ponds/${team.id}/grants/${editorGrant.id}`), 409, 'quota_exceeded');
      assert.equal(await seatMembers(team.id, 'readers'), 2);
    });

    test('a pond override on the quota ladder beats the owner override and the instance default', async () => {
      assert.equal((await admin.patch('/admin/settings', { 'quota.editors_per_pond': 50 })).status, 200);
      const team = await freshPond();
      await QuotaOverride.create({ userId: owner.user.id, pondId: null, quota: 'editors_per_pond', value: 10, updatedBy: null });
      await QuotaOverride.create({ pondId: team.id, userId: null, quota: 'editors_per_pond', value: 2, updatedBy: null });
      assert.deepEqual((await owner.client.get(`/ponds/${team.id}/members`)).body.seats.editors, { used: 1, limit: 2 });
      assert.equal((await owner.client.post(`/ponds/${team.id}/members`, { user: (await seedUser()).username, role: 'editor' })).status, 201);
      const refused = await owner.client.post(`/ponds/${team.id}/members`, { user: (await seedUser()).username, role: 'editor' });
      assertError(refused, 409, 'quota_exceeded');
      assert.deepEqual(refused.body.error.details, { quota: 'editors_per_pond', limit: 2, used: 2 });
      // The owner override applies to the owner's other ponds; null means unlimited.
      const other = await freshPond();
      assert.deepEqual((await owner.client.get(`/ponds/${other.id}/members`)).body.seats.editors, { used: 1, limit: 10 });
      await QuotaOverride.create({ pondId: other.id, userId: null, quota: 'readers_per_pond', value: null, updatedBy: null });
      assert.deepEqual((await owner.client.get(`/ponds/${other.id}/members`)).body.seats.readers, { used: 0, limit: null });
      await QuotaOverride.destroy({ where: { userId: owner.user.id } });
    });
  });
});
