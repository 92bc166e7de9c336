/** Fixed-window counters in Postgres: limits, Retry-After, atomic counting under parallel hits, window expiry, reset, address keys. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../http/apiError.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { consumeRateLimit, rateLimitAddress, resetRateLimit } from './rateLimiter.ts';

const RULE = { limit: 2, windowSeconds: 600 };

function isRateLimited(error: unknown): boolean {
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, 'rate_limited');
  assert.equal(error.status, 429);
  const retryAfter = Number(error.headers['Retry-After']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= RULE.windowSeconds, `Retry-After ${retryAfter}`);
  assert.equal(error.details.retryAfterSeconds, retryAfter);
  return true;
}

describe('rate limiter', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());
  const sequelize = () => instance.services.sequelize;

  test('hits up to the limit pass, the next one throws 429 with Retry-After', async () => {
    await consumeRateLimit(sequelize(), 'k:limit', RULE);
    await consumeRateLimit(sequelize(), 'k:limit', RULE);
    await assert.rejects(consumeRateLimit(sequelize(), 'k:limit', RULE), isRateLimited);
  });

  test('keys count independently', async () => {
    await consumeRateLimit(sequelize(), 'k:a', RULE);
    await consumeRateLimit(sequelize(), 'k:a', RULE);
    await consumeRateLimit(sequelize(), 'k:b', RULE);
    await assert.rejects(consumeRateLimit(sequelize(), 'k:a', RULE), isRateLimited);
  });

  test('parallel hits are counted one by one: exactly `limit` of 20 simultaneous hits pass', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => consumeRateLimit(sequelize(), 'k:parallel', RULE)));
    assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, RULE.limit);
    for (const outcome of outcomes) if (outcome.status === 'rejected') assert.ok(isRateLimited(outcome.reason));
  });

  test('a window that has passed starts counting from one again', async () => {
    await consumeRateLimit(sequelize(), 'k:window', RULE);
    await consumeRateLimit(sequelize(), 'k:window', RULE);
    await sequelize().query(`UPDATE rate_limit_counters SET window_started_at = now() - interval '601 seconds' WHERE key = 'k:window'`);
    await consumeRateLimit(sequelize(), 'k:window', RULE);
    await consumeRateLimit(sequelize(), 'k:window', RULE);
    await assert.rejects(consumeRateLimit(sequelize(), 'k:window', RULE), isRateLimited);
  });

  test('resetRateLimit clears a key', async () => {
    await consumeRateLimit(sequelize(), 'k:reset', RULE);
    await consumeRateLimit(sequelize(), 'k:reset', RULE);
    await resetRateLimit(sequelize(), 'k:reset');
    await consumeRateLimit(sequelize(), 'k:reset', RULE);
    await consumeRateLimit(sequelize(), 'k:reset', RULE);
  });
});

describe('rate-limit address keys', () => {
  test('an IPv4 address counts whole, also when written IPv4-mapped', () => {
    assert.equal(rateLimitAddress('203.0.113.7'), '203.0.113.7');
    assert.equal(rateLimitAddress('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(rateLimitAddress('::FFFF:127.0.0.1'), '127.0.0.1');
  });

  test('an IPv6 address counts by its /64 network, however it is written', () => {
    assert.equal(rateLimitAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(rateLimitAddress('2001:0DB8:0001:0002::1'), '2001:db8:1:2::/64');
    assert.equal(rateLimitAddress('2001:db8:1:2::ffff:1'), rateLimitAddress('2001:db8:1:2:9::'));
    assert.notEqual(rateLimitAddress('2001:db8:1:2::1'), rateLimitAddress('2001:db8:1:3::1'));
    assert.equal(rateLimitAddress('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(rateLimitAddress('::1'), '0:0:0:0::/64');
    assert.equal(rateLimitAddress('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(rateLimitAddress('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  });

  test('a missing address gets one shared key', () => {
    assert.equal(rateLimitAddress(undefined), 'unknown');
  });
});
