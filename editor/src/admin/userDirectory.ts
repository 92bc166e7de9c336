/**
 * The Site Admin's account directory as the `/admin/users` screen reads and changes it: the
 * list (`GET /admin/users`) and each action's call, with the answers typed.
 */
import { callApi } from '../api/apiClient.ts';
import type { UserView } from '../api/apiViews.ts';

export type AccountStatus = 'ACTIVE' | 'unconfirmed' | 'disabled' | 'deleted';

export interface AccountListItem {
  id: string;
  username: string;
  email: string;
  displayName: string;
  status: AccountStatus;
  isSiteAdmin: boolean;
  pondCount: number;
  lastLoginAt: string | null;
  emailVerified: boolean;
}

export interface AccountListPage {
  items: AccountListItem[];
  nextCursor: string | null;
}

export interface DirectoryFilters {
  q: string;
  status: '' | AccountStatus;
  siteAdmin: '' | 'true' | 'false';
}

/** A one-time link handed to the Site Admin (reset link, or the set-password link of a new account). */
export interface OneTimeLink {
  link: string;
  expiresAt: string;
}

export interface CreatedAccount extends OneTimeLink {
  user: UserView;
}

export const PAGE_SIZE = 25;

export function listQuery(filters: DirectoryFilters, cursor: string | null): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.q.trim()) query.set('q', filters.q.trim());
  if (filters.status) query.set('status', filters.status);
  if (filters.siteAdmin) query.set('siteAdmin', filters.siteAdmin);
  if (cursor) query.set('cursor', cursor);
  return `/admin/users?${query.toString()}`;
}

export function fetchAccounts(filters: DirectoryFilters, cursor: string | null, signal?: AbortSignal): Promise<AccountListPage> {
  return callApi<AccountListPage>('GET', listQuery(filters, cursor), undefined, signal ? { signal } : {});
}

/** The actions of the row menu; each answers with what the screen shows next. */
export type AccountAction = 'disable' | 'enable' | 'confirm' | 'resend-verification' | 'reset-link' | 'grant-site-admin' | 'revoke-site-admin';

export type ActionAnswer = { kind: 'account'; user: UserView } | { kind: 'link'; link: OneTimeLink } | { kind: 'verification'; mailConfigured: boolean };

export async function runAccountAction(userId: string, action: AccountAction): Promise<ActionAnswer> {
  const path = `/admin/users/${encodeURIComponent(userId)}`;
  switch (action) {
    case 'disable':
    case 'enable':
    case 'confirm':
      return { kind: 'account', user: await callApi<UserView>('POST', `${path}/${action}`) };
    case 'grant-site-admin':
      return { kind: 'account', user: await callApi<UserView>('PUT', `${path}/site-admin`) };
    case 'revoke-site-admin':
      return { kind: 'account', user: await callApi<UserView>('DELETE', `${path}/site-admin`) };
    case 'reset-link':
      return { kind: 'link', link: await callApi<OneTimeLink>('POST', `${path}/reset-link`) };
    case 'resend-verification':
      return { kind: 'verification', mailConfigured: (await callApi<{ mailConfigured: boolean }>('POST', `${path}/resend-verification`)).mailConfigured };
  }
}

/** Which actions the menu offers for an account in this state (a deleted one has none). */
export function actionsFor(account: AccountListItem): AccountAction[] {
  if (account.status === 'deleted') return [];
  const actions: AccountAction[] = [account.status === 'disabled' ? 'enable' : 'disable'];
  if (!account.emailVerified && account.status !== 'disabled') actions.push('resend-verification');
  if (!account.emailVerified || account.status === 'unconfirmed') actions.push('confirm');
  actions.push('reset-link', account.isSiteAdmin ? 'revoke-site-admin' : 'grant-site-admin');
  return actions;
}
