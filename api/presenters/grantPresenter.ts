import type { Grant, GrantEffect, PondRole } from '../models/index.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import type { DecidingLevel, Verdict, VerdictReason } from '../policies/grantResolution.ts';

export type GrantSubjectView = { type: 'user'; id: string } | { type: 'signed-in' } | { type: 'public' };
export type GrantScopeView = { type: 'pond' } | { type: 'label'; id: string } | { type: 'page'; id: string };

export interface GrantView {
  id: string;
  pondId: string;
  subject: GrantSubjectView;
  role: PondRole;
  scope: GrantScopeView;
  effect: GrantEffect;
  createdAt: string;
  createdBy: string | null;
}

export type AccessRuleSubjectView =
  | { type: 'user'; id: string; displayName: string; username: string }
  | { type: 'signed-in'; displayName: string }
  | { type: 'public'; displayName: string };

export type AccessRuleScopeView = ({ type: 'pond' } | { type: 'label'; id: string } | { type: 'page'; id: string }) & { name: string };

export interface AccessRuleView extends Omit<GrantView, 'subject' | 'scope'> {
  subject: AccessRuleSubjectView;
  scope: AccessRuleScopeView;
}

export interface VerdictView {
  allowed: boolean;
  level: DecidingLevel;
  reason: VerdictReason;
  grant: AccessRuleView | null;
}

/** The display names an access rule refers to, loaded for a batch of grants at once. */
export interface AccessRuleNames {
  pondName: string;
  users: ReadonlyMap<string, { displayName: string; username: string }>;
  /** label id → "Parent / Child" */
  labelPaths: ReadonlyMap<string, string>;
  pageTitles: ReadonlyMap<string, string>;
}

export function presentGrant(grant: Grant): GrantView {
  return {
    id: grant.id,
    pondId: grant.pondId,
    subject: grant.subjectType === 'user' ? { type: 'user', id: grant.subjectUserId! } : { type: grant.subjectType },
    role: grant.role,
    scope:
      grant.scopeType === 'label'
        ? { type: 'label', id: grant.scopeLabelId! }
        : grant.scopeType === 'page'
          ? { type: 'page', id: grant.scopePageId! }
          : { type: 'pond' },
    effect: grant.effect,
    createdAt: grant.createdAt.toISOString(),
    createdBy: grant.createdBy,
  };
}

export function pseudoSubjectName(type: 'signed-in' | 'public', locale: Locale): string {
  return apiText(`subject.${type}`, locale);
}

export function presentAccessRule(grant: Grant, names: AccessRuleNames, locale: Locale): AccessRuleView {
  const view = presentGrant(grant);
  let subject: AccessRuleSubjectView;
  if (view.subject.type === 'user') {
    // A grant's user always exists (foreign key); the fallback only covers a concurrent deletion.
    const user = names.users.get(view.subject.id) ?? { displayName: '', username: '' };
    subject = { type: 'user', id: view.subject.id, displayName: user.displayName, username: user.username };
  } else subject = { type: view.subject.type, displayName: pseudoSubjectName(view.subject.type, locale) };
  let scope: AccessRuleScopeView;
  if (view.scope.type === 'label') scope = { ...view.scope, name: names.labelPaths.get(view.scope.id) ?? '' };
  else if (view.scope.type === 'page') scope = { ...view.scope, name: names.pageTitles.get(view.scope.id) ?? '' };
  else scope = { type: 'pond', name: names.pondName };
  return { ...view, subject, scope };
}

/** A verdict with its deciding grant replaced by that grant's access-rule view. */
export function presentVerdict(verdict: Verdict, rules: ReadonlyMap<string, AccessRuleView>): VerdictView {
  return {
    allowed: verdict.allowed,
    level: verdict.level,
    reason: verdict.reason,
    grant: verdict.grant ? (rules.get(verdict.grant.id) ?? null) : null,
  };
}
