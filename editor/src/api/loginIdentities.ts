/**
 * The external sign-ins linked to the own account (`/users/me/identities`, session only).
 * Linking itself is no call: the browser goes to `GET /auth/oidc/link` and comes back from the
 * provider to the settings page (`LINK_IDENTITY_PATH`).
 */
import { API_BASE, callApi } from './apiClient.ts';
import type { LoginIdentitiesView } from './apiViews.ts';

/** Where the browser goes to link the configured provider; the provider sends it back to /settings. */
export const LINK_IDENTITY_PATH = `${API_BASE}/auth/oidc/link`;

/** Where "Sign in with …" goes; `next` is where the sign-in ends up (checked again by the API). */
export function oidcStartPath(next: string): string {
  return `${API_BASE}/auth/oidc/start?next=${encodeURIComponent(next)}`;
}

export function listLoginIdentities(): Promise<LoginIdentitiesView> {
  return callApi('GET', '/users/me/identities');
}

export function unlinkLoginIdentity(id: string): Promise<void> {
  return callApi('DELETE', `/users/me/identities/${encodeURIComponent(id)}`);
}
