/**
 * A personal access token as its owner sees it in settings (`/users/me/api-tokens`). Never
 * the secret (it is in the creation answer only) and never the hash. Revoked tokens are not
 * listed at all, so the status is the state of a live one: `expired` once `expiresAt` passed.
 */
import { isExpired, type AccessTokenRecord, type TokenScope } from '../auth/accessTokens.ts';

export interface ApiTokenPondView {
  id: string;
  slug: string;
  name: string;
}

export interface ApiTokenView {
  id: string;
  name: string;
  scope: TokenScope;
  /** The pond the token is restricted to; null: every pond its owner may use. */
  pond: ApiTokenPondView | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  status: 'active' | 'expired';
}

/** `pond` is the restriction's pond (loaded by the caller); `now` decides expiry. */
export function presentApiToken(token: AccessTokenRecord, pond: ApiTokenPondView | null, now: Date = new Date()): ApiTokenView {
  return {
    id: token.id,
    name: token.name,
    scope: token.scope,
    pond: pond && { id: pond.id, slug: pond.slug, name: pond.name },
    expiresAt: token.expiresAt?.toISOString() ?? null,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    createdAt: token.createdAt.toISOString(),
    status: isExpired(token, now) ? 'expired' : 'active',
  };
}
