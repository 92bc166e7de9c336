/**
 * The throttle every password check shares: signing in and changing one's password count
 * against the same budgets (`LOGIN_RATE_LIMIT_*`), so guesses cannot be spread over both.
 *
 * An attempt is counted per client address and per (account, address) before the password
 * is checked, each by one atomic increment, so parallel guesses get no more checks than the
 * limit. An attacker's failures lock out only the attacker's address.
 */
import type { Sequelize } from 'sequelize';
import { consumeRateLimit, rateLimitAddress, resetRateLimit } from './rateLimiter.ts';

export interface PasswordAttemptLimits {
  perAccount: number;
  perIp: number;
  windowSeconds: number;
}

/** Who the attempt is for: a known account, or (sign-in only) a login that names none. */
export type AttemptTarget = { userId: string } | { unknownLogin: string };

/** Counts one attempt from the client's address, whatever the account; 429 `rate_limited` once over. */
export async function countAttemptFromAddress(sequelize: Sequelize, limits: PasswordAttemptLimits, ip: string | undefined): Promise<void> {
  await consumeRateLimit(sequelize, `login:ip:${rateLimitAddress(ip)}`, { limit: limits.perIp, windowSeconds: limits.windowSeconds });
}

/**
 * Counts one attempt on the account from the client's address; 429 `rate_limited` once over.
 * Answers the counter's key, which `clearAccountAttempts` takes after a correct password.
 */
export async function countAttemptOnAccount(sequelize: Sequelize, limits: PasswordAttemptLimits, ip: string | undefined, target: AttemptTarget): Promise<string> {
  const address = rateLimitAddress(ip);
  // Keyed on the account, not on what was typed, so username and e-mail share one budget;
  // an unknown login counts the same way under what was typed. The address comes first:
  // it never holds a `|`, so no typed login can collide with another address's key.
  const key = 'userId' in target ? `login:account:${address}|${target.userId}` : `login:unknown:${address}|${target.unknownLogin}`;
  await consumeRateLimit(sequelize, key, { limit: limits.perAccount, windowSeconds: limits.windowSeconds });
  return key;
}

/** A correct password clears the account's count from that address. */
export async function clearAccountAttempts(sequelize: Sequelize, key: string): Promise<void> {
  await resetRateLimit(sequelize, key);
}
