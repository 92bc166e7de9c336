/**
 * `POST /users/me/password` through HTTP against a real database: only a signed-in session
 * may change its password, the new one follows the signup rules, a wrong current password is
 * refused and counted like a failed sign-in (sharing its budget), and a change ends every
 * other session of the account while the one that made it stays.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { errorMessagesDe } from '../i18n/errorMessages.de.ts';
import { AuditEntry, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const NEW_PASSWORD = 'a brand new passphrase';
/** The per-account budget this suite runs with, so the 429 comes after a few attempts. */
const ATTEMPTS_PER_ACCOUNT = 3;

function assertRefused(response: TestResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code);
}

describe('changing one\'s own password', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance({ env: { LOGIN_RATE_LIMIT_PER_ACCOUNT: String(ATTEMPTS_PER_ACCOUNT) } });
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  async function storedHash(userId: string): Promise<string | null> {
    return (await User.findByPk(userId))!.passwordHash;
  }

  function signIn(login: string, password: string): Promise<TestResponse> {
    return new TestClient(instance.baseUrl).post('/auth/login', { login, password });
  }

  test('without a session the answer is 401 unauthenticated, also with a bearer token or a dead cookie', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const before = await storedHash(user.id);
    const body = { currentPassword: credentials.password, newPassword: NEW_PASSWORD };
    assertRefused(await new TestClient(instance.baseUrl).post('/users/me/password', body), 401, 'unauthenticated');
    const bearer = await new TestClient(instance.baseUrl).post('/users/me/password', body, { headers: { authorization: 'Bearer dt_pat_not-a-session' } });
    assertRefused(bearer, 401, 'unauthenticated');
    const deadCookie = new TestClient(instance.baseUrl);
    deadCookie.cookies.set('dt_session', 'unknown.session');
    assertRefused(await deadCookie.post('/users/me/password', body), 401, 'unauthenticated');
    assert.equal(await storedHash(user.id), before);
  });

  test('a new password under 10 characters, a missing field or an extra field answers 400 validation_failed and changes nothing', async () => {
    const { client, credentials, user } = await createVerifiedUser(instance);
    const before = await storedHash(user.id);
    const short = await client.post('/users/me/password', { currentPassword: credentials.password, newPassword: 'nine char' });
    assertRefused(short, 400, 'validation_failed');
    assert.deepEqual(short.body.error.details.fields.map((field: { path: string }) => field.path), ['newPassword']);
    // Nine emoji are 18 UTF-16 units but nine characters: still too short, as at signup.
    assertRefused(await client.post('/users/me/password', { currentPassword: credentials.password, newPassword: '🐸'.repeat(9) }), 400, 'validation_failed');
    const missing = await client.post('/users/me/password', { newPassword: NEW_PASSWORD });
    assertRefused(missing, 400, 'validation_failed');
    assert.deepEqual(missing.body.error.details.fields.map((field: { path: string }) => field.path), ['currentPassword']);
    assertRefused(await client.post('/users/me/password', { currentPassword: credentials.password }), 400, 'validation_failed');
    assertRefused(await client.post('/users/me/password', { currentPassword: credentials.password, newPassword: NEW_PASSWORD, userId: user.id }), 400, 'validation_failed');
    assert.equal(await storedHash(user.id), before);
    assert.equal((await signIn(credentials.username, credentials.password)).status, 200);
  });

  test('a wrong current password answers 403 current_password_wrong in the caller\'s language, changes nothing and is audited without the password', async () => {
    const { client, credentials, user } = await createVerifiedUser(instance, { locale: 'de' });
    const before = await storedHash(user.id);
    const wrong = await client.post('/users/me/password', { currentPassword: 'not my password at all', newPassword: NEW_PASSWORD });
    assertRefused(wrong, 403, 'current_password_wrong');
    assert.equal(wrong.body.error.message, errorMessagesDe.current_password_wrong);
    assert.equal(await storedHash(user.id), before);
    assert.equal((await client.get('/users/me')).status, 200, 'the caller stays signed in');
    assert.equal((await signIn(credentials.username, NEW_PASSWORD)).status, 401);
    const audit = await AuditEntry.findOne({ where: { action: 'auth.password_change_failed', actorId: user.id } });
    assert.ok(audit);
    assert.doesNotMatch(JSON.stringify(audit.details), /not my password|brand new/);
  });

  test(`after ${ATTEMPTS_PER_ACCOUNT} wrong current passwords the next attempt is 429 rate_limited, even a right one, and sign-in from that address shares the budget`, async () => {
    const { client, credentials, user } = await createVerifiedUser(instance);
    await resetRateLimits(instance);
    const before = await storedHash(user.id);
    for (let attempt = 1; attempt <= ATTEMPTS_PER_ACCOUNT; attempt += 1) {
      assertRefused(await client.post('/users/me/password', { currentPassword: `wrong guess ${attempt}`, newPassword: NEW_PASSWORD }), 403, 'current_password_wrong');
    }
    const limited = await client.post('/users/me/password', { currentPassword: credentials.password, newPassword: NEW_PASSWORD });
    assertRefused(limited, 429, 'rate_limited');
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    assertRefused(await signIn(credentials.username, credentials.password), 429, 'rate_limited');
    assert.equal(await storedHash(user.id), before);
  });

  test('a right current password clears the count of earlier wrong ones', async () => {
    const { client, credentials } = await createVerifiedUser(instance);
    await resetRateLimits(instance);
    for (let attempt = 1; attempt < ATTEMPTS_PER_ACCOUNT; attempt += 1) {
      assertRefused(await client.post('/users/me/password', { currentPassword: `wrong guess ${attempt}`, newPassword: NEW_PASSWORD }), 403, 'current_password_wrong');
    }
    assert.equal((await client.post('/users/me/password', { currentPassword: credentials.password, newPassword: NEW_PASSWORD })).status, 204);
    for (let attempt = 1; attempt < ATTEMPTS_PER_ACCOUNT; attempt += 1) {
      assertRefused(await client.post('/users/me/password', { currentPassword: `wrong again ${attempt}`, newPassword: credentials.password }), 403, 'current_password_wrong');
    }
    assert.equal((await client.post('/users/me/password', { currentPassword: NEW_PASSWORD, newPassword: credentials.password })).status, 204);
  });

  test('success: 204, the old password no longer signs in and the new one does, other sessions end and this one stays', async () => {
    const { client, credentials, user } = await createVerifiedUser(instance);
    const otherBrowser = new TestClient(instance.baseUrl);
    assert.equal((await otherBrowser.post('/auth/login', { login: credentials.email, password: credentials.password })).status, 200);
    assert.equal((await otherBrowser.get('/users/me')).status, 200);
    const othersCookie = otherBrowser.sessionCookie!;
    const ownCookie = client.sessionCookie!;
    const someoneElse = await createVerifiedUser(instance);

    const changed = await client.post('/users/me/password', { currentPassword: credentials.password, newPassword: NEW_PASSWORD });
    assert.equal(changed.status, 204, changed.text);
    assert.equal(changed.text, '');

    assertRefused(await otherBrowser.get('/users/me'), 401, 'unauthenticated');
    const me = await client.get('/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.id, user.id);
    assert.equal(client.sessionCookie, ownCookie, 'the session cookie is kept');
    assert.notEqual(othersCookie, ownCookie);
    assert.equal((await someoneElse.client.get('/users/me')).status, 200, 'other accounts keep their sessions');

    assertRefused(await signIn(credentials.username, credentials.password), 401, 'invalid_credentials');
    const fresh = await signIn(credentials.username, NEW_PASSWORD);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.user.id, user.id);

    const audit = await AuditEntry.findOne({ where: { action: 'auth.password_changed', actorId: user.id } });
    assert.ok(audit);
    assert.doesNotMatch(JSON.stringify(audit.details), /long enough|brand new/);
  });
});
