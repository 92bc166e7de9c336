/**
 * `DELETE /admin/users/:id` (spec: User account, "admin delete"): the account is scrubbed,
 * its sessions and grants end (announced on `user_sessions_changed` and `pond_access_changed`),
 * its personal pond goes to the trash, and what it authored shows a localized "Deleted user".
 * Refused: oneself, the last Site Admin (also when two admins cross), an owner of shared ponds,
 * the last admin of a pond; anonymous callers, non-admins, unknown and deleted accounts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { deleteAccount } from '../commands/accountDeletion.ts';
import { deliverAccountMail } from '../mail/accountMail.ts';
import { AuditEntry, EmailToken, Grant, MailOutboxEntry, Pond, QuotaOverride, Session, User } from '../models/index.ts';
import { ACCESS_CHANNEL } from '../policies/pondAccessCache.ts';
import { sessionIsLive, USER_SESSIONS_CHANNEL } from '../auth/sessions.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { crossingRequests, SITE_ADMIN_ROWS } from '../testing/crossingRequests.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { waitFor } from '../testing/polling.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('deleting an account', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  let listener: pg.Client;
  let notices: { channel: string; payload: string }[] = [];

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
    listener = new pg.Client({ connectionString: instance.services.config.databaseUrl! });
    await listener.connect();
    listener.on('notification', (message) => notices.push({ channel: message.channel, payload: message.payload ?? '' }));
    await listener.query(`LISTEN ${ACCESS_CHANNEL}; LISTEN ${USER_SESSIONS_CHANNEL}`);
  });
  after(async () => {
    await listener.end();
    await instance.close();
  });
  beforeEach(async () => {
    await resetRateLimits(instance);
    notices = [];
  });

  const remove = (client: TestClient, id: string) => client.request('DELETE', `/admin/users/${id}`);

  async function personalPondOf(userId: string): Promise<Pond> {
    return (await Pond.findOne({ where: { ownerId: userId, kind: 'personal' } }))!;
  }

  /** Another Site Admin, signed in. */
  async function secondAdmin() {
    const person = await createVerifiedUser(instance);
    await User.update({ isSiteAdmin: true }, { where: { id: person.user.id } });
    return person;
  }

  test('scrubs the account: placeholders for username, e-mail and display name, no password, status deleted; answers 204 and is audited', async () => {
    const { user, credentials } = await createVerifiedUser(instance, { locale: 'de' });
    const response = await remove(admin, user.id);
    assert.equal(response.status, 204, response.text);
    const row = (await User.findByPk(user.id))!;
    assert.equal(row.status, 'deleted');
    assert.equal(row.username, `deleted-${user.id}`);
    assert.equal(row.email, `deleted-${user.id}@invalid`);
    assert.equal(row.displayName, `deleted-${user.id}`);
    assert.equal(row.passwordHash, null);
    assert.equal(row.emailVerifiedAt, null);
    assert.equal(row.locale, null);
    const stored = JSON.stringify(row.toJSON());
    for (const personal of [credentials.username, credentials.email, credentials.displayName]) assert.ok(!stored.includes(personal), `${personal} is gone from the row`);
    const audit = await AuditEntry.findOne({ where: { action: 'admin.user_deleted', actorId: adminId, details: { userId: user.id } } });
    assert.ok(audit, 'admin.user_deleted is audited');
    assert.equal(audit.details.username, credentials.username);
  });

  test('drops what only served the person: favorites, watches, notifications, quota overrides; the mail log names the placeholder', async () => {
    const { user, client, credentials } = await createVerifiedUser(instance);
    const pond = await personalPondOf(user.id);
    const page = await client.post(`/ponds/${pond.id}/pages`, { title: 'Favorite page' });
    assert.equal(page.status, 201, page.text);
    assert.equal((await client.request('PUT', `/pages/${page.body.id}/favorite`)).status, 204);
    const sql = (query: string) => instance.services.sequelize.query(query, { replacements: { userId: user.id, pondId: pond.id, pageId: page.body.id } });
    // Creating the page watched it already (autoWatchOwnPages).
    await sql(`INSERT INTO watches (user_id, target_type, pond_id, page_id) VALUES (:userId, 'page', :pondId, :pageId), (:userId, 'pond', :pondId, NULL) ON CONFLICT DO NOTHING`);
    await sql(`INSERT INTO notifications (user_id, type, pond_id, page_id, payload) VALUES (:userId, 'page_changed', :pondId, :pageId, '{}')`);
    await QuotaOverride.create({ pondId: null, userId: user.id, quota: 'storage_bytes', value: 1000, updatedBy: adminId });
    await MailOutboxEntry.create({ recipient: credentials.email.toUpperCase(), kind: 'verify_email', status: 'not_configured', error: null });
    const count = async (table: string) => ((await instance.services.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = :userId`, { replacements: { userId: user.id }, type: QueryTypes.SELECT }))[0]!.n);
    assert.deepEqual([await count('favorites'), await count('watches'), await count('notifications'), await count('quota_overrides')], [1, 2, 1, 1]);

    assert.equal((await remove(admin, user.id)).status, 204);
    assert.deepEqual([await count('favorites'), await count('watches'), await count('notifications'), await count('quota_overrides')], [0, 0, 0, 0]);
    assert.equal(await MailOutboxEntry.count({ where: { recipient: credentials.email.toUpperCase() } }), 0);
    assert.equal(await MailOutboxEntry.count({ where: { recipient: `deleted-${user.id}@invalid` } }), 1);
  });

  test('a mail queued before the delete is dropped when its job runs', async () => {
    const { user } = await createVerifiedUser(instance);
    await User.update({ emailVerifiedAt: null }, { where: { id: user.id } });
    assert.equal((await remove(admin, user.id)).status, 204);
    const { sequelize, mailer, config, logger } = instance.services;
    for (const purpose of ['verify_email', 'reset_password'] as const) {
      const outcome = await deliverAccountMail({ userId: user.id, purpose, locale: 'en' }, { sequelize, mailer, baseUrl: config.baseUrl, logger });
      assert.equal(outcome, 'not_needed', purpose);
    }
    assert.equal(await EmailToken.count({ where: { userId: user.id } }), 0);
    // And should a session row survive somehow, it would not count.
    assert.equal(sessionIsLive({ expiresAt: new Date(Date.now() + 60_000) }, { status: 'deleted' }), false);
  });

  test('ends every session in the same transaction: the cookie is refused with 401, user_sessions_changed is announced, one-time links die', async () => {
    const { user, client, credentials } = await createVerifiedUser(instance);
    const otherBrowser = new TestClient(instance.baseUrl);
    assert.equal((await otherBrowser.post('/auth/login', { login: credentials.username, password: credentials.password })).status, 200);
    await admin.post(`/admin/users/${user.id}/reset-link`);
    assert.equal(await Session.count({ where: { userId: user.id } }), 2);
    assert.equal((await remove(admin, user.id)).status, 204);
    assert.equal(await Session.count({ where: { userId: user.id } }), 0);
    assert.equal(await EmailToken.count({ where: { userId: user.id } }), 0);
    for (const browser of [client, otherBrowser]) {
      const me = await browser.get('/users/me');
      assert.equal(me.status, 401);
      assert.equal(me.body.error.code, 'unauthenticated');
    }
    await waitFor(() => notices.some((notice) => notice.channel === USER_SESSIONS_CHANNEL && notice.payload === user.id), 3000, 'user_sessions_changed');
  });

  test('a deleted account cannot sign in: its old username and e-mail answer as unknown accounts, and so does the placeholder', async () => {
    const { user, credentials } = await createVerifiedUser(instance);
    assert.equal((await remove(admin, user.id)).status, 204);
    const client = new TestClient(instance.baseUrl);
    for (const login of [credentials.username, credentials.email, `deleted-${user.id}`, `deleted-${user.id}@invalid`]) {
      const response = await client.post('/auth/login', { login, password: credentials.password });
      assert.equal(response.status, 401, login);
      assert.equal(response.body.error.code, 'invalid_credentials', login);
    }
    assert.equal(client.sessionCookie, undefined);
    // The name and address are free again.
    const again = await client.post('/auth/signup', { username: credentials.username, email: credentials.email, password: 'another long password' });
    assert.equal(again.status, 201, again.text);
  });

  test('the personal pond is renamed to the placeholder and moved to the trash, audited as pond.trashed', async () => {
    const { user, credentials } = await createVerifiedUser(instance);
    const pond = await personalPondOf(user.id);
    assert.equal(pond.trashedAt, null);
    assert.equal((await remove(admin, user.id)).status, 204);
    await pond.reload();
    assert.ok(pond.trashedAt, 'the personal pond is in the trash');
    assert.equal(pond.trashedBy, adminId);
    assert.equal(pond.slug, `deleted-${user.id}`);
    assert.equal(pond.name, `deleted-${user.id}`);
    assert.ok(!pond.slug.includes(credentials.username));
    assert.ok(await AuditEntry.findOne({ where: { action: 'pond.trashed', details: { pondId: pond.id } } }));
    await waitFor(() => notices.some((notice) => notice.channel === ACCESS_CHANNEL && notice.payload === pond.id), 3000, 'pond_access_changed for the personal pond');
    // Site Admins still see it in the trash.
    const trashed = await admin.get(`/ponds/${pond.id}`);
    assert.equal(trashed.status, 200, trashed.text);
    assert.ok(trashed.body.trashedAt);
  });

  test('removes every grant naming the account and announces pond_access_changed for each pond; the member list no longer shows it', async () => {
    const owner = await createVerifiedUser(instance);
    const { user } = await createVerifiedUser(instance);
    const team = await seedSharedPond(owner.user.id);
    const other = await seedSharedPond(owner.user.id);
    const page = await seedPage(other.id, 'Only this page');
    await seedGrant(team.id, { subject: { type: 'user', id: user.id }, role: 'editor' });
    await seedGrant(other.id, { subject: { type: 'user', id: user.id }, role: 'reader', scope: { type: 'page', id: page.id } });
    await seedGrant(other.id, { subject: { type: 'user', id: user.id }, role: 'editor', scope: { type: 'page', id: page.id }, effect: 'deny' });
    const memberIds = async () => (await owner.client.get(`/ponds/${team.id}/members`)).body.groups.flatMap((group: { members: { userId: string }[] }) => group.members.map((member) => member.userId)).sort();
    assert.deepEqual(await memberIds(), [owner.user.id, user.id].sort());

    assert.equal((await remove(admin, user.id)).status, 204);
    assert.equal(await Grant.count({ where: { subjectUserId: user.id } }), 0);
    assert.deepEqual(await memberIds(), [owner.user.id]);
    for (const pond of [team, other]) {
      await waitFor(() => notices.some((notice) => notice.channel === ACCESS_CHANNEL && notice.payload === pond.id), 3000, `pond_access_changed for ${pond.slug}`);
    }
    // The owner's own grants are untouched.
    assert.equal(await Grant.count({ where: { subjectUserId: owner.user.id, pondId: team.id } }), 1);
  });

  test('what the account authored stays and shows a localized "Deleted user"; as a contributor it drops out', async () => {
    const owner = await createVerifiedUser(instance);
    const { user, client } = await createVerifiedUser(instance);
    const pond = await seedSharedPond(owner.user.id);
    await seedGrant(pond.id, { subject: { type: 'user', id: user.id }, role: 'editor' });
    const created = await client.post(`/ponds/${pond.id}/pages`, { title: 'Written by the leaving user', markdown: 'Some text' });
    assert.equal(created.status, 201, created.text);
    const pageId = created.body.id as string;
    const authored = await client.post(`/pages/${pageId}/versions`, { label: 'by the leaving user' });
    assert.equal(authored.status, 201, authored.text);
    await instance.services.sequelize.query(`INSERT INTO page_contributors (page_id, user_id, last_edit_at) VALUES (:pageId, :userId, now())`, {
      replacements: { pageId, userId: user.id },
      type: QueryTypes.INSERT,
    });
    const contributed = await owner.client.post(`/pages/${pageId}/versions`, { label: 'with a contribution' });
    assert.deepEqual(
      contributed.body.contributors.map((person: { id: string }) => person.id),
      [user.id],
    );
    const trashedPage = await client.post(`/ponds/${pond.id}/pages`, { title: 'Trashed by the leaving user' });
    assert.equal((await client.request('DELETE', `/pages/${trashedPage.body.id}`)).status, 200);

    assert.equal((await remove(admin, user.id)).status, 204);

    const english = await owner.client.get(`/versions/${authored.body.id}`, { headers: { 'accept-language': 'en' } });
    assert.equal(english.status, 200, english.text);
    assert.deepEqual(english.body.createdBy, { id: user.id, displayName: 'Deleted user' });
    const german = await owner.client.get(`/versions/${authored.body.id}`, { headers: { 'accept-language': 'de' } });
    assert.deepEqual(german.body.createdBy, { id: user.id, displayName: 'Gelöschter Benutzer' });
    const listed = (await owner.client.get(`/pages/${pageId}/versions`, { headers: { 'accept-language': 'en' } })).body.items;
    const byId = new Map(listed.map((item: { id: string }) => [item.id, item]));
    assert.deepEqual((byId.get(authored.body.id) as { createdBy: unknown }).createdBy, { id: user.id, displayName: 'Deleted user' });
    assert.deepEqual((byId.get(contributed.body.id) as { contributors: unknown[] }).contributors, [], 'a deleted contributor drops out');
    const page = await owner.client.get(`/pages/${pageId}`);
    assert.equal(page.status, 200, 'the page stays');
    assert.equal(page.body.createdBy, user.id);
    const trash = await owner.client.get(`/ponds/${pond.id}/trash`, { headers: { 'accept-language': 'en' } });
    assert.deepEqual(trash.body.items[0].trashedBy, { id: user.id, displayName: 'Deleted user' });
  });

  test('an owner of shared ponds (live or trashed) gets 409 user_owns_ponds naming them, and nothing changes', async () => {
    const { user, client } = await createVerifiedUser(instance);
    const live = await client.post('/ponds', { name: 'Owned and live', slug: `owned-live-${Date.now()}` });
    const trashed = await client.post('/ponds', { name: 'Owned and trashed', slug: `owned-trashed-${Date.now()}` });
    assert.equal((await client.post(`/ponds/${trashed.body.id}/trash`)).status, 200);
    const response = await remove(admin, user.id);
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'user_owns_ponds');
    assert.deepEqual(response.body.error.details.ponds, [live.body.slug, trashed.body.slug].sort());
    assert.equal((await User.findByPk(user.id))!.status, 'ACTIVE');
    assert.equal((await client.get('/users/me')).status, 200);
    assert.equal((await personalPondOf(user.id)).trashedAt, null);
    assert.ok((await Grant.count({ where: { subjectUserId: user.id } })) >= 3);
    assert.equal(await AuditEntry.count({ where: { action: 'admin.user_deleted', details: { userId: user.id } } }), 0);
  });

  test('the last admin of a pond without an owner is refused with 409 last_pond_admin, and nothing changes', async () => {
    const owner = await createVerifiedUser(instance);
    const { user, client } = await createVerifiedUser(instance);
    const pond = await seedSharedPond(owner.user.id);
    await seedGrant(pond.id, { subject: { type: 'user', id: user.id }, role: 'pond_admin' });
    await Grant.destroy({ where: { pondId: pond.id, subjectUserId: owner.user.id } });
    await pond.update({ ownerId: null });
    const response = await remove(admin, user.id);
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'last_pond_admin');
    assert.equal((await User.findByPk(user.id))!.status, 'ACTIVE');
    assert.equal((await client.get('/users/me')).status, 200);
  });

  test('another Site Admin can be deleted; the caller cannot delete themselves (409 cannot_modify_self, also upper-case)', async () => {
    const other = await secondAdmin();
    assert.equal((await remove(admin, other.user.id)).status, 204);
    assert.equal((await User.findByPk(other.user.id))!.isSiteAdmin, false);
    for (const id of [adminId, adminId.toUpperCase()]) {
      const response = await remove(admin, id);
      assert.equal(response.status, 409, id);
      assert.equal(response.body.error.code, 'cannot_modify_self');
    }
    assert.equal((await admin.get('/users/me')).status, 200);
  });

  test('the last ACTIVE Site Admin is never deleted: 409 last_site_admin', async () => {
    // Through HTTP the caller is always a remaining admin; the guard matters for a caller whose
    // flag went meanwhile (a crossing request): the command decides on the locked rows.
    const other = await secondAdmin();
    await User.update({ isSiteAdmin: false }, { where: { id: adminId } });
    try {
      await assert.rejects(
        instance.services.sequelize.transaction((transaction) => deleteAccount(other.user.id, { user: { id: adminId, username: 'admin' }, ip: null }, transaction)),
        (error: { code?: string }) => error.code === 'last_site_admin',
      );
      assert.equal((await User.findByPk(other.user.id))!.status, 'ACTIVE');
    } finally {
      await User.update({ isSiteAdmin: true }, { where: { id: adminId } });
      await User.update({ isSiteAdmin: false }, { where: { id: other.user.id } });
    }
  });

  test('a pond created while the account is being deleted is refused (401): no shared pond is ever owned by a deleted account', async () => {
    const person = await createVerifiedUser(instance);
    const sequelize = instance.services.sequelize;
    const deletion = await sequelize.transaction();
    let creation: Promise<{ status: number }> | null = null;
    try {
      await deleteAccount(person.user.id, { user: { id: adminId, username: 'admin' }, ip: null }, deletion);
      // The person's session passed authentication before the deletion commits; the create waits on the account row.
      creation = person.client.post('/ponds', { name: 'Raced pond' });
      await waitFor(
        async () => {
          const [row] = await sequelize.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            { type: QueryTypes.SELECT },
          );
          return (row?.waiting ?? 0) >= 1;
        },
        10_000,
        'the pond creation to wait for the account row',
      );
    } finally {
      await deletion.commit();
    }
    assert.equal((await creation).status, 401);
    assert.equal(await Pond.count({ where: { ownerId: person.user.id, kind: 'shared' } }), 0);
  });

  test('two Site Admins deleting each other at once: one succeeds, the other gets last_site_admin, one admin remains', async () => {
    const first = await secondAdmin();
    const second = await secondAdmin();
    await User.update({ isSiteAdmin: false }, { where: { id: adminId } });
    try {
      const responses = await crossingRequests(instance, SITE_ADMIN_ROWS, [
        () => remove(first.client, second.user.id),
        () => remove(second.client, first.user.id),
      ]);
      assert.deepEqual(responses.map((response) => response.status).sort(), [204, 409], JSON.stringify(responses.map((response) => response.body)));
      assert.equal(responses.find((response) => response.status === 409)!.body.error.code, 'last_site_admin');
      assert.equal(await User.count({ where: { isSiteAdmin: true, status: 'ACTIVE' } }), 1);
    } finally {
      await User.update({ isSiteAdmin: true }, { where: { id: adminId } });
      await User.update({ isSiteAdmin: false }, { where: { id: [first.user.id, second.user.id] } });
    }
  });

  test('anonymous 401, non-admin 403, unknown 404, deleted 404 (to every action), malformed id 400', async () => {
    const { user, client } = await createVerifiedUser(instance);
    const anonymous = await remove(new TestClient(instance.baseUrl), user.id);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthenticated');
    const stranger = await remove(client, adminId);
    assert.equal(stranger.status, 403);
    assert.equal(stranger.body.error.code, 'forbidden');
    assert.equal((await User.findByPk(adminId))!.status, 'ACTIVE');
    const unknown = await remove(admin, UNKNOWN_ID);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    assert.equal((await remove(admin, 'not-a-uuid')).status, 400);

    assert.equal((await remove(admin, user.id)).status, 204);
    // Gone: nothing revives it (a reset link or a confirmation would).
    for (const [method, path] of [
      ['DELETE', `/admin/users/${user.id}`],
      ['POST', `/admin/users/${user.id}/reset-link`],
      ['POST', `/admin/users/${user.id}/confirm`],
      ['POST', `/admin/users/${user.id}/enable`],
      ['POST', `/admin/users/${user.id}/disable`],
      ['POST', `/admin/users/${user.id}/resend-verification`],
      ['PUT', `/admin/users/${user.id}/site-admin`],
    ] as const) {
      const response = await admin.request(method, path);
      assert.equal(response.status, 404, `${method} ${path}`);
    }
    assert.equal(await EmailToken.count({ where: { userId: user.id } }), 0);
    assert.equal((await User.findByPk(user.id))!.isSiteAdmin, false);
  });
});
