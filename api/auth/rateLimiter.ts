/**
 * Fixed-window counters in Postgres, so every API process shares one budget per key.
 */
import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { ApiError } from '../http/apiError.ts';

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

interface CounterRow {
  hits: number;
  window_started_at: Date;
}

/** Counts one hit against `key`; throws 429 `rate_limited` with `Retry-After` once over the limit. */
export async function consumeRateLimit(sequelize: Sequelize, key: string, rule: RateLimitRule): Promise<void> {
  const [row] = await sequelize.query<CounterRow>(
    `INSERT INTO rate_limit_counters AS c (key, window_started_at, hits) VALUES (:key, now(), 1)
     ON CONFLICT (key) DO UPDATE SET
       hits = CASE WHEN c.window_started_at < now() - make_interval(secs => :windowSeconds) THEN 1 ELSE c.hits + 1 END,
       window_started_at = CASE WHEN c.window_started_at < now() - make_interval(secs => :windowSeconds) THEN now() ELSE c.window_started_at END
     RETURNING hits, window_started_at`,
    { replacements: { key, windowSeconds: rule.windowSeconds }, type: QueryTypes.SELECT },
  );
  if (Math.random() < CLEANUP_PROBABILITY) await pruneStaleCounters(sequelize);
  if (row && row.hits > rule.limit) throw rateLimited(row.window_started_at, rule);
}

/** Counters are keyed by login, e-mail and IP; old ones are dropped now and then, as a side effect of traffic. */
const CLEANUP_PROBABILITY = 0.01;
const LONGEST_WINDOW_SECONDS = 86_400;

export async function pruneStaleCounters(sequelize: Sequelize): Promise<void> {
  await sequelize.query('DELETE FROM rate_limit_counters WHERE window_started_at < now() - make_interval(secs => :seconds)', {
    replacements: { seconds: LONGEST_WINDOW_SECONDS },
  });
}

/** Throws when `key` is already over its limit, without counting a hit. */
export async function assertUnderRateLimit(sequelize: Sequelize, key: string, rule: RateLimitRule): Promise<void> {
  const [row] = await sequelize.query<CounterRow>(
    `SELECT hits, window_started_at FROM rate_limit_counters
     WHERE key = :key AND window_started_at >= now() - make_interval(secs => :windowSeconds)`,
    { replacements: { key, windowSeconds: rule.windowSeconds }, type: QueryTypes.SELECT },
  );
  if (row && row.hits >= rule.limit) throw rateLimited(row.window_started_at, rule);
}

export async function resetRateLimit(sequelize: Sequelize, key: string): Promise<void> {
  await sequelize.query('DELETE FROM rate_limit_counters WHERE key = :key', { replacements: { key } });
}

function rateLimited(windowStartedAt: Date, rule: RateLimitRule): ApiError {
  const retryAfter = Math.max(1, Math.ceil((windowStartedAt.getTime() + rule.windowSeconds * 1000 - Date.now()) / 1000));
  return new ApiError('rate_limited', 429, { retryAfterSeconds: retryAfter }, { 'Retry-After': String(retryAfter) });
}
