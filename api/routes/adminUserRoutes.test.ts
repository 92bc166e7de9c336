/**
 * Site Admin account actions through HTTP: disabling refuses sign-in and ends every session
 * at once, enabling restores the earlier state, and nobody acts on their own account.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, MailOutboxEntry, Session, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('admin user actions', () => {
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

  test('forgot-password mails no reset link to a disabled account', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    assert.equal((await admin.post(`/admin/users/${user.id}/disable`)).status, 200);
    const client = new TestClient(instance.baseUrl);
    const mailsBefore = await MailOutboxEntry.count({ where: { recipient: credentials.email } });
    assert.equal((await client.post('/auth/forgot-password', { email: credentials.email })).status, 202);
    assert.equal(await MailOutboxEntry.count({ where: { recipient: credentials.email } }), mailsBefore, 'no reset mail for a disabled account');
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

  test('enabling a disabled account that never verified its e-mail returns it to unconfirmed', async () => {
    const signup = await new TestClient(instance.baseUrl).post('/auth/signup', { username: 'neververified', email: 'neververified@example.org', password: 'a long enough password' });
    assert.equal(signup.status, 201, signup.text);
    assert.equal((await admin.post(`/admin/users/${signup.body.user.id}/disable`)).status, 200);
    const response = await admin.post(`/admin/users/${signup.body.user.id}/enable`);
    assert.equal(response.status, 200);
    assert.equal(response.body.status, 'unconfirmed');
  });

  test('an admin disabling their own account gets 409 cannot_modify_self', async () => {
    const response = await admin.post(`/admin/users/${adminId}/disable`);
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'cannot_modify_self');
    assert.equal((await User.findByPk(adminId))!.status, 'ACTIVE');
  });

  test('the self check is not fooled by an upper-case id', async () => {
    const response = await admin.post(`/admin/users/${adminId.toUpperCase()}/disable`);
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'cannot_modify_self');
    assert.equal((await User.findByPk(adminId))!.status, 'ACTIVE');
    assert.equal((await admin.get('/users/me')).status, 200);
  });

  test('a signed-in user who is not Site Admin gets 403 forbidden', async () => {
    const { client } = await createVerifiedUser(instance);
    const target = await createVerifiedUser(instance);
    for (const action of ['disable', 'enable']) {
      const response = await client.post(`/admin/users/${target.user.id}/${action}`);
      assert.equal(response.status, 403);
      assert.equal(response.body.error.code, 'forbidden');
    }
    assert.equal((await User.findByPk(target.user.id))!.status, 'ACTIVE');
  });

  test('an anonymous caller gets 401 unauthenticated', async () => {
    const { user } = await createVerifiedUser(instance);
    const response = await new TestClient(instance.baseUrl).post(`/admin/users/${user.id}/disable`);
    assert.equal(response.status, 401);
    assert.equal(response.body.error.code, 'unauthenticated');
  });

  test('an unknown id answers 404 not_found', async () => {
    const response = await admin.post('/admin/users/00000000-0000-4000-8000-000000000000/disable');
    assert.equal(response.status, 404);
    assert.equal(response.body.error.code, 'not_found');
  });

  test('an id that is not a UUID answers 400 validation_failed', async () => {
    const response = await admin.post('/admin/users/not-a-uuid/enable');
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), ['params.id']);
  });
});
