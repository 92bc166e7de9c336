import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import type { User } from '../models/index.ts';

export interface UserView {
  id: string;
  username: string;
  email: string;
  displayName: string;
  locale: 'de' | 'en' | null;
  status: User['status'];
  isSiteAdmin: boolean;
  emailVerified: boolean;
  digestFrequency: User['digestFrequency'];
  autoWatchOwnPages: boolean;
  autoWatchOnComment: boolean;
  createdAt: string;
}

/** The signed-in user's own view of their account. */
export function presentUser(user: User): UserView {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    displayName: user.displayName,
    locale: user.locale,
    status: user.status,
    isSiteAdmin: user.isSiteAdmin,
    emailVerified: user.emailVerifiedAt !== null,
    digestFrequency: user.digestFrequency,
    autoWatchOwnPages: user.autoWatchOwnPages,
    autoWatchOnComment: user.autoWatchOnComment,
    createdAt: user.createdAt.toISOString(),
  };
}

/**
 * The name to show for a person who authored or did something: a deleted account's scrubbed
 * placeholder is never shown, a localized "Deleted user" is.
 */
export function personDisplayName(person: { displayName: string; status: User['status'] }, locale: Locale): string {
  return person.status === 'deleted' ? apiText('user.deleted', locale) : person.displayName;
}

/** One account in the Site Admin's list (`GET /admin/users`). */
export interface AccountListItemView {
  id: string;
  username: string;
  email: string;
  displayName: string;
  status: User['status'];
  isSiteAdmin: boolean;
  /** Live ponds the account is a listed member of (its personal pond included). */
  pondCount: number;
  lastLoginAt: string | null;
  emailVerified: boolean;
}

export function presentAccountListItem(user: User, pondCount: number, locale: Locale): AccountListItemView {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    displayName: personDisplayName(user, locale),
    status: user.status,
    isSiteAdmin: user.isSiteAdmin,
    pondCount,
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
    emailVerified: user.emailVerifiedAt !== null,
  };
}
