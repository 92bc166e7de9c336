/** The access screen's views (api/presenters/grantPresenter.ts `AccessRuleView`, `VerdictView`) and a rule in words. */
import type { Translate } from '../i18n/translator.ts';

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

/**
 * A verdict of the explainer; when it refuses on a page, the page-scope rule on the nearest
 * page above that allows there (api/policies/accessExplanation.ts): it does not reach this page.
 */
export type ExplainedVerdictView = VerdictView & { abovePageGrant: AccessRuleView | null };

export interface ExplanationView {
  subject: { displayName: string };
  page: { id: string; title: string; slug: string; trashed: boolean } | null;
  admin: boolean;
  read: ExplainedVerdictView;
  write: ExplainedVerdictView;
}

/** Something to pick in a select: a member, a label (with its path) or a page. */
export interface Choice {
  id: string;
  name: string;
}

/** The rule as a sentence (German puts the scope first, so the first letter is raised here). */
export function describeRule(t: Translate, rule: AccessRuleView): string {
  const text = t(rule.effect === 'allow' ? 'access.ruleAllow' : 'access.ruleDeny', {
    subject: rule.subject.displayName,
    role: t(`access.role.${rule.role}`),
    scope: rule.scope.type === 'pond' ? t('access.scopePond') : t(`access.scope.${rule.scope.type}`, { name: rule.scope.name }),
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}
