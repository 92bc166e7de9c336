/**
 * Shortcuts that bring a test instance into a known state through the real API.
 */
import assert from 'node:assert/strict';
import { QueryTypes } from 'sequelize';
import { MailOutboxEntry } from '../models/index.ts';
import { TestClient } from './testClient.ts';
import type { TestInstance } from './testInstance.ts';

export const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery', displayName: 'Ada Admin' };

/** Runs the whole wizard; returns the admin's signed-in client. */
export async function completeSetup(instance: TestInstance, options: { registration?: 'open' | 'closed' } = {}): Promise<TestClient> {
  const admin = new TestClient(instance.baseUrl);
  assert.equal((await admin.post('/setup/admin', ADMIN)).status, 201);
  assert.equal((await admin.post('/setup/instance', { name: 'Testteich', baseUrl: instance.baseUrl, defaultLocale: 'en' })).status, 200);
  assert.equal((await admin.post('/setup/registration', { mode: options.registration ?? 'open' })).status, 200);
  assert.equal((await admin.post('/setup/complete')).status, 200);
  return admin;
}

/** The token of the newest link mailed to `recipient` (from the outbox: SMTP is not configured in tests). */
export async function latestMailedToken(recipient: string, kind: 'verify_email' | 'reset_password'): Promise<string> {
  const mail = await MailOutboxEntry.findOne({ where: { recipient, kind }, order: [['id', 'DESC']] });
  assert.ok(mail, `no ${kind} mail to ${recipient}`);
  const match = /token=([A-Za-z0-9_-]+)/.exec(mail.textBody);
  assert.ok(match?.[1], 'mail carries a token link');
  return match[1];
}

/**
 * Forgets every rate-limit counter. Tests all come from 127.0.0.1, so suites that sign many
 * users up (and in) would otherwise hit the per-IP limits they are not testing.
 */
export async function resetRateLimits(instance: TestInstance): Promise<void> {
  await instance.services.sequelize.query('DELETE FROM rate_limit_counters');
}

/**
 * Resolves once some connection of the instance's database waits for a lock: the moment a
 * request is parked behind a lock the test holds, to make a race deterministic.
 */
export async function waitForLockWaiter(instance: TestInstance): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const [row] = await instance.services.sequelize.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      { type: QueryTypes.SELECT },
    );
    if (row && row.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('no request ever waited for the lock');
}

let counter = 0;

/** Signs up and verifies a fresh user; returns their signed-in client and credentials. */
export async function createVerifiedUser(instance: TestInstance, overrides: { locale?: 'de' | 'en' } = {}) {
  counter += 1;
  const credentials = { username: `user${counter}`, email: `user${counter}@example.org`, password: 'a long enough password', displayName: `User ${counter}`, ...overrides };
  const client = new TestClient(instance.baseUrl);
  const signup = await client.post('/auth/signup', credentials);
  assert.equal(signup.status, 201, signup.text);
  const token = await latestMailedToken(credentials.email, 'verify_email');
  assert.equal((await client.post('/auth/verify-email', { token })).status, 200);
  const login = await client.post('/auth/login', { login: credentials.username, password: credentials.password });
  assert.equal(login.status, 200, login.text);
  return { client, credentials, user: login.body.user as { id: string; username: string } };
}
