/**
 * Fixed-window counters in Postgres, so every API process shares one budget per key.
 * Counting and deciding are one statement: a hit is counted before the work it guards
 * starts, so parallel requests cannot all slip in under the limit (check, then consume).
 */
import { isIP } from 'node:net';
import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { ApiError } from '../http/apiError.ts';

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

/** A key's window after a counted hit. */
export interface CounterRow {
  hits: number;
  window_started_at: Date;
}

/**
 * The counting clause of an `INSERT INTO rate_limit_counters AS c (key, window_started_at, hits)
 * … VALUES (<key>, now(), 1)` (or `SELECT`): a hit in a lapsed window starts a new one.
 * `windowSeconds` is an SQL expression (a bound parameter). Shared with statements that count
 * while they do something else (the token authentication, api/auth/accessTokens.ts).
 */
export function countingClause(windowSeconds: string): string {
  return `ON CONFLICT (key) DO UPDATE SET
       hits = CASE WHEN c.window_started_at < now() - make_interval(secs => ${windowSeconds}) THEN 1 ELSE c.hits + 1 END,
       window_started_at = CASE WHEN c.window_started_at < now() - make_interval(secs => ${windowSeconds}) THEN now() ELSE c.window_started_at END
     RETURNING hits, window_started_at`;
}

/**
 * Counts one hit against `key` (one atomic upsert that returns the new count); throws 429
 * `rate_limited` with `Retry-After` once over the limit. Call it before the guarded work.
 */
export async function consumeRateLimit(sequelize: Sequelize, key: string, rule: RateLimitRule): Promise<void> {
  const [row] = await sequelize.query<CounterRow>(
    `INSERT INTO rate_limit_counters AS c (key, window_started_at, hits) VALUES ($1, now(), 1) ${countingClause('$2')}`,
    { bind: [key, rule.windowSeconds], type: QueryTypes.SELECT },
  );
  if (Math.random() < CLEANUP_PROBABILITY) await pruneStaleCounters(sequelize);
  if (row) assertWithinLimit(row, rule);
}

/** Throws 429 `rate_limited` with `Retry-After` (the seconds until the window ends) when the counted hit went over the limit. */
export function assertWithinLimit(row: CounterRow, rule: RateLimitRule): void {
  if (row.hits > rule.limit) throw rateLimited(row.window_started_at, rule);
}

/** Counters are keyed by account, login, e-mail and address; old ones are dropped now and then, as a side effect of traffic. */
const CLEANUP_PROBABILITY = 0.01;
const LONGEST_WINDOW_SECONDS = 86_400;

export async function pruneStaleCounters(sequelize: Sequelize): Promise<void> {
  await sequelize.query('DELETE FROM rate_limit_counters WHERE window_started_at < now() - make_interval(secs => :seconds)', {
    replacements: { seconds: LONGEST_WINDOW_SECONDS },
  });
}

export async function resetRateLimit(sequelize: Sequelize, key: string): Promise<void> {
  await sequelize.query('DELETE FROM rate_limit_counters WHERE key = :key', { replacements: { key } });
}

/**
 * The part of a client address that per-address limits count: an IPv4 address whole, an
 * IPv6 address by its /64 network. One host usually holds a whole /64, so counting single
 * IPv6 addresses would give it 2^64 separate budgets.
 */
export function rateLimitAddress(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const address = ip.replace(/%.*$/, '');
  const mappedIpv4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mappedIpv4?.[1]) return mappedIpv4[1];
  if (isIP(address) !== 6) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  // An embedded dotted IPv4 part (only ever at the end) stands for the last two groups.
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])));
  const [head = '', tail] = address.split('::');
  const headGroups = groupsOf(head);
  const tailGroups = tail === undefined ? [] : groupsOf(tail);
  const zeros: string[] = Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => '0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => Number.parseInt(group, 16).toString(16));
}

function rateLimited(windowStartedAt: Date, rule: RateLimitRule): ApiError {
  const retryAfter = Math.max(1, Math.ceil((windowStartedAt.getTime() + rule.windowSeconds * 1000 - Date.now()) / 1000));
  return new ApiError('rate_limited', 429, { retryAfterSeconds: retryAfter }, { 'Retry-After': String(retryAfter) });
}
