/**
 * Login throttling through HTTP against a real database: attempts are counted per client
 * address and per (account, address) before the password is checked, so parallel guesses
 * get no more checks than the limit and an attacker's address being locked out does not
 * lock out the owner. Which address counts depends on TRUST_PROXY (hop count, trusted
 * CIDRs, or off), observed here through the per-address limit and the session's address.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createAccount } from '../commands/accountCreator.ts';
import { AuditEntry, Session } from '../models/index.ts';
import { completeSetup, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const WRONG = 'wrong password!';

let accounts = 0;

/** An active account, made directly: these tests are about signing in, not signing up. */
async function createActiveAccount(instance: TestInstance) {
  accounts += 1;
  const credentials = { username: `member${accounts}`, email: `member${accounts}@example.org`, password: 'a long enough password' };
  const { user } = await instance.services.sequelize.transaction((transaction) =>
    createAccount(
      { ...credentials, displayName: `Member ${accounts}`, locale: null, status: 'ACTIVE', isSiteAdmin: false, emailVerified: true, passwordHashCost: instance.services.config.passwordHashCost },
      transaction,
    ),
  );
  return { credentials, user };
}

/** Runs `body` against a fresh instance with the given environment, setup done and counters cleared. */
async function withInstance(env: Record<string, string>, body: (instance: TestInstance) => Promise<void>): Promise<void> {
  const instance = await startTestInstance({ env });
  try {
    await completeSetup(instance);
    await body(instance);
  } finally {
    await instance.close();
  }
}

/** One sign-in attempt from a fresh browser, optionally through a proxy that sets X-Forwarded-For. */
function attempt(instance: TestInstance, login: string, password: string, forwardedFor?: string): Promise<TestResponse> {
  const headers: Record<string, string> = forwardedFor ? { 'x-forwarded-for': forwardedFor } : {};
  return new TestClient(instance.baseUrl).post('/auth/login', { login, password }, { headers });
}

function assertRateLimited(response: TestResponse): void {
  assert.equal(response.status, 429, response.text);
  assert.equal(response.body.error.code, 'rate_limited');
  assert.match(response.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
}

describe('login rate limit per account and address', () => {
  test('after 3 failures the 4th attempt is 429 with Retry-After, even with the right password; other accounts are unaffected', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_ACCOUNT: '3' }, async (instance) => {
      const { credentials } = await createActiveAccount(instance);
      const other = await createActiveAccount(instance);
      await resetRateLimits(instance);
      for (let count = 1; count <= 3; count += 1) assert.equal((await attempt(instance, credentials.username, WRONG)).status, 401);
      const limited = await attempt(instance, credentials.username, credentials.password);
      assertRateLimited(limited);
      assert.equal(limited.headers.getSetCookie().length, 0, 'no session cookie');
      assert.equal((await attempt(instance, other.credentials.username, other.credentials.password)).status, 200);
    });
  });

  test('alternating username and e-mail shares one budget', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_ACCOUNT: '3' }, async (instance) => {
      const { credentials } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      for (const login of [credentials.username, credentials.email.toUpperCase(), credentials.username]) {
        assert.equal((await attempt(instance, login, WRONG)).status, 401);
      }
      assertRateLimited(await attempt(instance, credentials.email, credentials.password));
    });
  });

  test('a successful login clears the count of its account and address', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_ACCOUNT: '3' }, async (instance) => {
      const { credentials } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      const fail = () => attempt(instance, credentials.username, WRONG);
      const succeed = () => attempt(instance, credentials.username, credentials.password);
      assert.equal((await fail()).status, 401);
      assert.equal((await fail()).status, 401);
      assert.equal((await succeed()).status, 200);
      assert.equal((await fail()).status, 401);
      assert.equal((await fail()).status, 401);
      assert.equal((await succeed()).status, 200);
    });
  });

  test('an unknown account costs and counts the same: the 4th attempt for it is 429', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_ACCOUNT: '3' }, async (instance) => {
      for (const login of ['nobody-here', 'Nobody-Here', ' NOBODY-HERE ']) assert.equal((await attempt(instance, login, WRONG)).status, 401);
      assertRateLimited(await attempt(instance, 'nobody-here', WRONG));
      assert.equal((await attempt(instance, 'somebody-else', WRONG)).status, 401);
    });
  });

  test('30 parallel wrong passwords with a limit of 10: exactly 10 password checks (401), the other 20 are 429', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_ACCOUNT: '10', LOGIN_RATE_LIMIT_PER_IP: '100' }, async (instance) => {
      const { credentials, user } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      const checksBefore = await AuditEntry.count({ where: { action: 'auth.login_failed', actorId: user.id } });
      const answers = await Promise.all(Array.from({ length: 30 }, () => attempt(instance, credentials.username, WRONG)));
      const statuses = answers.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 401).length, 10, `statuses: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 429).length, 20, `statuses: ${statuses.join(' ')}`);
      for (const answer of answers) if (answer.status === 429) assertRateLimited(answer);
      // Every password check that fails is audited: ten checks, no more.
      assert.equal(await AuditEntry.count({ where: { action: 'auth.login_failed', actorId: user.id } }), checksBefore + 10);
      assertRateLimited(await attempt(instance, credentials.username, credentials.password));
    });
  });

  test('the owner signs in from another address while the attacker\'s address is locked out', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_ACCOUNT: '3', TRUST_PROXY: '1' }, async (instance) => {
      const { credentials, user } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      const attacker = '203.0.113.66';
      const owner = '198.51.100.7';
      for (let count = 1; count <= 3; count += 1) assert.equal((await attempt(instance, credentials.username, WRONG, attacker)).status, 401);
      assertRateLimited(await attempt(instance, credentials.username, WRONG, attacker));
      assertRateLimited(await attempt(instance, credentials.email, credentials.password, attacker));

      const login = await attempt(instance, credentials.username, credentials.password, owner);
      assert.equal(login.status, 200, login.text);
      assert.equal(login.body.user.id, user.id);
      // The owner's success does not reopen the attacker's address.
      assertRateLimited(await attempt(instance, credentials.username, WRONG, attacker));
    });
  });
});

describe('login rate limit per address', () => {
  test('the 4th attempt from one address is 429 with Retry-After, whatever the account', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_IP: '3' }, async (instance) => {
      const { credentials } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      for (const login of ['someone', 'someone-else', 'a-third']) assert.equal((await attempt(instance, login, WRONG)).status, 401);
      assertRateLimited(await attempt(instance, credentials.username, credentials.password));
    });
  });
});

describe('TRUST_PROXY decides which address counts', () => {
  /** The address stored with the session a successful sign-in created. */
  async function sessionAddress(userId: string): Promise<string | null> {
    const session = await Session.findOne({ where: { userId }, order: [['createdAt', 'DESC']] });
    assert.ok(session);
    return session.lastSeenIp;
  }

  test('false (the default): X-Forwarded-For is ignored, every attempt counts for the socket address', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_IP: '2' }, async (instance) => {
      const { credentials, user } = await createActiveAccount(instance);
      assert.equal((await attempt(instance, credentials.username, credentials.password, '203.0.113.9')).status, 200);
      assert.equal(await sessionAddress(user.id), '127.0.0.1');
      await resetRateLimits(instance);
      assert.equal((await attempt(instance, 'someone', WRONG, '203.0.113.1')).status, 401);
      assert.equal((await attempt(instance, 'someone', WRONG, '203.0.113.2')).status, 401);
      assertRateLimited(await attempt(instance, credentials.username, credentials.password, '203.0.113.3'));
    });
  });

  test('1: the client is the last X-Forwarded-For hop; earlier entries, which the client can write, do not count', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_IP: '2', TRUST_PROXY: '1' }, async (instance) => {
      const { credentials, user } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      assert.equal((await attempt(instance, 'someone', WRONG, '10.9.9.9, 203.0.113.1')).status, 401);
      assert.equal((await attempt(instance, 'someone', WRONG, '10.8.8.8, 203.0.113.1')).status, 401);
      assertRateLimited(await attempt(instance, 'someone', WRONG, '10.7.7.7, 203.0.113.1'));
      const login = await attempt(instance, credentials.username, credentials.password, '203.0.113.1, 198.51.100.20');
      assert.equal(login.status, 200, login.text);
      assert.equal(await sessionAddress(user.id), '198.51.100.20');
    });
  });

  test('a list of trusted proxies: their X-Forwarded-For entries are skipped, the first untrusted one is the client', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_IP: '2', TRUST_PROXY: '127.0.0.1, 10.0.0.0/8, 2001:db8::/32' }, async (instance) => {
      const { credentials, user } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      // Through two trusted proxies (one IPv6) the client is 203.0.113.5, whatever it claims before that.
      assert.equal((await attempt(instance, 'someone', WRONG, '1.1.1.1, 203.0.113.5, 2001:db8::7, 10.1.2.3')).status, 401);
      assert.equal((await attempt(instance, 'someone', WRONG, '2.2.2.2, 203.0.113.5, 10.3.2.1')).status, 401);
      assertRateLimited(await attempt(instance, 'someone', WRONG, '203.0.113.5'));
      const login = await attempt(instance, credentials.username, credentials.password, '203.0.113.5, 198.51.100.30, 10.0.0.1');
      assert.equal(login.status, 200, login.text);
      assert.equal(await sessionAddress(user.id), '198.51.100.30');
    });
  });

  test('a list that does not hold the proxy in front: its X-Forwarded-For is ignored', async () => {
    await withInstance({ LOGIN_RATE_LIMIT_PER_IP: '2', TRUST_PROXY: '10.0.0.0/8' }, async (instance) => {
      const { credentials } = await createActiveAccount(instance);
      await resetRateLimits(instance);
      assert.equal((await attempt(instance, 'someone', WRONG, '203.0.113.1')).status, 401);
      assert.equal((await attempt(instance, 'someone', WRONG, '203.0.113.2')).status, 401);
      assertRateLimited(await attempt(instance, credentials.username, credentials.password, '203.0.113.3'));
    });
  });

  test('behind an HTTPS proxy (TRUST_PROXY=1) the session cookie is Secure', async () => {
    await withInstance({ TRUST_PROXY: '1' }, async (instance) => {
      const { credentials } = await createActiveAccount(instance);
      const client = new TestClient(instance.baseUrl);
      const login = await client.post('/auth/login', { login: credentials.username, password: credentials.password }, { headers: { 'x-forwarded-proto': 'https' } });
      assert.equal(login.status, 200, login.text);
      const cookie = login.headers.getSetCookie().find((value) => value.startsWith('dt_session='));
      assert.match(cookie ?? '', /;\s*Secure/i);
    });
  });
});
