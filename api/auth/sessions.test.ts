/**
 * Session tokens against a real database: only SHA-256 of the secret is stored, a wrong
 * secret or an expired session is refused, and expiry slides in the second half of the lifetime.
 * Ending sessions is announced on `user_sessions_changed` once committed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { Session, User } from '../models/index.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { createSession, invalidateSession, invalidateUserSessions, readCookie, USER_SESSIONS_CHANNEL, validateSessionToken } from './sessions.ts';

const POLICY = { ttlDays: 30 };
const DAY_MS = 86_400_000;

describe('sessions', () => {
  let instance: TestInstance;
  let userCount = 0;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  async function newUser(status: User['status'] = 'ACTIVE'): Promise<User> {
    userCount += 1;
    return User.create({ username: `s${userCount}`, email: `s${userCount}@example.org`, displayName: 'S', locale: null, status, passwordHash: null, emailVerifiedAt: new Date() });
  }

  async function newSession(user?: User) {
    return createSession((user ?? (await newUser())).id, { ip: '127.0.0.1', userAgent: 'test', policy: POLICY });
  }

  test('the token is <id>.<secret> and the row keeps only SHA-256 of the secret', async () => {
    const before = Date.now();
    const { token, session } = await newSession();
    const [id, secret] = token.split('.');
    assert.ok(id && secret && secret.length >= 32);
    const stored = await Session.findByPk(id);
    assert.ok(stored);
    assert.deepEqual(Buffer.from(stored.secretHash), createHash('sha256').update(secret).digest());
    assert.ok(!Buffer.from(stored.secretHash).toString('latin1').includes(secret));
    assert.ok(Math.abs(session.expiresAt.getTime() - (before + 30 * DAY_MS)) < 5000);
  });

  test('a valid token resolves to its session and user without refreshing a fresh session', async () => {
    const user = await newUser();
    const { token, session } = await newSession(user);
    const validated = await validateSessionToken(token, POLICY);
    assert.ok(validated);
    assert.equal(validated.user.id, user.id);
    assert.equal(validated.session.id, session.id);
    assert.equal(validated.refreshed, false);
  });

  test('a wrong secret is refused and does not end the real session', async () => {
    const { token } = await newSession();
    const [id] = token.split('.');
    assert.equal(await validateSessionToken(`${id}.${'x'.repeat(32)}`, POLICY), null);
    assert.ok(await Session.findByPk(id));
    assert.ok(await validateSessionToken(token, POLICY));
  });

  test('malformed tokens are refused', async () => {
    const { token } = await newSession();
    for (const malformed of ['', 'no-dot', '.secret', `${token}.extra`, `${'a'.repeat(65)}.${token.split('.')[1]}`]) {
      assert.equal(await validateSessionToken(malformed, POLICY), null, malformed);
    }
  });

  test('an expired session is refused and deleted', async () => {
    const { token, session } = await newSession();
    await Session.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { id: session.id } });
    assert.equal(await validateSessionToken(token, POLICY), null);
    assert.equal(await Session.findByPk(session.id), null);
  });

  test('a session of a disabled user is refused and deleted', async () => {
    const user = await newUser();
    const { token, session } = await newSession(user);
    await user.update({ status: 'disabled' });
    assert.equal(await validateSessionToken(token, POLICY), null);
    assert.equal(await Session.findByPk(session.id), null);
  });

  test('a session used in the second half of its lifetime is extended to a full lifetime', async () => {
    const { token, session } = await newSession();
    await Session.update({ expiresAt: new Date(Date.now() + 10 * DAY_MS) }, { where: { id: session.id } });
    const validated = await validateSessionToken(token, POLICY);
    assert.ok(validated);
    assert.equal(validated.refreshed, true);
    const stored = await Session.findByPk(session.id);
    assert.ok(Math.abs(stored!.expiresAt.getTime() - (Date.now() + 30 * DAY_MS)) < 5000);
  });

  test('a session in the first half of its lifetime keeps its expiry', async () => {
    const { token, session } = await newSession();
    const expiresAt = new Date(Date.now() + 20 * DAY_MS);
    await Session.update({ expiresAt }, { where: { id: session.id } });
    const validated = await validateSessionToken(token, POLICY);
    assert.equal(validated?.refreshed, false);
    assert.equal((await Session.findByPk(session.id))!.expiresAt.getTime(), expiresAt.getTime());
  });

  test('ending all sessions of a user can keep the caller own one', async () => {
    const user = await newUser();
    const kept = await newSession(user);
    await newSession(user);
    await newSession(user);
    const other = await newSession();
    await invalidateUserSessions(user.id, undefined, kept.session.id);
    assert.deepEqual((await Session.findAll({ where: { userId: user.id } })).map((row) => row.id), [kept.session.id]);
    assert.ok(await Session.findByPk(other.session.id));
    await invalidateUserSessions(user.id);
    assert.equal(await Session.count({ where: { userId: user.id } }), 0);
  });

  describe('ending sessions is announced on user_sessions_changed with the user id, once committed', () => {
    let listener: pg.Client;
    const notices: string[] = [];
    before(async () => {
      listener = new pg.Client({ connectionString: instance.services.config.databaseUrl });
      await listener.connect();
      listener.on('notification', (message) => {
        if (message.channel === USER_SESSIONS_CHANNEL) notices.push(message.payload ?? '');
      });
      await listener.query(`LISTEN ${USER_SESSIONS_CHANNEL}`);
    });
    after(() => listener.end());

    /** The notices that arrive while `action` runs (and shortly after). */
    async function noticesDuring(action: () => Promise<unknown>): Promise<string[]> {
      notices.length = 0;
      await action();
      // A notice travels to the listener's connection after the commit: give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return [...new Set(notices)];
    }

    test('logout (one session) names its user; an unknown session announces nothing', async () => {
      const user = await newUser();
      const { session } = await newSession(user);
      assert.deepEqual(await noticesDuring(() => invalidateSession(session.id)), [user.id]);
      assert.equal(await Session.findByPk(session.id), null);
      assert.deepEqual(await noticesDuring(() => invalidateSession('no-such-session')), []);
    });

    test('ending all sessions of a user names the user, even when there were none', async () => {
      const user = await newUser();
      await newSession(user);
      await newSession(user);
      assert.deepEqual(await noticesDuring(() => invalidateUserSessions(user.id)), [user.id]);
      assert.deepEqual(await noticesDuring(() => invalidateUserSessions(user.id)), [user.id]);
    });

    test('inside a transaction the notice waits for the commit, and a rollback sends none', async () => {
      const user = await newUser();
      const { session } = await newSession(user);
      const sequelize = instance.services.sequelize;
      const rolledBack = await noticesDuring(() =>
        sequelize
          .transaction(async (transaction) => {
            await invalidateUserSessions(user.id, transaction);
            throw new Error('rolled back');
          })
          .catch(() => undefined),
      );
      assert.deepEqual(rolledBack, []);
      assert.ok(await Session.findByPk(session.id), 'the rollback kept the session');
      const committed = await noticesDuring(() =>
        sequelize.transaction(async (transaction) => {
          await invalidateSession(session.id, transaction);
          await new Promise((resolve) => setTimeout(resolve, 100));
          assert.deepEqual(notices, [], 'announced before the commit');
        }),
      );
      assert.deepEqual(committed, [user.id]);
    });
  });
});

test('readCookie finds one cookie among several and ignores look-alike names', () => {
  assert.equal(readCookie('a=1; dt_session=abc.def; b=2', 'dt_session'), 'abc.def');
  assert.equal(readCookie('xdt_session=nope;dt_session=yes', 'dt_session'), 'yes');
  assert.equal(readCookie('dt_session_old=nope', 'dt_session'), null);
  assert.equal(readCookie(undefined, 'dt_session'), null);
  assert.equal(readCookie('garbage', 'dt_session'), null);
});
