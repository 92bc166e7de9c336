/**
 * Shortcuts that bring a test instance into a known state through the real API.
 */
import assert from 'node:assert/strict';
import { QueryTypes } from 'sequelize';
import { User } from '../models/index.ts';
import { waitFor } from './polling.ts';
import { TestClient } from './testClient.ts';
import type { TestInstance } from './testInstance.ts';

export const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery', displayName: 'Ada Admin' };

/** A fresh sign-in of the setup's Site Admin (a session of its own, e.g. for a browser's cookie). */
export async function signInAdmin(instance: TestInstance): Promise<TestClient> {
  const admin = new TestClient(instance.baseUrl);
  const login = await admin.post('/auth/login', { login: ADMIN.username, password: ADMIN.password });
  assert.equal(login.status, 200, login.text);
  return admin;
}

/** Runs the whole wizard; returns the admin's signed-in client. */
export async function completeSetup(instance: TestInstance, options: { registration?: 'open' | 'closed' } = {}): Promise<TestClient> {
  const admin = new TestClient(instance.baseUrl);
  assert.equal((await admin.post('/setup/admin', ADMIN)).status, 201);
  assert.equal((await admin.post('/setup/instance', { name: 'Testteich', baseUrl: instance.baseUrl, defaultLocale: 'en' })).status, 200);
  assert.equal((await admin.post('/setup/registration', { mode: options.registration ?? 'open' })).status, 200);
  assert.equal((await admin.post('/setup/complete')).status, 200);
  return admin;
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
  const lockWaiters = async () => {
    const [row] = await instance.services.sequelize.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      { type: QueryTypes.SELECT },
    );
    return (row?.waiting ?? 0) > 0;
  };
  await waitFor(lockWaiters, 10_000, 'a request to wait for the lock');
}

let counter = 0;

/**
 * Signs up a fresh user and marks the address verified (as the mailed link would; tests of
 * the link itself use api/testing/mailRelay.ts); returns their signed-in client and credentials.
 */
export async function createVerifiedUser(instance: TestInstance, overrides: { locale?: 'de' | 'en' } = {}) {
  counter += 1;
  const credentials = { username: `user${counter}`, email: `user${counter}@example.org`, password: 'a long enough password', displayName: `User ${counter}`, ...overrides };
  const client = new TestClient(instance.baseUrl);
  const signup = await client.post('/auth/signup', credentials);
  assert.equal(signup.status, 201, signup.text);
  await User.update({ status: 'ACTIVE', emailVerifiedAt: new Date() }, { where: { id: signup.body.user.id } });
  const login = await client.post('/auth/login', { login: credentials.username, password: credentials.password });
  assert.equal(login.status, 200, login.text);
  return { client, credentials, user: login.body.user as { id: string; username: string } };
}
