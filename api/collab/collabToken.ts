/**
 * The collaboration token (spec, Authentication 4): issued by the API per page, verified by
 * the collaboration server when a provider connects. It is short-lived and signed, not
 * stored: `<base64url payload>.<base64url HMAC-SHA256>`. The key is derived from the
 * instance's session secret, which every process of the instance shares, under a purpose
 * label of its own, so no other signed value of ours is ever accepted as a collab token.
 *
 * The mode in the token is what the page allowed when it was issued; the server re-resolves
 * it on connect and on every access change, so a stale token never outlives a revocation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CollabMode = 'rw' | 'ro';

export interface CollabTokenClaims {
  pageId: string;
  /** Null for anonymous readers of a public page. */
  userId: string | null;
  mode: CollabMode;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** Long enough to open the socket and to reconnect through a short network blip. */
export const COLLAB_TOKEN_TTL_SECONDS = 120;

function signingKey(sessionSecret: string): Buffer {
  return createHmac('sha256', sessionSecret).update('dorfteich collab token v1').digest();
}

function signature(sessionSecret: string, payload: string): Buffer {
  return createHmac('sha256', signingKey(sessionSecret)).update(payload).digest();
}

export function signCollabToken(
  sessionSecret: string,
  claims: Omit<CollabTokenClaims, 'exp'>,
  now: number = Date.now(),
): { token: string; expiresAt: Date } {
  const exp = Math.floor(now / 1000) + COLLAB_TOKEN_TTL_SECONDS;
  const payload = Buffer.from(JSON.stringify({ ...claims, exp } satisfies CollabTokenClaims)).toString('base64url');
  return { token: `${payload}.${signature(sessionSecret, payload).toString('base64url')}`, expiresAt: new Date(exp * 1000) };
}

/** The claims of a valid, unexpired token; null for anything else (no reason is given out). */
export function verifyCollabToken(sessionSecret: string, token: string, now: number = Date.now()): CollabTokenClaims | null {
  if (typeof token !== 'string' || token.length > 2048) return null;
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) return null;
  const expected = signature(sessionSecret, payload);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!isClaims(claims) || claims.exp * 1000 <= now) return null;
  return claims;
}

function isClaims(value: unknown): value is CollabTokenClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.pageId === 'string' &&
    (claims.userId === null || typeof claims.userId === 'string') &&
    (claims.mode === 'rw' || claims.mode === 'ro') &&
    typeof claims.exp === 'number'
  );
}
