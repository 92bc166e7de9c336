/**
 * Personal access tokens against a real database: the secret's form and that only its SHA-256
 * is kept; what a presented secret is (valid, unknown, malformed, expired, revoked, of a
 * disabled or deleted account); the owner's list and revocation; last use written at most
 * once a minute; the per-token rate-limit count made in the same statement as the lookup.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { User } from '../models/index.ts';
import { seedSharedPond } from '../testing/accessFixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import {
  ACCESS_TOKEN_PREFIX,
  LAST_USED_THROTTLE_MS,
  accessTokenCounterKey,
  checkAndCountAccessToken,
  checkPresentedAccessToken,
  createAccessToken,
  listAccessTokens,
  revokeAccessToken,
  type NewAccessToken,
} from './accessTokens.ts';

const SECRET_FORM = /^dt_pat_[A-Za-z0-9_-]{43}$/;

describe('personal access tokens', () => {
  let instance: TestInstance;
  let userCount = 0;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  async function newUser(): Promise<User> {
    userCount += 1;
    return User.create({ username: `pat${userCount}`, email: `pat${userCount}@example.org`, displayName: 'P', locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date() });
  }

  async function create(input: Partial<NewAccessToken> & { userId: string }) {
    const sequelize = instance.services.sequelize;
    return sequelize.transaction((transaction) => createAccessToken(sequelize, { name: 'CLI', scope: 'read', expiresAt: null, pondId: null, ...input }, transaction));
  }

  const check = (secret: string) => checkPresentedAccessToken(instance.services.sequelize, secret);
  const revoke = (userId: string, tokenId: string) => instance.services.sequelize.transaction((transaction) => revokeAccessToken(instance.services.sequelize, userId, tokenId, transaction));
  const lastUsed = async (tokenId: string) =>
    (await instance.services.sequelize.query<{ last_used_at: Date | null }>(`SELECT last_used_at FROM api_tokens WHERE id = $1`, { bind: [tokenId], type: QueryTypes.SELECT }))[0]!.last_used_at;

  test('create: a dt_pat_ secret of 32 random bytes, only its SHA-256 stored, the record as given', async () => {
    const user = await newUser();
    const pond = await seedSharedPond(user.id);
    const expiresAt = new Date(Date.now() + 86_400_000);
    const { token, secret } = await create({ userId: user.id, name: 'Deploy bot', scope: 'write', expiresAt, pondId: pond.id });
    assert.match(secret, SECRET_FORM);
    assert.ok(secret.startsWith(ACCESS_TOKEN_PREFIX));
    assert.deepEqual(
      { ...token, id: undefined, createdAt: undefined },
      { id: undefined, userId: user.id, name: 'Deploy bot', scope: 'write', pondId: pond.id, expiresAt, revokedAt: null, lastUsedAt: null, createdAt: undefined },
    );
    const rows = await instance.services.sequelize.query<Record<string, unknown>>(`SELECT * FROM api_tokens WHERE id = $1`, { bind: [token.id], type: QueryTypes.SELECT });
    assert.deepEqual(rows[0]!.token_hash, createHash('sha256').update(secret).digest());
    assert.ok(!JSON.stringify(rows[0]).includes(secret.slice(ACCESS_TOKEN_PREFIX.length)), 'the secret is stored nowhere');
    const other = await create({ userId: user.id });
    assert.notEqual(other.secret, secret);
  });

  test('a valid secret answers its token; a wrong, malformed or oversized one is unknown', async () => {
    const user = await newUser();
    const { token, secret } = await create({ userId: user.id });
    const valid = await check(secret);
    assert.equal(valid.status, 'valid');
    assert.equal(valid.status === 'valid' && valid.token.id, token.id);
    const flipped = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [flipped, secret.slice(0, -1), `${secret}x`, ACCESS_TOKEN_PREFIX, '', secret.slice(ACCESS_TOKEN_PREFIX.length), `dt_feed_${secret.slice(7)}`, `${ACCESS_TOKEN_PREFIX}${'a'.repeat(5000)}`, ` ${secret}`]) {
      assert.deepEqual(await check(wrong), { status: 'unknown' }, wrong.slice(0, 30));
    }
  });

  test('expired: an expiry in the past (or now) answers expired; one ahead is valid', async () => {
    const user = await newUser();
    const past = await create({ userId: user.id, expiresAt: new Date(Date.now() - 1000) });
    assert.deepEqual(await check(past.secret), { status: 'expired' });
    assert.equal(await lastUsed(past.token.id), null, 'an expired token is not marked used');
    const ahead = await create({ userId: user.id, expiresAt: new Date(Date.now() + 60_000) });
    assert.equal((await check(ahead.secret)).status, 'valid');
    // Lapse it in the database: the database clock decides.
    await instance.services.sequelize.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, { bind: [ahead.token.id] });
    assert.deepEqual(await check(ahead.secret), { status: 'expired' });
  });

  test('revoked: the secret answers revoked (also when expired too), the list leaves it out, a second revoke is null', async () => {
    const user = await newUser();
    const kept = await create({ userId: user.id, name: 'Kept' });
    const gone = await create({ userId: user.id, name: 'Gone', expiresAt: new Date(Date.now() + 60_000) });
    const revoked = await revoke(user.id, gone.token.id);
    assert.equal(revoked?.id, gone.token.id);
    assert.ok(revoked?.revokedAt instanceof Date);
    assert.deepEqual(await check(gone.secret), { status: 'revoked' });
    await instance.services.sequelize.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, { bind: [gone.token.id] });
    assert.deepEqual(await check(gone.secret), { status: 'revoked' }, 'revocation was the owner\'s act: it wins');
    assert.equal(await revoke(user.id, gone.token.id), null, 'already revoked');
    assert.deepEqual((await listAccessTokens(instance.services.sequelize, user.id)).map((token) => token.name), ['Kept']);
    assert.equal((await check(kept.secret)).status, 'valid');
  });

  test('revoke refuses another user\'s token, an unknown id and a malformed one', async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const { token, secret } = await create({ userId: owner.id });
    assert.equal(await revoke(stranger.id, token.id), null);
    assert.equal(await revoke(owner.id, '00000000-0000-4000-8000-000000000000'), null);
    assert.equal(await revoke(owner.id, 'not-a-uuid'), null);
    assert.equal((await check(secret)).status, 'valid', 'still alive');
  });

  test('the list: the owner\'s live and expired tokens, newest first, nobody else\'s', async () => {
    const user = await newUser();
    const other = await newUser();
    await create({ userId: user.id, name: 'First' });
    await create({ userId: user.id, name: 'Second', expiresAt: new Date(Date.now() - 1000) });
    await create({ userId: user.id, name: 'Third' });
    await create({ userId: other.id, name: 'Foreign' });
    const list = await listAccessTokens(instance.services.sequelize, user.id);
    assert.deepEqual(list.map((token) => token.name), ['Third', 'Second', 'First']);
    assert.ok(list.every((token) => token.userId === user.id));
  });

  test('a disabled or deleted owner\'s token is unknown; enabled again, it is valid again', async () => {
    const user = await newUser();
    const { secret } = await create({ userId: user.id });
    await User.update({ status: 'disabled' }, { where: { id: user.id } });
    assert.deepEqual(await check(secret), { status: 'unknown' });
    await User.update({ status: 'ACTIVE' }, { where: { id: user.id } });
    assert.equal((await check(secret)).status, 'valid');
    await User.update({ status: 'deleted' }, { where: { id: user.id } });
    assert.deepEqual(await check(secret), { status: 'unknown' });
  });

  test('last use is written on first use and then at most once a minute', async () => {
    const user = await newUser();
    const { token, secret } = await create({ userId: user.id });
    const first = await check(secret);
    const stored = await lastUsed(token.id);
    assert.ok(stored, 'recorded on first use');
    assert.equal(first.status === 'valid' && first.token.lastUsedAt?.getTime(), stored.getTime(), 'the answer carries the new time');
    await check(secret);
    await Promise.all([check(secret), check(secret)]);
    assert.equal((await lastUsed(token.id))?.getTime(), stored.getTime(), 'not rewritten within the minute');
    await instance.services.sequelize.query(`UPDATE api_tokens SET last_used_at = last_used_at - make_interval(secs => $2) WHERE id = $1`, {
      bind: [token.id, LAST_USED_THROTTLE_MS / 1000 + 1],
    });
    const aged = (await lastUsed(token.id))!;
    await Promise.all([check(secret), check(secret), check(secret)]);
    const rewritten = (await lastUsed(token.id))!;
    assert.ok(rewritten.getTime() > aged.getTime(), 'rewritten once the minute is over');
    assert.ok(rewritten.getTime() >= stored.getTime());
  });

  test('tokens go with their owner and with the pond they are restricted to', async () => {
    const user = await newUser();
    const pond = await seedSharedPond(user.id);
    const restricted = await create({ userId: user.id, pondId: pond.id });
    await instance.services.sequelize.query(`DELETE FROM grants WHERE pond_id = $1`, { bind: [pond.id] });
    await pond.destroy();
    assert.deepEqual(await check(restricted.secret), { status: 'unknown' }, 'a restriction never lapses into no restriction');
  });

  describe('checked and counted in one statement', () => {
    const WINDOW_SECONDS = 60;
    const checkAndCount = (secret: string) => checkAndCountAccessToken(instance.services.sequelize, secret, WINDOW_SECONDS);
    const counterOf = async (tokenId: string) =>
      (await instance.services.sequelize.query<{ hits: number; window_started_at: Date }>(`SELECT hits, window_started_at FROM rate_limit_counters WHERE key = $1`, {
        bind: [accessTokenCounterKey(tokenId)],
        type: QueryTypes.SELECT,
      }))[0] ?? null;

    test('a valid token: the same verdict as the plain check, and each request counted in its window', async () => {
      const user = await newUser();
      const { token, secret } = await create({ userId: user.id });
      const first = await checkAndCount(secret);
      assert.equal(first.check.status, 'valid');
      assert.equal(first.check.status === 'valid' && first.check.token.id, token.id);
      assert.equal(first.counter?.hits, 1);
      const stored = await counterOf(token.id);
      assert.deepEqual(first.counter, stored, 'the answer is the stored window');
      await Promise.all([checkAndCount(secret), checkAndCount(secret), checkAndCount(secret)]);
      const fifth = await checkAndCount(secret);
      assert.equal(fifth.counter?.hits, 5, 'concurrent requests are each counted once');
      assert.equal(fifth.counter?.window_started_at.getTime(), stored!.window_started_at.getTime(), 'the same window');
      // The window lapses: the next request starts a new one at 1.
      await instance.services.sequelize.query(`UPDATE rate_limit_counters SET window_started_at = now() - make_interval(secs => $2) WHERE key = $1`, {
        bind: [accessTokenCounterKey(token.id), WINDOW_SECONDS + 1],
      });
      const renewed = await checkAndCount(secret);
      assert.equal(renewed.counter?.hits, 1);
      assert.ok(renewed.counter!.window_started_at.getTime() > stored!.window_started_at.getTime());
    });

    test('unknown, malformed, expired, revoked and disabled-owner secrets count nothing and answer as the plain check', async () => {
      const user = await newUser();
      const expired = await create({ userId: user.id, expiresAt: new Date(Date.now() - 1000) });
      const revoked = await create({ userId: user.id });
      await revoke(user.id, revoked.token.id);
      const disabledOwner = await newUser();
      const ofDisabled = await create({ userId: disabledOwner.id });
      await User.update({ status: 'disabled' }, { where: { id: disabledOwner.id } });
      const cases: [string, string, string | null][] = [
        ['expired', expired.secret, expired.token.id],
        ['revoked', revoked.secret, revoked.token.id],
        ['unknown', ofDisabled.secret, ofDisabled.token.id],
        ['unknown', `${expired.secret.slice(0, -2)}zz`, null],
        ['unknown', 'not a token', null],
      ];
      for (const [status, secret, tokenId] of cases) {
        const answer = await checkAndCount(secret);
        assert.deepEqual(answer, { check: { status }, counter: null }, secret.slice(0, 12));
        assert.deepEqual(await check(secret), { status });
        if (tokenId) assert.equal(await counterOf(tokenId), null, `${status}: nothing counted`);
      }
    });
  });
});
