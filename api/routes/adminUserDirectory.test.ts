/**
 * The Site Admin's account list (`GET /admin/users`: search, status filter, keyset pages),
 * granting and revoking Site Admin (idempotent, audited, never the last one, never oneself;
 * disabling never leaves no ACTIVE Site Admin either),
 * and resending a verification mail (queued as a job, refused for verified and disabled
 * accounts; without mail nothing is queued and the answer says so).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setSiteAdmin } from '../commands/managedAccounts.ts';
import { AuditEntry, User } from '../models/index.ts';
import { seedGrant, seedSharedPond } from '../testing/accessFixtures.ts';
import { crossingRequests, SITE_ADMIN_ROWS } from '../testing/crossingRequests.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { accountMailJobs, startMailRelay, type MailRelay } from '../testing/mailRelay.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ITEM_KEYS = ['displayName', 'email', 'emailVerified', 'id', 'isSiteAdmin', 'lastLoginAt', 'pondCount', 'status', 'username'];

let counter = 0;

/** Signs up `name…` accounts through the API (a shared prefix lets a test search for exactly its own). */
async function signUp(instance: TestInstance, username: string, extra: { displayName?: string; email?: string } = {}) {
  counter += 1;
  const client = new TestClient(instance.baseUrl);
  const response = await client.post('/auth/signup', { username, email: extra.email ?? `${username}@example.org`, password: PASSWORD, displayName: extra.displayName ?? `Person ${counter}` });
  assert.equal(response.status, 201, response.text);
  return { client, id: response.body.user.id as string };
}

describe('the account list and Site Admin flags', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  const list = (query: string, client = admin) => client.get(`/admin/users?${query}`);
  const usernames = (response: { body: { items: { username: string }[] } }) => response.body.items.map((item) => item.username);

  test('lists accounts by username with their e-mail, status, role, pond count and last login', async () => {
    const alpha = await signUp(instance, 'lista-alpha', { displayName: 'Alpha Person' });
    await signUp(instance, 'lista-beta');
    const signedIn = await new TestClient(instance.baseUrl).post('/auth/login', { login: 'lista-alpha', password: PASSWORD });
    assert.equal(signedIn.status, 200, signedIn.text);
    const owner = await createVerifiedUser(instance);
    const pond = await seedSharedPond(owner.user.id);
    await seedGrant(pond.id, { subject: { type: 'user', id: alpha.id }, role: 'reader' });
    // A trashed pond and a page-scope grant do not count: the count is live ponds it is a member of.
    const trashed = await seedSharedPond(owner.user.id);
    await seedGrant(trashed.id, { subject: { type: 'user', id: alpha.id }, role: 'editor' });
    await trashed.update({ trashedAt: new Date() });

    const response = await list('q=lista-');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(usernames(response), ['lista-alpha', 'lista-beta']);
    assert.equal(response.body.nextCursor, null);
    const [first] = response.body.items;
    assert.deepEqual(Object.keys(first).sort(), ITEM_KEYS);
    assert.deepEqual(first, {
      id: alpha.id,
      username: 'lista-alpha',
      email: 'lista-alpha@example.org',
      displayName: 'Alpha Person',
      status: 'ACTIVE',
      isSiteAdmin: false,
      pondCount: 2,
      lastLoginAt: (await User.findByPk(alpha.id))!.lastLoginAt!.toISOString(),
      emailVerified: false,
    });
    assert.ok(Date.parse(first.lastLoginAt) > Date.now() - 60_000, 'the last login is shown');
    assert.equal(response.body.items[1].pondCount, 1, 'the personal pond only');
    assert.equal(response.body.items[1].lastLoginAt, null, 'never signed in with a password');
    assert.equal((await list('q=admin@example.org')).body.items[0].isSiteAdmin, true);
  });

  test('q finds a part of the username, e-mail or display name, ignoring case, and takes % and _ literally', async () => {
    await signUp(instance, 'findme-one', { displayName: 'Zebra Finch' });
    await signUp(instance, 'findme-two', { email: 'other.address@example.net' });
    await signUp(instance, 'findme_3');
    assert.deepEqual(usernames(await list('q=FINDME')), ['findme-one', 'findme-two', 'findme_3']);
    assert.deepEqual(usernames(await list('q=zebra%20f')), ['findme-one']);
    assert.deepEqual(usernames(await list('q=OTHER.ADDRESS')), ['findme-two']);
    assert.deepEqual(usernames(await list('q=findme_')), ['findme_3'], '_ is not a wildcard');
    assert.deepEqual(usernames(await list('q=findme%25')), [], '% is not a wildcard');
    assert.deepEqual(usernames(await list('q=%20%20')), usernames(await list('')), 'a blank query lists everyone');
  });

  test('status narrows the list; without it deleted accounts are left out', async () => {
    await signUp(instance, 'state-active');
    const disabled = await signUp(instance, 'state-disabled');
    const deleted = await signUp(instance, 'state-deleted');
    assert.equal((await admin.post(`/admin/users/${disabled.id}/disable`)).status, 200);
    assert.equal((await admin.request('DELETE', `/admin/users/${deleted.id}`)).status, 204);
    assert.deepEqual(usernames(await list('q=state-')), ['state-active', 'state-disabled']);
    assert.deepEqual(usernames(await list('q=state-&status=disabled')), ['state-disabled']);
    assert.deepEqual(usernames(await list('q=state-&status=ACTIVE')), ['state-active']);
    assert.deepEqual(usernames(await list(`q=${deleted.id}`)), [], 'a deleted account is only listed on asking for it');
    const gone = await list(`status=deleted&q=${deleted.id}`, admin);
    assert.deepEqual(
      gone.body.items.map((item: { id: string }) => item.id),
      [deleted.id],
    );
    assert.equal(gone.body.items[0].displayName, 'Deleted user');
    assert.equal(gone.body.items[0].pondCount, 0);
    const wrong = await list('status=gone');
    assert.equal(wrong.status, 400);
    assert.deepEqual(
      wrong.body.error.details.fields.map((field: { path: string }) => field.path),
      ['query.status'],
    );
  });

  test('pages of every size walk the whole list once, in order, and end with nextCursor null', async () => {
    for (const suffix of ['e', 'a', 'd', 'b', 'c']) await signUp(instance, `walk-${suffix}`);
    const whole = usernames(await list('q=walk-&limit=200'));
    assert.deepEqual(whole, ['walk-a', 'walk-b', 'walk-c', 'walk-d', 'walk-e']);
    for (const limit of [1, 2, 3, 5]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await list(`q=walk-&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(response.status, 200, response.text);
        assert.ok(response.body.items.length <= limit);
        seen.push(...usernames(response));
        cursor = response.body.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, whole, `limit ${limit}`);
    }
  });

  test('a cursor we did not hand out and a limit out of range answer 400 naming the field', async () => {
    for (const [query, path] of [
      ['cursor=bm90LWEtY3Vyc29y', 'query.cursor'],
      [`cursor=${Buffer.from(JSON.stringify(['a\u0000b', adminId])).toString('base64url')}`, 'query.cursor'],
      ['limit=0', 'query.limit'],
      ['limit=201', 'query.limit'],
    ]) {
      const response = await list(query!);
      assert.equal(response.status, 400, query);
      assert.deepEqual(
        response.body.error.details.fields.map((field: { path: string }) => field.path),
        [path],
        query,
      );
    }
  });

  test('the list is for Site Admins: 401 anonymous, 403 signed in', async () => {
    const { client } = await createVerifiedUser(instance);
    assert.equal((await list('', new TestClient(instance.baseUrl))).status, 401);
    const refused = await list('', client);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
  });

  const siteAdmin = (client: TestClient, method: 'PUT' | 'DELETE', id: string) => client.request(method, `/admin/users/${id}/site-admin`);

  test('granting Site Admin answers 200 with the account, opens the admin routes to it, is idempotent and audited once', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assert.equal((await list('', client)).status, 403);
    const granted = await siteAdmin(admin, 'PUT', user.id);
    assert.equal(granted.status, 200, granted.text);
    assert.equal(granted.body.id, user.id);
    assert.equal(granted.body.isSiteAdmin, true);
    assert.equal((await list('', client)).status, 200);
    const again = await siteAdmin(admin, 'PUT', user.id);
    assert.equal(again.status, 200);
    assert.equal(again.body.isSiteAdmin, true);
    assert.equal(await AuditEntry.count({ where: { action: 'admin.site_admin_granted', actorId: adminId, details: { userId: user.id } } }), 1);
    // The tests of the last Site Admin count on the setup admin alone.
    assert.equal((await siteAdmin(admin, 'DELETE', user.id)).status, 200);
  });

  test('revoking Site Admin answers 200, closes the admin routes, is idempotent and audited once', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assert.equal((await siteAdmin(admin, 'PUT', user.id)).status, 200);
    const revoked = await siteAdmin(admin, 'DELETE', user.id);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.isSiteAdmin, false);
    assert.equal((await list('', client)).status, 403);
    assert.equal((await siteAdmin(admin, 'DELETE', user.id)).status, 200);
    assert.equal(await AuditEntry.count({ where: { action: 'admin.site_admin_revoked', actorId: adminId, details: { userId: user.id } } }), 1);
  });

  test('nobody changes their own flag (409 cannot_modify_self, also upper-case); 401, 403, 404 as for every action', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      for (const id of [adminId, adminId.toUpperCase()]) {
        const response = await siteAdmin(admin, method, id);
        assert.equal(response.status, 409, `${method} ${id}`);
        assert.equal(response.body.error.code, 'cannot_modify_self');
      }
      const { client, user } = await createVerifiedUser(instance);
      assert.equal((await siteAdmin(new TestClient(instance.baseUrl), method, user.id)).status, 401);
      const refused = await siteAdmin(client, method, user.id);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'forbidden');
      assert.equal((await siteAdmin(admin, method, UNKNOWN_ID)).status, 404);
    }
    assert.equal((await User.findByPk(adminId))!.isSiteAdmin, true);
  });

  test('revoking never leaves no ACTIVE Site Admin: the command refuses with last_site_admin on the locked rows', async () => {
    const other = await createVerifiedUser(instance);
    await User.update({ isSiteAdmin: true }, { where: { id: other.user.id } });
    // A caller whose own flag went meanwhile (the crossing case): only the target is left.
    await User.update({ isSiteAdmin: false }, { where: { id: adminId } });
    try {
      await assert.rejects(
        instance.services.sequelize.transaction((transaction) => setSiteAdmin(other.user.id, false, { user: { id: adminId, username: 'admin' }, ip: null }, transaction)),
        (error: { code?: string }) => error.code === 'last_site_admin',
      );
      assert.equal((await User.findByPk(other.user.id))!.isSiteAdmin, true);
    } finally {
      await User.update({ isSiteAdmin: true }, { where: { id: adminId } });
      await User.update({ isSiteAdmin: false }, { where: { id: other.user.id } });
    }
  });

  test('two Site Admins revoking each other at once: one succeeds, the other gets last_site_admin', async () => {
    const first = await createVerifiedUser(instance);
    const second = await createVerifiedUser(instance);
    await User.update({ isSiteAdmin: true }, { where: { id: [first.user.id, second.user.id] } });
    await User.update({ isSiteAdmin: false }, { where: { id: adminId } });
    try {
      const responses = await crossingRequests(instance, SITE_ADMIN_ROWS, [
        () => siteAdmin(first.client, 'DELETE', second.user.id),
        () => siteAdmin(second.client, 'DELETE', first.user.id),
      ]);
      assert.deepEqual(responses.map((response) => response.status).sort(), [200, 409], JSON.stringify(responses.map((response) => response.body)));
      assert.equal(responses.find((response) => response.status === 409)!.body.error.code, 'last_site_admin');
      assert.equal(await User.count({ where: { isSiteAdmin: true, status: 'ACTIVE' } }), 1);
    } finally {
      await User.update({ isSiteAdmin: true }, { where: { id: adminId } });
      await User.update({ isSiteAdmin: false }, { where: { id: [first.user.id, second.user.id] } });
    }
  });

  test('two Site Admins disabling each other at once: one succeeds, the other gets last_site_admin', async () => {
    const first = await createVerifiedUser(instance);
    const second = await createVerifiedUser(instance);
    await User.update({ isSiteAdmin: true }, { where: { id: [first.user.id, second.user.id] } });
    await User.update({ isSiteAdmin: false }, { where: { id: adminId } });
    try {
      const responses = await crossingRequests(instance, SITE_ADMIN_ROWS, [
        () => first.client.post(`/admin/users/${second.user.id}/disable`),
        () => second.client.post(`/admin/users/${first.user.id}/disable`),
      ]);
      assert.deepEqual(responses.map((response) => response.status).sort(), [200, 409], JSON.stringify(responses.map((response) => response.body)));
      assert.equal(responses.find((response) => response.status === 409)!.body.error.code, 'last_site_admin');
      assert.equal(await User.count({ where: { isSiteAdmin: true, status: 'ACTIVE' } }), 1);
    } finally {
      await User.update({ isSiteAdmin: true }, { where: { id: adminId } });
      await User.update({ isSiteAdmin: false, status: 'ACTIVE' }, { where: { id: [first.user.id, second.user.id] } });
    }
  });

  test('without mail, resending verification queues nothing and answers 202 { mailConfigured: false }', async () => {
    const { id } = await signUp(instance, 'nomail-resend');
    const response = await admin.post(`/admin/users/${id}/resend-verification`);
    assert.equal(response.status, 202, response.text);
    assert.deepEqual(response.body, { mailConfigured: false });
    assert.equal((await accountMailJobs(instance)).length, 0);
    assert.equal(await AuditEntry.count({ where: { action: 'admin.user_verification_resent', details: { userId: id } } }), 0);
  });

  test('resend verification: 401, 403, 404, own account 409', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assert.equal((await new TestClient(instance.baseUrl).post(`/admin/users/${user.id}/resend-verification`)).status, 401);
    assert.equal((await client.post(`/admin/users/${user.id}/resend-verification`)).status, 403);
    assert.equal((await admin.post(`/admin/users/${UNKNOWN_ID}/resend-verification`)).status, 404);
    const own = await admin.post(`/admin/users/${adminId}/resend-verification`);
    assert.equal(own.status, 409);
    assert.equal(own.body.error.code, 'cannot_modify_self');
  });
});

describe('resending verification on an instance with mail', () => {
  let instance: TestInstance;
  let relay: MailRelay;
  let admin: TestClient;
  let adminId: string;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
    relay = await startMailRelay(instance);
  });
  after(async () => {
    await relay.close();
    await instance.close();
  });
  beforeEach(() => resetRateLimits(instance));

  test('queues a fresh verification mail for an unconfirmed account (202 { mailConfigured: true }), audited; its link confirms the account', async () => {
    const { id } = await signUp(instance, 'withmail-one');
    await relay.link('withmail-one@example.org', 'verify-email');
    const response = await admin.post(`/admin/users/${id}/resend-verification`);
    assert.equal(response.status, 202, response.text);
    assert.deepEqual(response.body, { mailConfigured: true });
    const token = await relay.token('withmail-one@example.org', 'verify-email', 2);
    const verified = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token });
    assert.equal(verified.status, 200, verified.text);
    assert.equal((await User.findByPk(id))!.status, 'ACTIVE');
    assert.ok(await AuditEntry.findOne({ where: { action: 'admin.user_verification_resent', actorId: adminId, details: { userId: id } } }));
  });

  test('a verified address answers 409 account_already_confirmed, a disabled account 403 account_disabled; neither queues a mail', async () => {
    const verified = await signUp(instance, 'withmail-verified');
    const verifiedAddress = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token: await relay.token('withmail-verified@example.org', 'verify-email') });
    assert.equal(verifiedAddress.status, 200, verifiedAddress.text);
    const confirmed = await admin.post(`/admin/users/${verified.id}/resend-verification`);
    assert.equal(confirmed.status, 409);
    assert.equal(confirmed.body.error.code, 'account_already_confirmed');
    const { id } = await signUp(instance, 'withmail-disabled');
    await relay.link('withmail-disabled@example.org', 'verify-email');
    assert.equal((await admin.post(`/admin/users/${id}/disable`)).status, 200);
    const disabled = await admin.post(`/admin/users/${id}/resend-verification`);
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.error.code, 'account_disabled');
    // A mail asked for afterwards arrives; one queued by the refused requests would have come first.
    await signUp(instance, 'withmail-marker');
    await relay.link('withmail-marker@example.org', 'verify-email');
    assert.equal(relay.linksSoFar('withmail-verified@example.org', 'verify-email').length, 1, 'only the sign-up mail');
    assert.equal(relay.linksSoFar('withmail-disabled@example.org', 'verify-email').length, 1, 'only the sign-up mail');
    assert.equal(await AuditEntry.count({ where: { action: 'admin.user_verification_resent', details: { userId: verified.id } } }), 0);
  });
});
