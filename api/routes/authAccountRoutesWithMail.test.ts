/**
 * Self-service account flows on an instance WITH mail: a real SMTP sink saved as the relay
 * and a real worker delivering the jobs the routes enqueue. Signup leaves the account
 * unconfirmed until the mailed link is opened; verification, resending and the forgot/reset
 * password flow work through the links that actually arrive, with their lifetimes, single use
 * and session revocation. Link requests answer the same whether or not the address has an
 * account.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, EmailToken, User } from '../models/index.ts';
import { completeSetup, resetRateLimits } from '../testing/fixtures.ts';
import { startMailRelay, type MailRelay } from '../testing/mailRelay.ts';
import { subjectOf } from '../testing/smtpTestServer.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';
const HOUR_MS = 60 * 60 * 1000;

let counter = 0;
function newAccount(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return { username: `mailed${counter}`, email: `mailed${counter}@example.org`, password: PASSWORD, ...overrides };
}

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

describe('accounts on an instance with mail', () => {
  let instance: TestInstance;
  let relay: MailRelay;
  /** An account that exists and gets mail, to prove that nothing was queued before it. */
  let marker: { email: string };

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    relay = await startMailRelay(instance);
    marker = (await signUpAndVerify()).account;
  });
  after(async () => {
    await relay.close();
    await instance.close();
  });
  beforeEach(() => resetRateLimits(instance));

  async function signup(account = newAccount()) {
    const client = new TestClient(instance.baseUrl);
    const response = await client.post('/auth/signup', account);
    assert.equal(response.status, 201, response.text);
    return { account, client, userId: response.body.user.id as string, response };
  }

  async function signUpAndVerify(account = newAccount()) {
    const created = await signup(account);
    const verified = await created.client.post('/auth/verify-email', { token: await relay.token(account.email, 'verify-email') });
    assert.equal(verified.status, 200, verified.text);
    return created;
  }

  /**
   * Asserts that no mail for `recipient` was queued: the worker runs one job at a time in
   * queue order, so once a mail asked for afterwards has arrived, an earlier one would have too.
   */
  async function assertNothingMailedTo(recipient: string): Promise<void> {
    const markerMails = relay.linksSoFar(marker.email, 'reset-password').length;
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: marker.email })).status, 202);
    await relay.link(marker.email, 'reset-password', markerMails + 1);
    assert.deepEqual(
      relay.smtp.messages.filter((message) => message.to.includes(recipient)).map((message) => subjectOf(message.raw)),
      [],
      `no mail to ${recipient}`,
    );
  }

  test('signup answers 201 with an unconfirmed account, not signed in; the verification mail arrives with a link valid 24 h', async () => {
    const account = newAccount({ displayName: 'Frieda Frosch', locale: 'de' });
    const issuedAfter = Date.now();
    const { client, userId, response } = await signup(account);
    assert.equal(response.body.mailConfigured, true);
    assert.equal(response.body.signedIn, false);
    assert.equal(response.body.user.status, 'unconfirmed');
    assert.equal(response.body.user.emailVerified, false);
    assert.equal(client.sessionCookie, undefined);
    assert.equal((await client.get('/users/me')).status, 401);

    const link = await relay.link(account.email, 'verify-email');
    assert.match(link, new RegExp(`^${instance.baseUrl}/verify-email\\?token=[A-Za-z0-9_-]{40,}$`));
    const mail = relay.smtp.messages.find((message) => message.to.includes(account.email))!;
    assert.equal(subjectOf(mail.raw), 'Bitte bestätige deine E-Mail-Adresse für Testteich', 'mailed in the chosen locale');
    assertExpiresIn(await latestTokenRow(userId, 'verify_email'), 24 * HOUR_MS, [issuedAfter, Date.now()]);
    const audit = await AuditEntry.findOne({ where: { action: 'auth.signup', actorId: userId } });
    assert.equal(audit?.details.mailConfigured, true);
  });

  test('an unconfirmed account cannot sign in; the mailed link activates it once', async () => {
    const { account, userId } = await signup();
    const client = new TestClient(instance.baseUrl);
    const refused = await client.post('/auth/login', { login: account.username, password: PASSWORD });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'email_unverified');

    const token = await relay.token(account.email, 'verify-email');
    assert.equal((await client.post('/auth/verify-email', { token })).status, 200);
    const user = await User.findByPk(userId);
    assert.equal(user!.status, 'ACTIVE');
    assert.ok(user!.emailVerifiedAt);
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.email_verified', actorId: userId } }));
    const login = await client.post('/auth/login', { login: account.username, password: PASSWORD });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.user.emailVerified, true);

    const again = await client.post('/auth/verify-email', { token });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'token_invalid');
  });

  test('an expired verification link answers 410 token_expired and leaves the account unconfirmed', async () => {
    const { account, userId } = await signup();
    const token = await relay.token(account.email, 'verify-email');
    await EmailToken.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { userId, purpose: 'verify_email' } });
    const response = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token });
    assert.equal(response.status, 410);
    assert.equal(response.body.error.code, 'token_expired');
    assert.equal((await User.findByPk(userId))!.status, 'unconfirmed');
  });

  test('resend-verification mails a new working link and retires the old one', async () => {
    const { account, userId } = await signup();
    const oldToken = await relay.token(account.email, 'verify-email');
    const client = new TestClient(instance.baseUrl);
    const response = await client.post('/auth/resend-verification', { email: account.email.toUpperCase() });
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, { mailConfigured: true });
    const newToken = await relay.token(account.email, 'verify-email', 2);
    assert.notEqual(newToken, oldToken);
    assert.equal((await client.post('/auth/verify-email', { token: oldToken })).body.error.code, 'token_invalid');
    assert.equal((await client.post('/auth/verify-email', { token: newToken })).status, 200);
    assert.equal((await User.findByPk(userId))!.status, 'ACTIVE');
    assert.ok(await AuditEntry.findOne({ where: { action: 'auth.verification_resent', actorId: userId } }));
  });

  test('resend-verification answers the same for an unknown address and a confirmed account, and mails neither', async () => {
    const { account } = await signUpAndVerify();
    const mailsBefore = relay.linksSoFar(account.email, 'verify-email').length;
    const anonymous = new TestClient(instance.baseUrl);
    const confirmed = await anonymous.post('/auth/resend-verification', { email: account.email });
    const unknown = await anonymous.post('/auth/resend-verification', { email: 'nobody-resend@example.org' });
    for (const response of [confirmed, unknown]) {
      assert.equal(response.status, 202);
      assert.deepEqual(response.body, { mailConfigured: true });
    }
    await assertNothingMailedTo('nobody-resend@example.org');
    assert.equal(relay.linksSoFar(account.email, 'verify-email').length, mailsBefore);
  });

  test('forgot-password answers the same for an unknown address and mails nothing', async () => {
    const response = await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: 'nobody-forgot@example.org' });
    assert.equal(response.status, 202);
    assert.deepEqual(response.body, { mailConfigured: true });
    await assertNothingMailedTo('nobody-forgot@example.org');
  });

  test('a reset link is not accepted as a verification link', async () => {
    const { account } = await signup();
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: account.email })).status, 202);
    const response = await new TestClient(instance.baseUrl).post('/auth/verify-email', { token: await relay.token(account.email, 'reset-password') });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'token_invalid');
  });

  test('reset-password through the mailed link: new password, every earlier session ended, once, audited; the link lived 1 h', async () => {
    const { account, client: earlierSession, userId } = await signUpAndVerify();
    assert.equal((await earlierSession.post('/auth/login', { login: account.username, password: PASSWORD })).status, 200);
    const anonymous = new TestClient(instance.baseUrl);
    const issuedAfter = Date.now();
    const requested = await anonymous.post('/auth/forgot-password', { email: account.email });
    assert.equal(requested.status, 202);
    assert.deepEqual(requested.body, { mailConfigured: true });
    const link = await relay.link(account.email, 'reset-password');
    assert.match(link, new RegExp(`^${instance.baseUrl}/reset-password\\?token=`));
    assertExpiresIn(await latestTokenRow(userId, 'reset_password'), HOUR_MS, [issuedAfter, Date.now()]);
    const token = new URL(link).searchParams.get('token')!;

    const newPassword = 'a brand new password';
    const reset = await anonymous.post('/auth/reset-password', { token, password: newPassword });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await earlierSession.get('/users/me')).status, 401);
    const oldLogin = await anonymous.post('/auth/login', { login: account.username, password: PASSWORD });
    assert.equal(oldLogin.status, 401);
    assert.equal(oldLogin.body.error.code, 'invalid_credentials');
    assert.equal((await anonymous.post('/auth/login', { login: account.username, password: newPassword })).status, 200);
    const audit = await AuditEntry.findOne({ where: { action: 'auth.password_reset', actorId: userId } });
    assert.deepEqual(audit?.details, { via: 'mail' });

    const reuse = await anonymous.post('/auth/reset-password', { token, password: 'yet another password' });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error.code, 'token_invalid');
  });

  test('an expired reset link answers 410 token_expired and keeps the old password', async () => {
    const { account, userId } = await signUpAndVerify();
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/forgot-password', { email: account.email })).status, 202);
    const token = await relay.token(account.email, 'reset-password');
    await EmailToken.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { userId, purpose: 'reset_password' } });
    const response = await client.post('/auth/reset-password', { token, password: 'a brand new password' });
    assert.equal(response.status, 410);
    assert.equal(response.body.error.code, 'token_expired');
    assert.equal((await client.post('/auth/login', { login: account.username, password: PASSWORD })).status, 200);
  });

  test('reset-password with a 9-character password answers 400 validation_failed and keeps the link usable', async () => {
    const { account } = await signUpAndVerify();
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.post('/auth/forgot-password', { email: account.email })).status, 202);
    const token = await relay.token(account.email, 'reset-password');
    const response = await client.post('/auth/reset-password', { token, password: '123456789' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), ['password']);
    assert.equal((await client.post('/auth/reset-password', { token, password: '1234567890' })).status, 200);
  });

  test('a mailed reset link also confirms an unconfirmed account: it proves the mailbox', async () => {
    const { account, userId } = await signup();
    await relay.link(account.email, 'verify-email');
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: account.email })).status, 202);
    const token = await relay.token(account.email, 'reset-password');
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/reset-password', { token, password: 'a brand new password' })).status, 200);
    const user = await User.findByPk(userId);
    assert.equal(user!.status, 'ACTIVE');
    assert.ok(user!.emailVerifiedAt);
  });
});
