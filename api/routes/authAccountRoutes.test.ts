/**
 * Self-service account flows through HTTP against a real database, on an instance WITHOUT
 * mail (no relay saved, no `SMTP_*`): signup makes an ACTIVE account that is signed in at
 * once, and the link requests say that no mail goes out, the same for every address. Signup
 * rules that do not depend on mail (closed registration, the personal pond, field rules,
 * taken names) are here too. The flows with mail: authAccountRoutesWithMail.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, EmailToken, Grant, MailOutboxEntry, Pond, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { accountMailJobs } from '../testing/mailRelay.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';

let counter = 0;
function newAccount(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return { username: `acct${counter}`, email: `acct${counter}@example.org`, password: PASSWORD, ...overrides };
}

describe('signup with closed registration', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance, { registration: 'closed' });
  });
  after(() => instance.close());

  test('signup is refused with 403 registration_closed and creates nothing', async () => {
    const account = newAccount();
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, 'registration_closed');
    assert.equal(await User.count({ where: { username: account.username } }), 0);
    assert.deepEqual(await accountMailJobs(instance), []);
  });
});

describe('accounts on an instance without mail', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  async function signup(account = newAccount()) {
    const client = new TestClient(instance.baseUrl);
    const response = await client.post('/auth/signup', account);
    assert.equal(response.status, 201, response.text);
    return { account, client, userId: response.body.user.id as string, response };
  }

  test('signup answers 201 with an ACTIVE, unverified account that is signed in, and says no mail was sent', async () => {
    const account = newAccount({ displayName: 'Frieda Frosch', locale: 'de' });
    const { client, userId, response } = await signup(account);
    assert.equal(response.body.mailConfigured, false);
    assert.equal(response.body.signedIn, true);
    assert.equal(response.body.user.status, 'ACTIVE');
    assert.equal(response.body.user.emailVerified, false);
    assert.equal(response.body.user.displayName, 'Frieda Frosch');
    assert.equal(response.body.user.locale, 'de');
    assert.equal(response.body.user.passwordHash, undefined);

    const me = await client.get('/users/me');
    assert.equal(me.status, 200, 'the signup response set the session cookie');
    assert.equal(me.body.id, userId);

    // Nothing was issued, queued or recorded: there is no link anybody could ever use.
    assert.equal(await EmailToken.count({ where: { userId } }), 0);
    assert.deepEqual(await accountMailJobs(instance), []);
    assert.equal(await MailOutboxEntry.count({ where: { recipient: account.email } }), 0);
    const audit = await AuditEntry.findOne({ where: { action: 'auth.signup', actorId: userId } });
    assert.ok(audit, 'auth.signup is audited');
    assert.equal(audit.details.username, account.username);
    assert.equal(audit.details.mailConfigured, false);
  });

  test('the new account signs in with its password at once, from another browser too', async () => {
    const { account } = await signup();
    const login = await new TestClient(instance.baseUrl).post('/auth/login', { login: account.username, password: PASSWORD });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.user.status, 'ACTIVE');
    assert.equal(login.body.user.emailVerified, false);
  });

  test('signup creates a personal pond with the owner\'s pond_admin grant', async () => {
    const { userId } = await signup();
    const ponds = await Pond.findAll({ where: { ownerId: userId } });
    assert.equal(ponds.length, 1);
    assert.equal(ponds[0]!.kind, 'personal');
    const grants = await Grant.findAll({ where: { pondId: ponds[0]!.id } });
    assert.equal(grants.length, 1);
    assert.equal(grants[0]!.subjectType, 'user');
    assert.equal(grants[0]!.subjectUserId, userId);
    assert.equal(grants[0]!.role, 'pond_admin');
    assert.equal(grants[0]!.scopeType, 'pond');
    assert.equal(grants[0]!.scopeLabelId, null);
    assert.equal(grants[0]!.scopePageId, null);
    assert.equal(grants[0]!.effect, 'allow');
  });

  test('forgot-password answers 202 { mailConfigured: false } for a known and an unknown address alike, and issues nothing', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const anonymous = new TestClient(instance.baseUrl);
    const known = await anonymous.post('/auth/forgot-password', { email: credentials.email });
    const unknown = await anonymous.post('/auth/forgot-password', { email: 'nobody@example.org' });
    for (const response of [known, unknown]) {
      assert.equal(response.status, 202);
      assert.deepEqual(response.body, { mailConfigured: false });
    }
    assert.equal(await EmailToken.count({ where: { userId: user.id } }), 0);
    assert.deepEqual(await accountMailJobs(instance), []);
    assert.equal(await AuditEntry.count({ where: { action: 'auth.password_reset_requested', actorId: user.id } }), 0);
  });

  test('resend-verification answers 202 { mailConfigured: false } for a known and an unknown address alike, and issues nothing', async () => {
    const { account, userId } = await signup();
    const anonymous = new TestClient(instance.baseUrl);
    const known = await anonymous.post('/auth/resend-verification', { email: account.email });
    const unknown = await anonymous.post('/auth/resend-verification', { email: 'nobody@example.org' });
    for (const response of [known, unknown]) {
      assert.equal(response.status, 202);
      assert.deepEqual(response.body, { mailConfigured: false });
    }
    assert.equal(await EmailToken.count({ where: { userId } }), 0);
    assert.deepEqual(await accountMailJobs(instance), []);
  });

  test('link requests are still rate limited: the sixth for one address answers 429', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    for (let attempt = 1; attempt <= 5; attempt += 1) assert.equal((await anonymous.post('/auth/forgot-password', { email: 'probe@example.org' })).status, 202);
    const limited = await anonymous.post('/auth/forgot-password', { email: 'PROBE@example.org' });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limited');
  });

  test('concurrent signups whose usernames give the same pond slug all succeed with distinct slugs', async () => {
    const usernames = ['race.pond', 'race-pond', 'race_pond', 'race..pond'];
    const responses = await Promise.all(
      usernames.map((username) => new TestClient(instance.baseUrl).post('/auth/signup', { username, email: `${username.replaceAll('.', 'dot')}@example.org`, password: PASSWORD })),
    );
    assert.deepEqual(responses.map((response) => response.status), [201, 201, 201, 201], responses.map((response) => response.text).join('\n'));
    const ponds = await Pond.findAll({ where: { kind: 'personal', ownerId: responses.map((response) => response.body.user.id) } });
    assert.deepEqual(ponds.map((pond) => pond.slug).sort(), ['race-pond', 'race-pond-2', 'race-pond-3', 'race-pond-4']);
  });

  test('a 9-character password is refused with 400 validation_failed naming the field', async () => {
    const account = newAccount({ password: '123456789' });
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), ['password']);
    assert.equal(await User.count({ where: { username: account.username } }), 0);
  });

  test('a 10-character password is accepted', async () => {
    await signup(newAccount({ password: '1234567890' }));
  });

  test('a taken username is refused with 409 username_taken, case-insensitively', async () => {
    const { account } = await signup();
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', newAccount({ username: account.username.toUpperCase() }));
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'username_taken');
  });

  test('a taken e-mail is refused with 409 email_taken, case-insensitively', async () => {
    const { account } = await signup();
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', newAccount({ email: account.email.toUpperCase() }));
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'email_taken');
    assert.equal(await User.count({ where: { email: account.email } }), 1);
  });

  test('verify-email and reset-password with an unknown token answer 400 token_invalid', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    const verify = await anonymous.post('/auth/verify-email', { token: 'not-a-real-token-at-all' });
    assert.equal(verify.status, 400);
    assert.equal(verify.body.error.code, 'token_invalid');
    const reset = await anonymous.post('/auth/reset-password', { token: 'not-a-real-token-at-all', password: 'a brand new password' });
    assert.equal(reset.status, 400);
    assert.equal(reset.body.error.code, 'token_invalid');
  });
});
