/**
 * Personal access tokens as a credential (spec: Authentication 3; Public REST API, enforcement
 * order). The REST router and the MCP endpoint share it: after the channel's instance switch
 * (checked by the caller), `Authorization: Bearer dt_pat_…` is looked up, then the token's
 * request is counted against its rate limit, and only then do scope, pond opt-in and the
 * permission model follow. Cookies are never read here: a token request carries no ambient
 * credential, so no CSRF origin check applies.
 */
import type { Request } from 'express';
import { checkAndCountAccessToken } from '../auth/accessTokens.ts';
import type { Actor, Authenticator } from '../auth/authenticateRequest.ts';
import { assertWithinLimit } from '../auth/rateLimiter.ts';
import { ApiError } from '../http/apiError.ts';
import { User } from '../models/index.ts';
import type { AppServices } from '../services.ts';

const BEARER = /^Bearer[ \t]+(.*)$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="dorfteich", error="invalid_token"' };

/** The presented secret, or null when the request has no bearer credential at all. */
export function presentedBearer(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = BEARER.exec(header);
  // Some other scheme (Basic…): not a token, so the caller is anonymous. Anything after
  // `Bearer` is a presented secret, however malformed, and is refused as one.
  return match ? match[1]!.trim() : null;
}

/**
 * The token's owner as an actor, or null without a bearer credential. A credential that is
 * not a live token throws 401 (which one: unknown, expired or revoked), an exhausted budget
 * 429 with `Retry-After`, so a client can tell a bad secret from a busy one.
 */
export async function authenticateBearer(req: Request, services: AppServices): Promise<Actor | null> {
  const presented = presentedBearer(req);
  if (presented === null) return null;
  // One statement looks the token up and, for a live one, counts the request (rate limit step).
  const counted = await checkAndCountAccessToken(services.sequelize, presented, services.config.apiRateLimit.windowSeconds);
  if (counted.counter === null) {
    const { status } = counted.check;
    const code = status === 'expired' ? 'access_token_expired' : status === 'revoked' ? 'access_token_revoked' : 'access_token_invalid';
    throw new ApiError(code, 401, {}, CHALLENGE);
  }
  const { token } = counted.check;
  // The lookup excludes disabled and deleted owners; a row gone since then reads as unknown.
  const user = await User.findByPk(token.userId);
  if (!user) throw new ApiError('access_token_invalid', 401, {}, CHALLENGE);
  assertWithinLimit(counted.counter, services.config.apiRateLimit);
  return { user, session: null, token: { id: token.id, name: token.name, scope: token.scope, pondId: token.pondId } };
}

/** The route table's authenticator for the public REST router. */
export const bearerTokenAuthentication: Authenticator = {
  ambientCredentials: false,
  authenticate: (req, _res, services) => authenticateBearer(req, services),
};
