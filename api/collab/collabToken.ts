/**
 * The collaboration token (spec, Authentication 4): issued by the API per page, verified by
 * the collaboration server when a provider connects. It is short-lived and signed, not
 * stored: `<base64url payload>.<base64url HMAC-SHA256>` (api/auth/signedPayloads.ts). The key is derived from the
 * instance's session secret, which every process of the instance shares, under a purpose
 * label of its own, so no other signed value of ours is ever accepted as a collab token.
 *
 * The mode in the token is what the page allowed when it was issued; the server re-resolves
 * it on connect and on every access change, so a stale token never outlives a revocation.
 *
 * A signed-in token names the credential that opened it (`origin`): the browser session by
 * its row id (never the cookie, whose secret half is what proves a session), so the server can
 * close the connection once that session ends: logout, password reset, a disabled or deleted
 * account, expiry. Personal access tokens will name themselves the same way (`accessToken`).
 */
import { readSignedPayload, signPayload } from '../auth/signedPayloads.ts';

export type CollabMode = 'rw' | 'ro';

/** What opened a signed-in connection: a browser session, or (once they exist) a personal access token. */
export type CollabTokenOrigin = { kind: 'session'; sessionId: string } | { kind: 'accessToken'; tokenId: string };

export interface CollabTokenClaims {
  pageId: string;
  /** Null for anonymous readers of a public page. */
  userId: string | null;
  /** Null exactly when `userId` is (anonymous readers hold no credential). */
  origin: CollabTokenOrigin | null;
  mode: CollabMode;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** Long enough to open the socket and to reconnect through a short network blip. */
export const COLLAB_TOKEN_TTL_SECONDS = 120;

const COLLAB_TOKEN_PURPOSE = 'dorfteich collab token v1';

export function signCollabToken(
  sessionSecret: string,
  claims: Omit<CollabTokenClaims, 'exp'>,
  now: number = Date.now(),
): { token: string; expiresAt: Date } {
  const exp = Math.floor(now / 1000) + COLLAB_TOKEN_TTL_SECONDS;
  return { token: signPayload(sessionSecret, COLLAB_TOKEN_PURPOSE, { ...claims, exp } satisfies CollabTokenClaims), expiresAt: new Date(exp * 1000) };
}

/** The claims of a valid, unexpired token; null for anything else (no reason is given out). */
export function verifyCollabToken(sessionSecret: string, token: string, now: number = Date.now()): CollabTokenClaims | null {
  const claims = readSignedPayload(sessionSecret, COLLAB_TOKEN_PURPOSE, token, 2048);
  if (!isClaims(claims) || claims.exp * 1000 <= now) return null;
  return claims;
}

function isClaims(value: unknown): value is CollabTokenClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.pageId === 'string' &&
    (claims.userId === null ? claims.origin === null : typeof claims.userId === 'string' && isOrigin(claims.origin)) &&
    (claims.mode === 'rw' || claims.mode === 'ro') &&
    typeof claims.exp === 'number'
  );
}

function isOrigin(value: unknown): value is CollabTokenOrigin {
  if (typeof value !== 'object' || value === null) return false;
  const origin = value as Record<string, unknown>;
  if (origin.kind === 'session') return typeof origin.sessionId === 'string';
  return origin.kind === 'accessToken' && typeof origin.tokenId === 'string';
}
