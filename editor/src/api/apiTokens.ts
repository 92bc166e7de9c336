/**
 * The signed-in user's personal access tokens (`/users/me/api-tokens`, session only, so a
 * token can never mint tokens). The secret comes back once, from `createApiToken`.
 */
import { callApi } from './apiClient.ts';
import type { ApiTokenView } from './apiViews.ts';

export type TokenScope = ApiTokenView['scope'];

export interface NewApiToken {
  name: string;
  scope: TokenScope;
  /** ISO datetime; null: the token does not expire. */
  expiresAt: string | null;
  /** Null: every pond the user can reach. */
  pondId: string | null;
}

export async function listApiTokens(): Promise<ApiTokenView[]> {
  return (await callApi<{ items: ApiTokenView[] }>('GET', '/users/me/api-tokens')).items;
}

export function createApiToken(input: NewApiToken): Promise<{ token: ApiTokenView; secret: string }> {
  return callApi('POST', '/users/me/api-tokens', input);
}

export function revokeApiToken(id: string): Promise<void> {
  return callApi('DELETE', `/users/me/api-tokens/${encodeURIComponent(id)}`);
}
