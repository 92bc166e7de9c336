/**
 * Login, logout and "who am I" through HTTP against a real database: cookie attributes,
 * identical answers for unknown user and wrong password, session replay after logout,
 * tampered and expired tokens, and the upgrade of weaker password hashes at sign-in. The login
 * rate limits and TRUST_PROXY are in authSessionRoutesThrottling.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { AuditEntry, Session, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { saveSmtpRelay } from '../testing/mailRelay.ts';
import { closedPort } from '../testing/smtpTestServer.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';

/** A client that presents a given raw session cookie, like a replayed or forged request. */
function clientWithCookie(instance: TestInstance, token: string): TestClient {
  const client = new TestClient(instance.baseUrl);
  client.cookies.set('dt_session', token);
  return client;
}

function sessionSetCookie(headers: Headers): string {
  const cookie = headers.getSetCookie().find((value) => value.startsWith('dt_session='));
  assert.ok(cookie, 'response sets dt_session');
  return cookie;
}

describe('login, logout and session', () => {
  let instance: TestInstance;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());

  test('an unconfirmed account cannot sign in (403 email_unverified)', async () => {
    const client = new TestClient(instance.baseUrl);
    // Only an instance with mail leaves new accounts unconfirmed; no worker runs, so nothing is sent.
    await saveSmtpRelay(instance, await closedPort());
    const signup = await client.post('/auth/signup', { username: 'pending', email: 'pending@example.org', password: PASSWORD });
    await saveSmtpRelay(instance, null);
    assert.equal(signup.status, 201, signup.text);
    const login = await client.post('/auth/login', { login: 'pending', password: PASSWORD });
    assert.equal(login.status, 403);
    assert.equal(login.body.error.code, 'email_unverified');
    assert.equal(client.sessionCookie, undefined);
    assert.equal(await Session.count({ where: { userId: signup.body.user.id } }), 0);
  });

  test('login answers 200 with an HttpOnly, SameSite=Lax, Path=/ cookie, not Secure on http', async () => {
    const client = new TestClient(instance.baseUrl);
    const email = 'cookie@example.org';
    // Without mail the account is ACTIVE at once (api/routes/authAccountRoutes.ts).
    assert.equal((await client.post('/auth/signup', { username: 'cookie', email, password: PASSWORD })).status, 201);
    const login = await client.post('/auth/login', { login: 'cookie', password: PASSWORD });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.user.username, 'cookie');
    assert.equal(login.body.user.status, 'ACTIVE');
    const cookie = sessionSetCookie(login.headers);
    assert.match(cookie, /^dt_session=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+;/);
    assert.match(cookie, /;\s*HttpOnly/i);
    assert.match(cookie, /;\s*SameSite=Lax/i);
    assert.match(cookie, /;\s*Path=\/(;|$)/);
    assert.doesNotMatch(cookie, /;\s*Secure/i);
    assert.equal((await client.get('/users/me')).status, 200);
    const audit = await AuditEntry.findOne({ where: { action: 'auth.login', actorId: login.body.user.id } });
    assert.ok(audit, 'auth.login is audited');
    assert.deepEqual(audit.details, { method: 'password' });
  });

  test('login by e-mail address works, case-insensitively', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const client = new TestClient(instance.baseUrl);
    const login = await client.post('/auth/login', { login: credentials.email.toUpperCase(), password: credentials.password });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.user.id, user.id);
  });

  test('wrong password and unknown user get the identical 401 invalid_credentials, both audited', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const client = new TestClient(instance.baseUrl);
    const failuresBefore = await AuditEntry.count({ where: { action: 'auth.login_failed' } });
    const wrongPassword = await client.post('/auth/login', { login: credentials.username, password: 'not the password at all' });
    const unknownUser = await client.post('/auth/login', { login: 'nobody-here', password: 'not the password at all' });
    assert.equal(wrongPassword.status, 401);
    assert.equal(unknownUser.status, 401);
    assert.equal(wrongPassword.body.error.code, 'invalid_credentials');
    assert.equal(wrongPassword.text, unknownUser.text);
    assert.equal(client.sessionCookie, undefined);
    assert.equal(await AuditEntry.count({ where: { action: 'auth.login_failed' } }), failuresBefore + 2);
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.login_failed', actorId: user.id } }));
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.login_failed', actorId: null } }));
  });

  test('GET /auth/session answers { user: null } anonymously and the user when signed in', async () => {
    const anonymous = await new TestClient(instance.baseUrl).get('/auth/session');
    assert.equal(anonymous.status, 200);
    assert.equal(anonymous.body.user, null);
    const { client, user } = await createVerifiedUser(instance);
    const signedIn = await client.get('/auth/session');
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.body.user.id, user.id);
    assert.equal(signedIn.body.user.username, user.username);
    assert.ok(Date.parse(signedIn.body.expiresAt) > Date.now());
  });

  test('logout answers 204, clears the cookie, ends the session and is audited', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const token = client.sessionCookie!;
    const logout = await client.post('/auth/logout');
    assert.equal(logout.status, 204);
    assert.match(sessionSetCookie(logout.headers), /^dt_session=;.*Expires=Thu, 01 Jan 1970/i);
    assert.equal(client.sessionCookie, undefined);
    const replay = await clientWithCookie(instance, token).get('/users/me');
    assert.equal(replay.status, 401);
    assert.equal(replay.body.error.code, 'unauthenticated');
    assert.equal(await Session.count({ where: { userId: user.id } }), 0);
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.logout', actorId: user.id } }));
  });

  test('a token with the right id but a wrong secret is rejected and its cookie cleared', async () => {
    const { client } = await createVerifiedUser(instance);
    const [id] = client.sessionCookie!.split('.');
    const forged = clientWithCookie(instance, `${id}.${'A'.repeat(32)}`);
    const me = await forged.get('/users/me');
    assert.equal(me.status, 401);
    assert.match(sessionSetCookie(me.headers), /Expires=Thu, 01 Jan 1970/i);
    assert.equal((await clientWithCookie(instance, `${id}.`).get('/users/me')).status, 401);
    assert.equal((await clientWithCookie(instance, 'garbage').get('/users/me')).status, 401);
    // The real session is untouched by the forgery attempt.
    assert.equal((await client.get('/users/me')).status, 200);
  });

  test('an expired session answers 401 and is deleted', async () => {
    const { client, user } = await createVerifiedUser(instance);
    await instance.services.sequelize.query(`UPDATE sessions SET expires_at = now() - interval '1 minute' WHERE user_id = :userId`, { replacements: { userId: user.id } });
    const me = await client.get('/users/me');
    assert.equal(me.status, 401);
    assert.equal(me.body.error.code, 'unauthenticated');
    assert.equal(await Session.count({ where: { userId: user.id } }), 0);
  });

  test('signing in again in the same browser ends the previous session', async () => {
    const { client, credentials } = await createVerifiedUser(instance);
    const firstToken = client.sessionCookie!;
    assert.equal((await client.post('/auth/login', { login: credentials.username, password: credentials.password })).status, 200);
    assert.notEqual(client.sessionCookie, firstToken);
    assert.equal((await clientWithCookie(instance, firstToken).get('/users/me')).status, 401);
    assert.equal((await client.get('/users/me')).status, 200);
  });
});

describe('password hash upgrade at sign-in', () => {
  // Production runs at cost 17; the suite uses 12 → 13 to show the same rule quickly.
  const CURRENT_COST = 13;
  let instance: TestInstance;

  before(async () => {
    instance = await startTestInstance({ env: { PASSWORD_HASH_COST: String(CURRENT_COST) } });
    await completeSetup(instance);
  });
  after(() => instance.close());

  async function storedHashOf(userId: string): Promise<string> {
    const user = await User.findByPk(userId);
    assert.ok(user?.passwordHash);
    return user.passwordHash;
  }

  test('a hash with a lower cost is replaced by one with the current cost at the next successful sign-in', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const weakHash = await hashPassword(credentials.password, CURRENT_COST - 1);
    await User.update({ passwordHash: weakHash }, { where: { id: user.id } });

    const failed = await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: 'not the password at all' });
    assert.equal(failed.status, 401);
    assert.equal(await storedHashOf(user.id), weakHash, 'a failed sign-in changes nothing');

    const login = await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: credentials.password });
    assert.equal(login.status, 200, login.text);
    const upgraded = await storedHashOf(user.id);
    assert.match(upgraded, new RegExp(`^scrypt\\$${CURRENT_COST}\\$8\\$1\\$`));
    assert.equal(await verifyPassword(credentials.password, upgraded), true);
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: credentials.password })).status, 200);
    assert.equal(await storedHashOf(user.id), upgraded, 'a current hash is kept as it is');
  });

  test('a hash with a higher cost than configured is kept (never downgraded)', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const strongerHash = await hashPassword(credentials.password, CURRENT_COST + 1);
    await User.update({ passwordHash: strongerHash }, { where: { id: user.id } });
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: credentials.password })).status, 200);
    assert.equal(await storedHashOf(user.id), strongerHash);
  });
});
