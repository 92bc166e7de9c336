/**
 * "Why may this subject (not) read or write here?" for pond admins: the verdicts come from
 * the grant resolver itself (SubjectAccess), never from a second reading of the grants, so
 * the explanation cannot drift from what the policy enforces.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { ApiError, notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { Grant, Page, User, type Pond } from '../models/index.ts';
import { pseudoSubjectName, presentVerdict, type AccessRuleView, type VerdictView } from '../presenters/grantPresenter.ts';
import { presentPageReference } from '../presenters/pagePresenter.ts';
import { ANONYMOUS, SubjectAccess, type AccessSubject, type PageState, type PondAccessData, type Verdict } from './grantResolution.ts';
import { isUuid } from './accessPolicy.ts';
import { describeGrants } from './accessRuleNames.ts';
import { loadPondAccess } from './pondAccessCache.ts';

export type ExplainedSubjectType = 'user' | 'signed-in' | 'public';

/** The subject as the resolver sees it: a user with their own Site Admin flag, or a pseudo subject. */
export function explainedSubject(type: ExplainedSubjectType, user: { id: string; isSiteAdmin: boolean } | null): AccessSubject {
  if (type === 'user') return { userId: user!.id, signedIn: true, isSiteAdmin: user!.isSiteAdmin };
  if (type === 'signed-in') return { userId: null, signedIn: true, isSiteAdmin: false };
  return ANONYMOUS;
}

export interface AccessVerdicts {
  read: Verdict;
  write: Verdict;
  admin: boolean;
}

/** Read and write on the page (or on the pond as a whole), and pond administration. */
export function resolveVerdicts(data: PondAccessData, subject: AccessSubject, page: PageState | null): AccessVerdicts {
  const access = new SubjectAccess(data, subject);
  const verdict = (capability: 'read' | 'write') => (page ? access.page(page, capability) : access.pond(capability));
  return { read: verdict('read'), write: verdict('write'), admin: access.pond('admin').allowed };
}

export interface EffectivePermissionsQuery {
  subjectType: ExplainedSubjectType;
  subjectId?: string | undefined;
  pageId?: string | undefined;
}

/**
 * A verdict on a page, and, when it refuses, the rule on the nearest page above that allows
 * there: page-scope rules do not reach the pages inside (the resolver reads page, label,
 * pond), which an admin who set a rule on the parent needs to be told.
 */
export type ExplainedVerdictView = VerdictView & { abovePageGrant: AccessRuleView | null };

export interface EffectivePermissionsView {
  subject: { type: ExplainedSubjectType; id: string | null; displayName: string };
  page: { id: string; title: string; slug: string; trashed: boolean } | null;
  read: ExplainedVerdictView;
  write: ExplainedVerdictView;
  admin: boolean;
}

/** The page's ancestors, nearest first (the tree is at most 6 deep; 64 guards a broken chain). */
async function ancestorsOf(sequelize: Sequelize, page: Page): Promise<PageState[]> {
  if (!page.parentId) return [];
  const rows = await sequelize.query<{ id: string; trashed_at: Date | null }>(
    `WITH RECURSIVE chain AS (
       SELECT id, parent_id, trashed_at, 1 AS distance FROM pages WHERE id = :parentId
       UNION ALL
       SELECT p.id, p.parent_id, p.trashed_at, chain.distance + 1 FROM pages p JOIN chain ON p.id = chain.parent_id WHERE chain.distance < 64
     )
     SELECT id, trashed_at FROM chain ORDER BY distance`,
    { replacements: { parentId: page.parentId }, type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({ id: row.id, trashedAt: row.trashed_at }));
}

/** The page-scope allow on the nearest ancestor that decides `capability` there, for a refused verdict. */
function abovePageAllow(access: SubjectAccess, verdict: Verdict, ancestors: readonly PageState[], capability: 'read' | 'write'): Verdict['grant'] {
  if (verdict.allowed) return null;
  for (const ancestor of ancestors) {
    const there = access.page(ancestor, capability);
    if (there.allowed && there.level === 'page' && there.grant) return there.grant;
  }
  return null;
}

export async function explainEffectivePermissions(
  sequelize: Sequelize,
  pond: Pond,
  query: EffectivePermissionsQuery,
  locale: () => Promise<Locale>,
): Promise<EffectivePermissionsView> {
  let user: User | null = null;
  if (query.subjectType === 'user') {
    user = await User.findByPk(query.subjectId!);
    if (!user) throw new ApiError('user_not_found');
  }
  let page: Page | null = null;
  if (query.pageId !== undefined) {
    page = isUuid(query.pageId) ? await Page.findOne({ where: { id: query.pageId, pondId: pond.id } }) : null;
    if (!page) throw notFound();
  }
  const data = await loadPondAccess(sequelize, pond.id);
  if (!data) throw notFound();
  const subject = explainedSubject(query.subjectType, user);
  const verdicts = resolveVerdicts(data, subject, page);
  const access = new SubjectAccess(data, subject);
  const ancestors = page ? await ancestorsOf(sequelize, page) : [];
  const above = { read: abovePageAllow(access, verdicts.read, ancestors, 'read'), write: abovePageAllow(access, verdicts.write, ancestors, 'write') };
  const decidingIds = [...new Set([verdicts.read.grant?.id, verdicts.write.grant?.id, above.read?.id, above.write?.id].filter((id): id is string => id !== undefined))];
  const language = await locale();
  const decidingGrants = decidingIds.length > 0 ? await Grant.findAll({ where: { id: decidingIds, pondId: pond.id } }) : [];
  const rules = new Map((await describeGrants(pond, decidingGrants, language)).map((rule) => [rule.id, rule]));
  return {
    subject: {
      type: query.subjectType,
      id: user?.id ?? null,
      displayName: user ? user.displayName : pseudoSubjectName(query.subjectType as 'signed-in' | 'public', language),
    },
    page: page ? { ...presentPageReference(page), trashed: page.trashedAt !== null } : null,
    read: { ...presentVerdict(verdicts.read, rules), abovePageGrant: above.read ? (rules.get(above.read.id) ?? null) : null },
    write: { ...presentVerdict(verdicts.write, rules), abovePageGrant: above.write ? (rules.get(above.write.id) ?? null) : null },
    admin: verdicts.admin,
  };
}
