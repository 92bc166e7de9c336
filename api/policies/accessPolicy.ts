/**
 * The policy module every part asks: internal API, public REST API, MCP, the collaboration
 * server, search, feeds and jobs. It answers "may this subject do this to that pond / page /
 * label" (throwing 404 for a denied read and 403 for a denied write on something readable),
 * and in bulk "which of these pages may it read / write".
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Actor } from '../auth/authenticateRequest.ts';
import { ApiError, forbidden, notFound, unauthenticated } from '../http/apiError.ts';
import { Label, Page, Pond } from '../models/index.ts';
import { ANONYMOUS, SubjectAccess, pondVisible, type AccessSubject, type Capability, type PageState } from './grantResolution.ts';
import { belongsToPond } from './membership.ts';
import { loadPondAccess, loadPondAccessMany } from './pondAccessCache.ts';

/**
 * What a pond route may ask besides the pond-level capabilities:
 * - `visible`: the subject sees the pond at all (pond-level read, or a label/page allow);
 * - `member`: the subject belongs to the pond (api/policies/membership.ts) or is a Site
 *   Admin; anyone else, public readers included, gets 404: who works in a pond is hidden;
 * - `trash`: the subject may list the pond's trash: pond-level write, or some label- or
 *   page-scope allow reaches it (it may have trashed pages it can write; the list shows only
 *   those). Only signed-in users ever may: an anonymous caller who sees the pond gets 401.
 */
export type PondCapability = 'visible' | 'member' | 'trash' | Capability;
export type PageCapability = 'read' | 'write';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function accessSubjectOf(actor: Actor | null): AccessSubject {
  if (!actor) return ANONYMOUS;
  return { userId: actor.user.id, signedIn: true, isSiteAdmin: actor.user.isSiteAdmin };
}

/** The subject's view of one pond, or null when the pond does not exist. */
export async function subjectAccessTo(sequelize: Sequelize, subject: AccessSubject, pondId: string): Promise<SubjectAccess | null> {
  if (!isUuid(pondId)) return null;
  const data = await loadPondAccess(sequelize, pondId);
  return data ? new SubjectAccess(data, subject) : null;
}

function allowsOnPond(access: SubjectAccess, capability: PondCapability): boolean {
  switch (capability) {
    case 'visible':
      return pondVisible(access);
    case 'member':
      return access.subject.isSiteAdmin || belongsToPond(access);
    case 'trash':
      return access.pond('write').allowed || access.hasScopedAllow;
    default:
      return access.pond(capability).allowed;
  }
}

/**
 * Whether the subject sees a pond it may see as one of its people (the `member` capability):
 * it belongs to the pond, or is a Site Admin. Everyone else who sees it (anonymous callers,
 * and users who reach it only through a `public` grant) is a visitor and gets the visitor
 * views: no usernames, no pond settings, no unclaimed uploads (docs/access-model.md).
 */
export function seesPondAsMember(access: SubjectAccess): boolean {
  return allowsOnPond(access, 'member');
}

/** The answer to a subject that sees the pond but lacks the capability. */
function refusal(capability: PondCapability, subject: AccessSubject): ApiError {
  if (capability === 'member') return notFound();
  if (capability === 'trash' && !subject.signedIn) return unauthenticated();
  return forbidden();
}

function requireSessionFor(capability: PondCapability, subject: AccessSubject): void {
  if ((capability === 'write' || capability === 'admin') && !subject.signedIn) throw unauthenticated();
}

/**
 * The pond if the subject may act on it with `capability`; 404 when it cannot see it, 403 when
 * it can. `loadPond` reads the row (a page render's reads share one, routeTable.ts).
 */
export async function authorizePond(
  sequelize: Sequelize,
  subject: AccessSubject,
  pondId: string,
  capability: PondCapability,
  loadPond: (id: string) => Promise<Pond | null> = (id) => Pond.findByPk(id),
): Promise<{ pond: Pond; access: SubjectAccess }> {
  requireSessionFor(capability, subject);
  const access = await subjectAccessTo(sequelize, subject, pondId);
  if (!access || !pondVisible(access)) throw notFound();
  if (!allowsOnPond(access, capability)) throw refusal(capability, subject);
  const pond = await loadPond(pondId);
  if (!pond) throw notFound();
  return { pond, access };
}

/**
 * The page if the subject may act on it. A trashed page answers `page_trashed` to those who
 * may see it (write capability) unless the route works on trashed pages (`allowTrashed`).
 * `loadPage` reads the row (a page render's reads share one, routeTable.ts).
 */
export async function authorizePage(
  sequelize: Sequelize,
  subject: AccessSubject,
  pageId: string,
  capability: PageCapability,
  options: { allowTrashed?: boolean; loadPage?: (id: string) => Promise<Page | null> } = {},
): Promise<{ page: Page; access: SubjectAccess }> {
  requireSessionFor(capability, subject);
  const page = isUuid(pageId) ? await (options.loadPage ?? ((id: string) => Page.findByPk(id)))(pageId) : null;
  if (!page) throw notFound();
  const access = await subjectAccessTo(sequelize, subject, page.pondId);
  if (!access || !access.page(page, 'read').allowed) throw notFound();
  if (page.trashedAt && !options.allowTrashed) throw new ApiError('page_trashed', 404, { trashedAt: page.trashedAt.toISOString() });
  if (!access.page(page, capability).allowed) throw forbidden();
  return { page, access };
}

/** The label if the subject may act on its pond with `capability` (labels live at pond level). */
export async function authorizeLabel(sequelize: Sequelize, subject: AccessSubject, labelId: string, capability: PondCapability): Promise<{ label: Label; access: SubjectAccess }> {
  requireSessionFor(capability, subject);
  const label = isUuid(labelId) ? await Label.findByPk(labelId) : null;
  if (!label) throw notFound();
  const access = await subjectAccessTo(sequelize, subject, label.pondId);
  if (!access || !pondVisible(access)) throw notFound();
  if (!allowsOnPond(access, capability)) throw refusal(capability, subject);
  return { label, access };
}

/**
 * The bulk form: which of these pages the subject may read (or write). Access data is loaded
 * once per pond, never per page.
 */
export async function permittedPageIds(
  sequelize: Sequelize,
  subject: AccessSubject,
  pages: readonly (PageState & { pondId: string })[],
  capability: PageCapability = 'read',
): Promise<Set<string>> {
  const pondIds = [...new Set(pages.map((page) => page.pondId))].filter(isUuid);
  const dataById = await loadPondAccessMany(sequelize, pondIds);
  const byPond = new Map([...dataById].map(([id, data]) => [id, new SubjectAccess(data, subject)]));
  const permitted = new Set<string>();
  for (const page of pages) {
    if (byPond.get(page.pondId)?.page(page, capability).allowed) permitted.add(page.id);
  }
  return permitted;
}

export interface ListedPond {
  pond: Pond;
  access: SubjectAccess;
}

/**
 * The ponds a signed-in user belongs to (`belongsToPond`: a grant naming them or all signed-in
 * users lets them see the pond; public reading is not membership). With `trashed`, lists the
 * trashed ponds the user may restore instead (every trashed pond for a Site Admin).
 */
export async function listMemberPonds(sequelize: Sequelize, subject: AccessSubject, options: { trashed?: boolean } = {}): Promise<ListedPond[]> {
  if (!subject.userId) return [];
  const candidates = await sequelize.query<{ id: string }>(
    options.trashed && subject.isSiteAdmin
      ? `SELECT id FROM ponds WHERE trashed_at IS NOT NULL`
      : `SELECT DISTINCT g.pond_id AS id FROM grants g JOIN ponds p ON p.id = g.pond_id
          WHERE (g.subject_user_id = :userId OR g.subject_type = 'signed-in')
            AND (p.trashed_at IS NOT NULL) = :trashed`,
    { replacements: { userId: subject.userId, trashed: Boolean(options.trashed) }, type: QueryTypes.SELECT },
  );
  const accessById = new Map<string, SubjectAccess>();
  const dataById = await loadPondAccessMany(sequelize, candidates.map((candidate) => candidate.id));
  for (const [id, data] of dataById) {
    const access = new SubjectAccess(data, subject);
    if (options.trashed ? !access.pond('admin').allowed : !belongsToPond(access)) continue;
    accessById.set(id, access);
  }
  if (accessById.size === 0) return [];
  const ponds = await Pond.findAll({ where: { id: [...accessById.keys()] }, order: [['kind', 'ASC'], ['name', 'ASC'], ['id', 'ASC']] });
  return ponds.map((pond) => ({ pond, access: accessById.get(pond.id)! }));
}

/**
 * The live ponds where some grant reaches the subject and lets them see part of the pond: the
 * ponds they belong to (a grant names them or all signed-in users) and ponds with a public
 * grant. What search covers when no pond is named.
 */
export async function listReachablePonds(sequelize: Sequelize, subject: AccessSubject): Promise<SubjectAccess[]> {
  const subjects = [`g.subject_type = 'public'`, ...(subject.signedIn ? [`g.subject_type = 'signed-in'`] : []), ...(subject.userId ? ['g.subject_user_id = :userId'] : [])];
  const rows = await sequelize.query<{ id: string }>(
    `SELECT DISTINCT g.pond_id AS id FROM grants g JOIN ponds p ON p.id = g.pond_id WHERE p.trashed_at IS NULL AND (${subjects.join(' OR ')})`,
    { replacements: { userId: subject.userId }, type: QueryTypes.SELECT },
  );
  const data = await loadPondAccessMany(sequelize, rows.map((row) => row.id));
  return [...data.values()].map((pond) => new SubjectAccess(pond, subject)).filter(pondVisible);
}

/**
 * SQL: whether the pond in `pondColumn` has any grant for the public. A candidate filter, not
 * a verdict (a public grant may allow or deny, and reach a page, a label or the pond; the
 * resolver decides what the public reads); kept here so grants are read in this module only.
 */
export function pondHasPublicGrantSql(pondColumn: string): string {
  return `EXISTS (SELECT 1 FROM grants g WHERE g.pond_id = ${pondColumn} AND g.subject_type = 'public')`;
}

/** The live ponds with any grant for the public, by id: the candidates of what the public may read (inside `transaction` when given). */
export async function listPublicCandidatePonds(sequelize: Sequelize, transaction?: Transaction): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(`SELECT p.id FROM ponds p WHERE p.trashed_at IS NULL AND ${pondHasPublicGrantSql('p.id')} ORDER BY p.id`, {
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows.map((row) => row.id);
}

export { pondVisible, SubjectAccess };
export type { AccessSubject, Capability, PageState };
