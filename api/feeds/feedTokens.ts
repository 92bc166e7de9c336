/**
 * Feed tokens (spec: Feed token, Authentication 5): one read-only secret per user, of the form
 * `dt_feed_<random>` (32 random bytes, base64url), shown once at creation. Only its SHA-256 is
 * kept (`feed_tokens.token_hash`). A presented token is hashed and the hash looked up through
 * the unique index, so the lookup compares digests, never the secret, and its timing says
 * nothing about how much of a guess was right.
 *
 * The token is read by the feed routes only (api/routes/feedRoutes.ts); no authenticator
 * knows it, so it cannot stand in for a session or an access token anywhere else.
 */
import { createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { AccessSubject } from '../policies/accessPolicy.ts';

export const FEED_TOKEN_PREFIX = 'dt_feed_';
const RANDOM_BYTES = 32;
/** A real token is 51 characters; anything much longer is not worth hashing. */
const MAX_PRESENTED_LENGTH = 128;
/** `last_used_at` is written at most this often per token, so a busy feed reader costs no writes. */
export const LAST_USED_THROTTLE_MS = 60_000;

export interface FeedTokenStatus {
  exists: boolean;
  createdAt: Date | null;
  lastUsedAt: Date | null;
}

/** The account behind a presented token: what the feed routes need to decide access and language. */
export interface FeedTokenOwner {
  userId: string;
  isSiteAdmin: boolean;
  locale: 'de' | 'en' | null;
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function generateFeedToken(): string {
  return `${FEED_TOKEN_PREFIX}${randomBytes(RANDOM_BYTES).toString('base64url')}`;
}

export async function feedTokenStatus(sequelize: Sequelize, userId: string): Promise<FeedTokenStatus> {
  const [row] = await sequelize.query<{ created_at: Date; last_used_at: Date | null }>(
    `SELECT created_at, last_used_at FROM feed_tokens WHERE user_id = $1`,
    { bind: [userId], type: QueryTypes.SELECT },
  );
  return row ? { exists: true, createdAt: row.created_at, lastUsedAt: row.last_used_at } : { exists: false, createdAt: null, lastUsedAt: null };
}

/**
 * Creates the user's token, or replaces it (rotation): the old secret stops working in the
 * same statement. Returns the secret, which exists nowhere else from here on.
 */
export async function issueFeedToken(sequelize: Sequelize, userId: string, transaction: Transaction): Promise<{ token: string; createdAt: Date; rotated: boolean }> {
  const token = generateFeedToken();
  const [row] = await sequelize.query<{ created_at: Date; rotated: boolean }>(
    // xmax is set on a row the upsert updated and 0 on one it inserted: tells rotation from creation,
    // also when two requests cross (the second waits for the first's row and updates it).
    `INSERT INTO feed_tokens (user_id, token_hash, created_at, last_used_at) VALUES ($1, $2, now(), NULL)
     ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = EXCLUDED.created_at, last_used_at = NULL
     RETURNING created_at, (xmax <> 0) AS rotated`,
    { bind: [userId, hashToken(token)], type: QueryTypes.SELECT, transaction },
  );
  return { token, createdAt: row!.created_at, rotated: row!.rotated };
}

/** Deletes the user's token; whether there was one. */
export async function revokeFeedToken(sequelize: Sequelize, userId: string, transaction: Transaction): Promise<boolean> {
  const rows = await sequelize.query<{ user_id: string }>(`DELETE FROM feed_tokens WHERE user_id = $1 RETURNING user_id`, {
    bind: [userId],
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows.length > 0;
}

/**
 * The owner of a presented token, or null: unknown token, or an account that is disabled or
 * deleted (those tokens stay stored but open nothing). Marks the token used, throttled.
 */
export async function findFeedTokenOwner(sequelize: Sequelize, presented: string): Promise<FeedTokenOwner | null> {
  if (!presented.startsWith(FEED_TOKEN_PREFIX) || presented.length > MAX_PRESENTED_LENGTH) return null;
  const [row] = await sequelize.query<{ user_id: string; is_site_admin: boolean; locale: 'de' | 'en' | null; last_used_at: Date | null }>(
    `SELECT t.user_id, u.is_site_admin, u.locale, t.last_used_at
       FROM feed_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = $1 AND u.status NOT IN ('disabled', 'deleted')`,
    { bind: [hashToken(presented)], type: QueryTypes.SELECT },
  );
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_THROTTLE_MS) {
    // The condition repeats in SQL so that concurrent readers write once.
    await sequelize.query(
      `UPDATE feed_tokens SET last_used_at = now()
        WHERE user_id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $2))`,
      { bind: [row.user_id, LAST_USED_THROTTLE_MS / 1000] },
    );
  }
  return { userId: row.user_id, isSiteAdmin: row.is_site_admin, locale: row.locale };
}

/** The policy module's subject for a token's owner: a signed-in user, read-only by the routes' choice. */
export function feedTokenSubject(owner: FeedTokenOwner): AccessSubject {
  return { userId: owner.userId, signedIn: true, isSiteAdmin: owner.isSiteAdmin };
}
