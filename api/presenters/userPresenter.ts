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
