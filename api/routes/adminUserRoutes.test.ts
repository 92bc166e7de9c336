/**
 * Site Admin account actions through HTTP: disabling refuses sign-in and ends every session
 * at once, enabling restores the earlier state, confirming vouches for an address, a reset
 * link is handed to the admin (one-time, 1 hour, never logged), every action is audited, and
 * nobody acts on their own account. First on an instance without mail, then with mail.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, EmailToken, Session, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { capturingLogger, startMailRelay, type MailRelay } from '../testing/mailRelay.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';
const HOUR_MS = 60 * 60 * 1000;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ACTIONS = ['disable', 'enable', 'confirm', 'reset-link'];

let counter = 0;
function newAccount() {
  counter += 1;
  return { username: `managed${counter}`, email: `managed${counter}@example.org`, password: PASSWORD };
}

describe('admin user actions', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  const apiLog = capturingLogger('api');

  before(async () => {
    instance = await startTestInstance({ logger: apiLog.logger });
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  /** Without mail a self-registered account is ACTIVE with an unverified address. */
  async function signUpUnverified() {
    const account = newAccount();
    const client = new TestClient(instance.baseUrl);
    const response = await client.post('/auth/signup', account);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.user.emailVerified, false);
    return { account, client, userId: response.body.user.id as string };
  }

  test('disabling answers 200 with the disabled account, ends its sessions and is audited', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const second = await createVerifiedUser(instance);
    const response = await admin.post(`/admin/users/${user.id}/disable`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.id, user.id);
    assert.equal(response.body.status, 'disabled');
    assert.equal((await User.findByPk(user.id))!.status, 'disabled');
    assert.equal(await Session.count({ where: { userId: user.id } }), 0);
    const me = await client.get('/users/me');
    assert.equal(me.status, 401);
    assert.equal(me.body.error.code, 'unauthenticated');
    // Only the disabled account is affected.
    assert.equal((await second.client.get('/users/me')).status, 200);
    const audit = await AuditEntry.findOne({ where: { action: 'admin.user_disabled', actorId: adminId } });
    assert.ok(audit, 'admin.user_disabled is audited');
    assert.equal(audit.details.userId, user.id);
  });

  test('a disabled account cannot sign in: 403 account_disabled with the right password', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    assert.equal((await admin.post(`/admin/users/${user.id}/disable`)).status, 200);
    const client = new TestClient(instance.baseUrl);
    const login = await client.post('/auth/login', { login: credentials.username, password: credentials.password });
    assert.equal(login.status, 403);
    assert.equal(login.body.error.code, 'account_disabled');
    assert.equal(client.sessionCookie, undefined);
    assert.equal(await Session.count({ where: { userId: user.id } }), 0);
    // A wrong password does not reveal that the account exists and is disabled.
    const wrong = await client.post('/auth/login', { login: credentials.username, password: 'not the password at all' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_credentials');
  });

  test('enabling restores sign-in', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    assert.equal((await admin.post(`/admin/users/${user.id}/disable`)).status, 200);
    const response = await admin.post(`/admin/users/${user.id}/enable`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.status, 'ACTIVE');
    const login = await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: credentials.password });
    assert.equal(login.status, 200, login.text);
    assert.ok(await AuditEntry.findOne({ where: { action: 'admin.user_enabled', actorId: adminId } }));
  });

  test('without mail, enabling an account whose address was never verified makes it ACTIVE: it could never confirm itself', async () => {
    const { account, userId } = await signUpUnverified();
    assert.equal((await admin.post(`/admin/users/${userId}/disable`)).status, 200);
    const response = await admin.post(`/admin/users/${userId}/enable`);
    assert.equal(response.status, 200);
    assert.equal(response.body.status, 'ACTIVE');
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: account.username, password: PASSWORD })).status, 200);
  });

  test('confirming an unverified account answers 200 with the address verified, and is audited', async () => {
    const { userId } = await signUpUnverified();
    const response = await admin.post(`/admin/users/${userId}/confirm`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.id, userId);
    assert.equal(response.body.status, 'ACTIVE');
    assert.equal(response.body.emailVerified, true);
    assert.ok((await User.findByPk(userId))!.emailVerifiedAt);
    const audit = await AuditEntry.findOne({ where: { action: 'admin.user_confirmed', actorId: adminId, details: { userId } } });
    assert.ok(audit, 'admin.user_confirmed is audited');
  });

  test('confirming an account that is confirmed already answers 409 account_already_confirmed and audits nothing', async () => {
    const { user } = await createVerifiedUser(instance);
    const auditsBefore = await AuditEntry.count({ where: { action: 'admin.user_confirmed' } });
    const response = await admin.post(`/admin/users/${user.id}/confirm`);
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'account_already_confirmed');
    assert.equal(await AuditEntry.count({ where: { action: 'admin.user_confirmed' } }), auditsBefore);
  });

  test('a reset link answers 201 { link, expiresAt } valid 1 h, uncached, audited without the link, and never logged', async () => {
    const { userId } = await signUpUnverified();
    const issuedAfter = Date.now();
    const response = await admin.post(`/admin/users/${userId}/reset-link`);
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['expiresAt', 'link']);
    assert.match(response.body.link, new RegExp(`^${instance.baseUrl}/reset-password\\?token=[A-Za-z0-9_-]{40,}$`));
    const expiresAt = Date.parse(response.body.expiresAt);
    assert.ok(expiresAt >= issuedAfter + HOUR_MS - 1000 && expiresAt <= Date.now() + HOUR_MS + 1000, 'valid for one hour');
    assert.match(response.headers.get('cache-control') ?? '', /no-store/);

    const token = new URL(response.body.link).searchParams.get('token')!;
    const audit = await AuditEntry.findOne({ where: { action: 'admin.user_reset_link_created', actorId: adminId, details: { userId } } });
    assert.ok(audit, 'admin.user_reset_link_created is audited');
    assert.ok(!JSON.stringify(audit.details).includes(token), 'the audit entry does not hold the link');
    assert.ok(!apiLog.lines.join('\n').includes(token), 'no log line holds the link');
    const row = await EmailToken.findOne({ where: { userId, purpose: 'admin_reset_password' } });
    assert.ok(row && !row.tokenHash.toString('utf8').includes(token), 'only the hash is stored');
  });

  test('the handed-over link resets the password once, ends every session, and does not verify the address', async () => {
    const { account, client: earlierSession, userId } = await signUpUnverified();
    const { link } = (await admin.post(`/admin/users/${userId}/reset-link`)).body;
    const token = new URL(link).searchParams.get('token')!;
    const anonymous = new TestClient(instance.baseUrl);
    const reset = await anonymous.post('/auth/reset-password', { token, password: 'a brand new password' });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await earlierSession.get('/users/me')).status, 401);
    assert.equal((await anonymous.post('/auth/login', { login: account.username, password: PASSWORD })).status, 401);
    assert.equal((await anonymous.post('/auth/login', { login: account.username, password: 'a brand new password' })).status, 200);
    assert.equal((await User.findByPk(userId))!.emailVerifiedAt, null, 'handing a link over proves nothing about the mailbox');
    const audit = await AuditEntry.findOne({ where: { action: 'auth.password_reset', actorId: userId } });
    assert.deepEqual(audit?.details, { via: 'admin_link' });

    const reuse = await anonymous.post('/auth/reset-password', { token, password: 'yet another password' });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error.code, 'token_invalid');
  });

  test('a reset link is dead after 1 hour (410 token_expired), and a newer link retires the older one', async () => {
    const { userId } = await signUpUnverified();
    const first = new URL((await admin.post(`/admin/users/${userId}/reset-link`)).body.link).searchParams.get('token')!;
    const second = new URL((await admin.post(`/admin/users/${userId}/reset-link`)).body.link).searchParams.get('token')!;
    const anonymous = new TestClient(instance.baseUrl);
    const retired = await anonymous.post('/auth/reset-password', { token: first, password: 'a brand new password' });
    assert.equal(retired.status, 400);
    assert.equal(retired.body.error.code, 'token_invalid');
    await EmailToken.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { userId, purpose: 'admin_reset_password' } });
    const expired = await anonymous.post('/auth/reset-password', { token: second, password: 'a brand new password' });
    assert.equal(expired.status, 410);
    assert.equal(expired.body.error.code, 'token_expired');
  });

  test('an admin acting on their own account gets 409 cannot_modify_self, also with an upper-case id', async () => {
    for (const action of ACTIONS) {
      for (const id of [adminId, adminId.toUpperCase()]) {
        const response = await admin.post(`/admin/users/${id}/${action}`);
        assert.equal(response.status, 409, `${action} ${id}`);
        assert.equal(response.body.error.code, 'cannot_modify_self');
      }
    }
    assert.equal((await User.findByPk(adminId))!.status, 'ACTIVE');
    assert.equal(await EmailToken.count({ where: { userId: adminId } }), 0, 'no reset link for oneself');
    assert.equal((await admin.get('/users/me')).status, 200);
  });

  test('a signed-in user who is not Site Admin gets 403 forbidden for every action', async () => {
    const { client } = await createVerifiedUser(instance);
    const target = await signUpUnverified();
    for (const action of ACTIONS) {
      const response = await client.post(`/admin/users/${target.userId}/${action}`);
      assert.equal(response.status, 403, action);
      assert.equal(response.body.error.code, 'forbidden');
    }
    const user = await User.findByPk(target.userId);
    assert.equal(user!.status, 'ACTIVE');
    assert.equal(user!.emailVerifiedAt, null);
    assert.equal(await EmailToken.count({ where: { userId: target.userId } }), 0);
  });

  test('an anonymous caller gets 401 unauthenticated for every action', async () => {
    const { userId } = await signUpUnverified();
    for (const action of ACTIONS) {
      const response = await new TestClient(instance.baseUrl).post(`/admin/users/${userId}/${action}`);
      assert.equal(response.status, 401, action);
      assert.equal(response.body.error.code, 'unauthenticated');
    }
    assert.equal(await EmailToken.count({ where: { userId } }), 0);
  });

  test('an unknown id answers 404 not_found for every action', async () => {
    for (const action of ACTIONS) {
      const response = await admin.post(`/admin/users/${UNKNOWN_ID}/${action}`);
      assert.equal(response.status, 404, action);
      assert.equal(response.body.error.code, 'not_found');
    }
  });

  test('an id that is not a UUID answers 400 validation_failed', async () => {
    const response = await admin.post('/admin/users/not-a-uuid/enable');
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), ['params.id']);
  });
});

describe('admin user actions on an instance with mail', () => {
  let instance: TestInstance;
  let relay: MailRelay;
  let admin: TestClient;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    relay = await startMailRelay(instance);
  });
  after(async () => {
    await relay.close();
    await instance.close();
  });
  beforeEach(() => resetRateLimits(instance));

  async function signUpUnconfirmed() {
    const account = newAccount();
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.user.status, 'unconfirmed');
    return { account, userId: response.body.user.id as string };
  }

  test('confirming an unconfirmed account activates it for sign-in and retires its verification link', async () => {
    const { account, userId } = await signUpUnconfirmed();
    const token = await relay.token(account.email, 'verify-email');
    const refused = await new TestClient(instance.baseUrl).post('/auth/login', { login: account.username, password: PASSWORD });
    assert.equal(refused.body.error.code, 'email_unverified');

    const response = await admin.post(`/admin/users/${userId}/confirm`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.status, 'ACTIVE');
    assert.equal(response.body.emailVerified, true);
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: account.username, password: PASSWORD })).status, 200);
    const stale = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error.code, 'token_invalid');
  });

  test('a handed-over reset link activates an unconfirmed account: the admin vouches for it', async () => {
    const { account, userId } = await signUpUnconfirmed();
    const { link } = (await admin.post(`/admin/users/${userId}/reset-link`)).body;
    const reset = await new TestClient(instance.baseUrl).post('/auth/reset-password', { token: new URL(link).searchParams.get('token'), password: 'a brand new password' });
    assert.equal(reset.status, 200, reset.text);
    const user = await User.findByPk(userId);
    assert.equal(user!.status, 'ACTIVE');
    assert.equal(user!.emailVerifiedAt, null);
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: account.username, password: 'a brand new password' })).status, 200);
    assert.deepEqual(relay.linksSoFar(account.email, 'reset-password'), [], 'the handed-over link is never mailed');
  });

  test('enabling a disabled account that never verified its address returns it to unconfirmed: it can confirm by mail', async () => {
    const { userId } = await signUpUnconfirmed();
    assert.equal((await admin.post(`/admin/users/${userId}/disable`)).status, 200);
    const response = await admin.post(`/admin/users/${userId}/enable`);
    assert.equal(response.status, 200);
    assert.equal(response.body.status, 'unconfirmed');
  });

  test('forgot-password mails no reset link to a disabled account', async () => {
    const { account, userId } = await signUpUnconfirmed();
    await relay.link(account.email, 'verify-email');
    assert.equal((await admin.post(`/admin/users/${userId}/disable`)).status, 200);
    const response = await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: account.email });
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, { mailConfigured: true });
    // A mail asked for afterwards arrives first if the disabled account's had been queued.
    const other = await signUpUnconfirmed();
    await relay.link(other.account.email, 'verify-email');
    assert.deepEqual(relay.linksSoFar(account.email, 'reset-password'), []);
  });
});
