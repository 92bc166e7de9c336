/** Fixed-window counters in Postgres: limits, Retry-After, window expiry and reset. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../http/apiError.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { assertUnderRateLimit, consumeRateLimit, resetRateLimit } from './rateLimiter.ts';

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

  test('assertUnderRateLimit throws once the limit is reached but counts nothing itself', async () => {
    await consumeRateLimit(sequelize(), 'k:assert', RULE);
    for (let i = 0; i < 5; i += 1) await assertUnderRateLimit(sequelize(), 'k:assert', RULE);
    await consumeRateLimit(sequelize(), 'k:assert', RULE);
    await assert.rejects(assertUnderRateLimit(sequelize(), 'k:assert', RULE), isRateLimited);
  });

  test('a window that has passed starts counting from one again', async () => {
    await consumeRateLimit(sequelize(), 'k:window', RULE);
    await consumeRateLimit(sequelize(), 'k:window', RULE);
    await sequelize().query(`UPDATE rate_limit_counters SET window_started_at = now() - interval '601 seconds' WHERE key = 'k:window'`);
    await assertUnderRateLimit(sequelize(), 'k:window', RULE);
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
