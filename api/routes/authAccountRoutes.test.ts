/**
 * Self-service account flows through HTTP against a real database: signup (closed and open
 * registration, the personal pond and its grant), e-mail verification, resending it, and the
 * forgot/reset password flow with link lifetimes, single use and session revocation.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, EmailToken, Grant, MailOutboxEntry, Pond, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, latestMailedToken, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';
const HOUR_MS = 60 * 60 * 1000;

let counter = 0;
function newAccount(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return { username: `acct${counter}`, email: `acct${counter}@example.org`, password: PASSWORD, ...overrides };
}

/** The newest token row of a purpose for a user, to check its lifetime or age it. */
async function latestTokenRow(userId: string, purpose: 'verify_email' | 'reset_password'): Promise<EmailToken> {
  const row = await EmailToken.findOne({ where: { userId, purpose }, order: [['createdAt', 'DESC']] });
  assert.ok(row, `an ${purpose} token exists`);
  return row;
}

function assertExpiresIn(row: EmailToken, lifetimeMs: number, issuedBetween: [number, number]): void {
  const expiresAt = row.expiresAt.getTime();
  assert.ok(expiresAt >= issuedBetween[0] + lifetimeMs - 1000, `expires no earlier than ${lifetimeMs} ms after issue`);
  assert.ok(expiresAt <= issuedBetween[1] + lifetimeMs + 1000, `expires no later than ${lifetimeMs} ms after issue`);
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
    assert.equal(await MailOutboxEntry.count({ where: { recipient: account.email } }), 0);
  });
});

describe('signup, verification and password reset with open registration', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  async function signup(account = newAccount()) {
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
    assert.equal(response.status, 201, response.text);
    return { account, userId: response.body.user.id as string, response };
  }

  test('signup answers 201 with an unconfirmed user, a personal pond with a pond_admin grant, a mail and an audit row', async () => {
    const account = newAccount({ displayName: 'Frieda Frosch', locale: 'de' });
    const { userId, response } = await signup(account);
    assert.equal(response.body.user.status, 'unconfirmed');
    assert.equal(response.body.user.emailVerified, false);
    assert.equal(response.body.user.displayName, 'Frieda Frosch');
    assert.equal(response.body.user.locale, 'de');
    assert.equal(response.body.user.passwordHash, undefined);

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

    const mail = await MailOutboxEntry.findOne({ where: { recipient: account.email, kind: 'verify_email' } });
    assert.ok(mail, 'verification mail written to the outbox');
    assert.match(mail.textBody, new RegExp(`${instance.baseUrl}/verify-email\\?token=[A-Za-z0-9_-]{20,}`));
    assert.match(mail.subject, /E-Mail-Adresse/, 'mailed in the chosen locale');
    const audit = await AuditEntry.findOne({ where: { action: 'auth.signup', actorId: userId } });
    assert.ok(audit, 'auth.signup is audited');
    assert.equal(audit.details.username, account.username);
  });

  test('concurrent signups whose usernames give the same pond slug all succeed with distinct slugs', async () => {
    const usernames = ['race.pond', 'race-pond', 'race_pond', 'race..pond'];
    const responses = await Promise.all(
      usernames.map((username) =>
        new TestClient(instance.baseUrl).post('/auth/signup', { username, email: `${username.replaceAll('.', 'dot')}@example.org`, password: 'a long enough password' }),
      ),
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

  test('verify-email with an unknown token answers 400 token_invalid', async () => {
    const response = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token: 'not-a-real-token-at-all' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'token_invalid');
  });

  test('verify-email activates the account; the link lives 24 h and works once', async () => {
    const issuedAfter = Date.now();
    const { account, userId } = await signup();
    assertExpiresIn(await latestTokenRow(userId, 'verify_email'), 24 * HOUR_MS, [issuedAfter, Date.now()]);
    const token = await latestMailedToken(account.email, 'verify_email');
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/verify-email', { token })).status, 200);
    const user = await User.findByPk(userId);
    assert.equal(user!.status, 'ACTIVE');
    assert.ok(user!.emailVerifiedAt);
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.email_verified', actorId: userId } }));
    const login = await client.post('/auth/login', { login: account.username, password: PASSWORD });
    assert.equal(login.status, 200);
    assert.equal(login.body.user.emailVerified, true);

    const again = await client.post('/auth/verify-email', { token });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'token_invalid');
  });

  test('an expired verification link answers 410 token_expired and leaves the account unconfirmed', async () => {
    const { account, userId } = await signup();
    await EmailToken.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { userId, purpose: 'verify_email' } });
    const response = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token: await latestMailedToken(account.email, 'verify_email') });
    assert.equal(response.status, 410);
    assert.equal(response.body.error.code, 'token_expired');
    assert.equal((await User.findByPk(userId))!.status, 'unconfirmed');
  });

  test('a reset token is not accepted as a verification token', async () => {
    const { account } = await signup();
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/forgot-password', { email: account.email })).status, 202);
    const response = await client.post('/auth/verify-email', { token: await latestMailedToken(account.email, 'reset_password') });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'token_invalid');
  });

  test('resend-verification answers 202 for an unknown address and mails nothing', async () => {
    const mailsBefore = await MailOutboxEntry.count();
    const response = await new TestClient(instance.baseUrl).post('/auth/resend-verification', { email: 'nobody@example.org' });
    assert.equal(response.status, 202);
    assert.equal(await MailOutboxEntry.count(), mailsBefore);
  });

  test('resend-verification issues a new working token and retires the old one', async () => {
    const { account, userId } = await signup();
    const oldToken = await latestMailedToken(account.email, 'verify_email');
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/resend-verification', { email: account.email.toUpperCase() })).status, 202);
    const newToken = await latestMailedToken(account.email, 'verify_email');
    assert.notEqual(newToken, oldToken);
    assert.equal((await client.post('/auth/verify-email', { token: oldToken })).body.error.code, 'token_invalid');
    assert.equal((await client.post('/auth/verify-email', { token: newToken })).status, 200);
    assert.equal((await User.findByPk(userId))!.status, 'ACTIVE');
  });

  test('resend-verification for an already active account answers 202 and mails nothing', async () => {
    const { credentials } = await createVerifiedUser(instance);
    const mailsBefore = await MailOutboxEntry.count({ where: { recipient: credentials.email } });
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/resend-verification', { email: credentials.email })).status, 202);
    assert.equal(await MailOutboxEntry.count({ where: { recipient: credentials.email } }), mailsBefore);
  });

  test('forgot-password answers 202 for an unknown address and mails nothing', async () => {
    const mailsBefore = await MailOutboxEntry.count();
    const response = await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: 'nobody@example.org' });
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, {});
    assert.equal(await MailOutboxEntry.count(), mailsBefore);
  });

  test('forgot-password answers 202 for a known address and mails a reset link valid for 1 h', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const issuedAfter = Date.now();
    const response = await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: credentials.email });
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, {});
    const mail = await MailOutboxEntry.findOne({ where: { recipient: credentials.email, kind: 'reset_password' } });
    assert.ok(mail, 'reset mail written to the outbox');
    assert.match(mail.textBody, new RegExp(`${instance.baseUrl}/reset-password\\?token=[A-Za-z0-9_-]{20,}`));
    assertExpiresIn(await latestTokenRow(user.id, 'reset_password'), HOUR_MS, [issuedAfter, Date.now()]);
  });

  test('reset-password sets the new password, ends every earlier session, works once and is audited', async () => {
    const { client: earlierSession, credentials, user } = await createVerifiedUser(instance);
    const anonymous = new TestClient(instance.baseUrl);
    assert.equal((await anonymous.post('/auth/forgot-password', { email: credentials.email })).status, 202);
    const token = await latestMailedToken(credentials.email, 'reset_password');
    const newPassword = 'a brand new password';
    const reset = await anonymous.post('/auth/reset-password', { token, password: newPassword });
    assert.equal(reset.status, 200, reset.text);

    assert.equal((await earlierSession.get('/users/me')).status, 401);
    const oldLogin = await anonymous.post('/auth/login', { login: credentials.username, password: credentials.password });
    assert.equal(oldLogin.status, 401);
    assert.equal(oldLogin.body.error.code, 'invalid_credentials');
    assert.equal((await anonymous.post('/auth/login', { login: credentials.username, password: newPassword })).status, 200);
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.password_reset', actorId: user.id } }));

    const reuse = await anonymous.post('/auth/reset-password', { token, password: 'yet another password' });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error.code, 'token_invalid');
  });

  test('an expired reset link answers 410 token_expired and keeps the old password', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/forgot-password', { email: credentials.email })).status, 202);
    await EmailToken.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { userId: user.id, purpose: 'reset_password' } });
    const response = await client.post('/auth/reset-password', { token: await latestMailedToken(credentials.email, 'reset_password'), password: 'a brand new password' });
    assert.equal(response.status, 410);
    assert.equal(response.body.error.code, 'token_expired');
    assert.equal((await client.post('/auth/login', { login: credentials.username, password: credentials.password })).status, 200);
  });

  test('reset-password with a 9-character password answers 400 validation_failed and keeps the token usable', async () => {
    const { credentials } = await createVerifiedUser(instance);
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/forgot-password', { email: credentials.email })).status, 202);
    const token = await latestMailedToken(credentials.email, 'reset_password');
    const response = await client.post('/auth/reset-password', { token, password: '123456789' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), ['password']);
    assert.equal((await client.post('/auth/reset-password', { token, password: '1234567890' })).status, 200);
  });

  test('reset-password with an unknown token answers 400 token_invalid', async () => {
    const response = await new TestClient(instance.baseUrl).post('/auth/reset-password', { token: 'not-a-real-token-at-all', password: 'a brand new password' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'token_invalid');
  });
});
