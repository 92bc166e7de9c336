/** The access screen's views (api/presenters/grantPresenter.ts `AccessRuleView`, `VerdictView`). */
export type Role = 'reader' | 'editor' | 'pond_admin';

export interface AccessRuleView {
  id: string;
  subject: { type: 'user'; id: string; displayName: string; username: string } | { type: 'signed-in'; displayName: string } | { type: 'public'; displayName: string };
  role: Role;
  scope: ({ type: 'pond' } | { type: 'label'; id: string } | { type: 'page'; id: string }) & { name: string };
  effect: 'allow' | 'deny';
}

export interface VerdictView {
  allowed: boolean;
  level: 'page' | 'label' | 'pond' | 'none';
  reason: 'site_admin' | 'pond_admin' | 'grant' | 'no_grant' | 'pond_trashed';
  grant: AccessRuleView | null;
}

export interface ExplanationView {
  subject: { displayName: string };
  page: { id: string; title: string; slug: string; trashed: boolean } | null;
  admin: boolean;
  read: VerdictView;
  write: VerdictView;
}

/** Something to pick in a select: a member, a label (with its path) or a page. */
export interface Choice {
  id: string;
  name: string;
}
