/**
 * Personal access tokens (spec: Personal access token, Authentication 3): bearer secrets of
 * the form `dt_pat_<random>` (32 random bytes, base64url) for the public REST API and MCP,
 * scoped `read` or `write`, optionally restricted to one pond and given an expiry. The secret
 * is shown once, at creation; only its SHA-256 is kept (`api_tokens.token_hash`). A presented
 * secret is hashed and the hash looked up through the unique index, so the lookup compares
 * digests, never the secret, and its timing says nothing about how much of a guess was right.
 *
 * Revocation keeps the row (`revoked_at`), so a revoked secret can be told apart from a wrong
 * one; the owner's list leaves revoked tokens out. Minting is for session routes only
 * (api/routes/apiTokenRoutes.ts): nothing here checks who asks.
 */
import { createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ApiError } from '../http/apiError.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { countingClause, type CounterRow } from './rateLimiter.ts';

export const ACCESS_TOKEN_PREFIX = 'dt_pat_';
const RANDOM_BYTES = 32;
/** A real token is 50 characters; anything much longer is not worth hashing. */
const MAX_PRESENTED_LENGTH = 128;
/** `last_used_at` is written at most this often per token, so a busy client costs no writes. */
export const LAST_USED_THROTTLE_MS = 60_000;

/**
 * Live (unrevoked, unexpired) tokens one account may hold at once. Each token has a rate
 * budget of its own, so without a cap an account could multiply its budget by minting more;
 * 20 leaves room for every script and assistant a person plausibly runs (docs/api-tokens.md).
 */
export const MAX_LIVE_API_TOKENS = 20;

export type TokenScope = 'read' | 'write';

export interface AccessTokenRecord {
  id: string;
  userId: string;
  name: string;
  scope: TokenScope;
  pondId: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export type PresentedTokenCheck = { status: 'valid'; token: AccessTokenRecord } | { status: 'unknown' | 'expired' | 'revoked' };

export interface NewAccessToken {
  userId: string;
  name: string;
  scope: TokenScope;
  expiresAt: Date | null;
  pondId: string | null;
}

interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  scope: TokenScope;
  pond_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

const COLUMNS = 't.id, t.user_id, t.name, t.scope, t.pond_id, t.expires_at, t.revoked_at, t.last_used_at, t.created_at';

function toRecord(row: TokenRow): AccessTokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    scope: row.scope,
    pondId: row.pond_id,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function generateAccessToken(): string {
  return `${ACCESS_TOKEN_PREFIX}${randomBytes(RANDOM_BYTES).toString('base64url')}`;
}

/** Whether a live (not revoked) token is past its expiry at `now`. */
export function isExpired(token: Pick<AccessTokenRecord, 'expiresAt'>, now: Date = new Date()): boolean {
  return token.expiresAt !== null && token.expiresAt.getTime() <= now.getTime();
}

// Expiry is judged by the database clock, as the last-use throttle is.
const LOOKUP_SQL = `SELECT ${COLUMNS}, (t.expires_at IS NOT NULL AND t.expires_at <= now()) AS expired
       FROM api_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = $1 AND u.status NOT IN ('disabled', 'deleted')`;

type LookedUpRow = TokenRow & { expired: boolean };

function presentable(presented: string): boolean {
  return presented.startsWith(ACCESS_TOKEN_PREFIX) && presented.length <= MAX_PRESENTED_LENGTH;
}

/** The row's verdict; a valid token is marked used, throttled. */
async function judge(sequelize: Sequelize, row: LookedUpRow | undefined): Promise<PresentedTokenCheck> {
  if (!row) return { status: 'unknown' };
  if (row.revoked_at) return { status: 'revoked' };
  if (row.expired) return { status: 'expired' };
  const token = toRecord(row);
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_THROTTLE_MS) {
    // The condition repeats in SQL so that concurrent requests write once.
    const [marked] = await sequelize.query<{ last_used_at: Date }>(
      `UPDATE api_tokens SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $2))
        RETURNING last_used_at`,
      { bind: [row.id, LAST_USED_THROTTLE_MS / 1000], type: QueryTypes.SELECT },
    );
    if (marked) token.lastUsedAt = marked.last_used_at;
  }
  return { status: 'valid', token };
}

/**
 * What a presented bearer secret is. Unknown or malformed secrets and those of a disabled or
 * deleted account are all `unknown`: such a token stays stored but opens nothing, and saying
 * more would tell a holder of a stolen secret about the account. Revoked wins over expired
 * (it was an act of the owner). A valid token is marked used, throttled.
 */
export async function checkPresentedAccessToken(sequelize: Sequelize, presented: string): Promise<PresentedTokenCheck> {
  if (!presentable(presented)) return { status: 'unknown' };
  const [row] = await sequelize.query<LookedUpRow>(LOOKUP_SQL, { bind: [hashToken(presented)], type: QueryTypes.SELECT });
  return judge(sequelize, row);
}

/** The rate-limit counter key of a token's requests. */
export function accessTokenCounterKey(tokenId: string): string {
  return `pat:${tokenId}`;
}

/**
 * `checkPresentedAccessToken`, and for a valid token the request counted against its rate-limit
 * window (key `accessTokenCounterKey`) in the same statement: the per-token limiter rides on
 * the lookup every request makes anyway, so it adds no round trip. Secrets that are unknown,
 * revoked or expired count nothing. `counter` is the window after this hit (null unless valid);
 * whether it is over the limit is the caller's to decide.
 */
export type CountedTokenCheck = { check: Extract<PresentedTokenCheck, { status: 'valid' }>; counter: CounterRow } | { check: Exclude<PresentedTokenCheck, { status: 'valid' }>; counter: null };

export async function checkAndCountAccessToken(sequelize: Sequelize, presented: string, windowSeconds: number): Promise<CountedTokenCheck> {
  if (!presentable(presented)) return { check: { status: 'unknown' }, counter: null };
  const [row] = await sequelize.query<LookedUpRow & { hits: number | null; window_started_at: Date | null }>(
    `WITH token AS (${LOOKUP_SQL}),
     counted AS (
       INSERT INTO rate_limit_counters AS c (key, window_started_at, hits)
       SELECT $2 || token.id::text, now(), 1 FROM token WHERE token.revoked_at IS NULL AND NOT token.expired
       ${countingClause('$3')}
     )
     SELECT token.*, counted.hits, counted.window_started_at FROM token LEFT JOIN counted ON true`,
    { bind: [hashToken(presented), accessTokenCounterKey(''), windowSeconds], type: QueryTypes.SELECT },
  );
  const check = await judge(sequelize, row);
  if (check.status !== 'valid') return { check, counter: null };
  // A live token's row is always counted (the upsert returns its row); never let one through uncounted.
  if (row?.hits == null || !row.window_started_at) throw new Error('a valid token request was not counted');
  return { check, counter: { hits: row.hits, window_started_at: row.window_started_at } };
}

/**
 * Refuses a new token (409 `token_limit_reached`) while the user holds MAX_LIVE_API_TOKENS live
 * ones. Locks the user's row first, so two concurrent creations cannot both see room for one.
 */
export async function assertRoomForAccessToken(sequelize: Sequelize, userId: string, transaction: Transaction): Promise<void> {
  await sequelize.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, { bind: [userId], type: QueryTypes.SELECT, transaction });
  const [row] = await sequelize.query<{ live: number }>(
    `SELECT count(*)::int AS live FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    { bind: [userId], type: QueryTypes.SELECT, transaction },
  );
  if ((row?.live ?? 0) >= MAX_LIVE_API_TOKENS) throw new ApiError('token_limit_reached', 409, { limit: MAX_LIVE_API_TOKENS });
}

/** Stores a new token and returns its secret, which exists nowhere else from here on. */
export async function createAccessToken(sequelize: Sequelize, input: NewAccessToken, transaction: Transaction): Promise<{ token: AccessTokenRecord; secret: string }> {
  const secret = generateAccessToken();
  const [row] = await sequelize.query<TokenRow>(
    `INSERT INTO api_tokens AS t (user_id, name, token_hash, scope, pond_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${COLUMNS}`,
    { bind: [input.userId, input.name, hashToken(secret), input.scope, input.pondId, input.expiresAt], type: QueryTypes.SELECT, transaction },
  );
  return { token: toRecord(row!), secret };
}

/** The user's tokens that are not revoked (expired ones included: the owner sees them lapse), newest first. */
export async function listAccessTokens(sequelize: Sequelize, userId: string): Promise<AccessTokenRecord[]> {
  const rows = await sequelize.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens t WHERE t.user_id = $1 AND t.revoked_at IS NULL ORDER BY t.created_at DESC, t.id DESC`, {
    bind: [userId],
    type: QueryTypes.SELECT,
  });
  return rows.map(toRecord);
}

/**
 * Revokes one of the user's tokens; null when there is no such token of this user or it is
 * revoked already: the route answers 404 alike, so another user's token ids reveal nothing.
 */
export async function revokeAccessToken(sequelize: Sequelize, userId: string, tokenId: string, transaction: Transaction): Promise<AccessTokenRecord | null> {
  if (!isUuid(tokenId)) return null;
  const [row] = await sequelize.query<TokenRow>(
    `UPDATE api_tokens AS t SET revoked_at = now()
      WHERE t.id = $1 AND t.user_id = $2 AND t.revoked_at IS NULL
      RETURNING ${COLUMNS}`,
    { bind: [tokenId, userId], type: QueryTypes.SELECT, transaction },
  );
  return row ? toRecord(row) : null;
}
