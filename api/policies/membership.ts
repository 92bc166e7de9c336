/**
 * What membership means, once. Two notions, both read from grants and from nothing else:
 *
 * - A *listed member* holds a membership grant: a user subject, pond scope, `allow`. Their
 *   granted role is the highest such grant. The member list shows them, seats count them,
 *   and the owner, last-admin and personal-pond rules guard them (api/commands/membershipCommands.ts).
 *   What they may actually do is their effective role (`ownPondRole`): denies and
 *   all-signed-in grants count, a Site Admin's bypass does not.
 * - A user *belongs to* a pond (the `member` capability, the ponds `GET /ponds` lists) when
 *   the grants that name them or all signed-in users let them see the pond by themselves: at
 *   pond level, or through a label- or page-scope allow. So a user whom only a page-scope
 *   grant reaches belongs to the pond (it is in their list, they may see who else works in
 *   it); a user the pond is visible to only through a `public` grant does not: that is
 *   public reading, not membership. A Site Admin's bypass does not make them a member
 *   either; the `member` capability lets them through as it lets them through everything.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PondRole } from '../models/index.ts';
import { SubjectAccess, effectivePondRole, pondVisible, type GrantRule, type PondAccessData } from './grantResolution.ts';

export const ROLES_BY_RANK: readonly PondRole[] = ['pond_admin', 'editor', 'reader'];

export function higherRole(a: PondRole | null, b: PondRole | null): PondRole | null {
  if (!a) return b;
  if (!b) return a;
  return ROLES_BY_RANK.indexOf(a) <= ROLES_BY_RANK.indexOf(b) ? a : b;
}

type GrantShape = Pick<GrantRule, 'subjectType' | 'scopeType' | 'effect'>;

/** Whether a grant makes its user a listed member (and so moves their granted role). */
export function isMembershipGrant(grant: GrantShape): boolean {
  return grant.subjectType === 'user' && grant.scopeType === 'pond' && grant.effect === 'allow';
}

/** The `where` of one user's membership grants in a pond. */
export function membershipGrantWhere(pondId: string, userId: string) {
  return { pondId, subjectType: 'user', subjectUserId: userId, scopeType: 'pond', effect: 'allow' } as const;
}

/** The row of a membership grant giving `userId` the role `role`. */
export function membershipGrant(pondId: string, userId: string, role: PondRole, createdBy: string) {
  return { ...membershipGrantWhere(pondId, userId), role, scopeLabelId: null, scopePageId: null, createdBy };
}

/** The granted role of a user after their membership grants become `grants`: the highest of them. */
export function grantedRoleOf(grants: readonly (GrantShape & { role: PondRole })[]): PondRole | null {
  return grants.filter(isMembershipGrant).reduce<PondRole | null>((role, grant) => higherRole(role, grant.role), null);
}

export interface Member {
  userId: string;
  username: string;
  displayName: string;
  grantedRole: PondRole;
}

interface MemberRow {
  id: string;
  username: string;
  display_name: string;
  role: PondRole;
}

/** Every listed member of the pond with their granted role. */
export async function loadListedMembers(sequelize: Sequelize, pondId: string, transaction?: Transaction): Promise<Member[]> {
  const rows = await sequelize.query<MemberRow>(
    `SELECT DISTINCT ON (u.id) u.id, u.username, u.display_name, g.role
       FROM grants g JOIN users u ON u.id = g.subject_user_id
      WHERE g.pond_id = :pondId AND g.subject_type = 'user' AND g.scope_type = 'pond' AND g.effect = 'allow'
      ORDER BY u.id, array_position(ARRAY['pond_admin', 'editor', 'reader'], g.role)`,
    { replacements: { pondId }, type: QueryTypes.SELECT, transaction },
  );
  return rows.map((row) => ({ userId: row.id, username: row.username, displayName: row.display_name, grantedRole: row.role }));
}

/** How many live (untrashed) ponds each user is a listed member of; users with none are missing from the map. */
export async function countListedPonds(sequelize: Sequelize, userIds: readonly string[], transaction?: Transaction): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await sequelize.query<{ user_id: string; ponds: number }>(
    `SELECT g.subject_user_id AS user_id, count(DISTINCT g.pond_id)::int AS ponds
       FROM grants g JOIN ponds p ON p.id = g.pond_id AND p.trashed_at IS NULL
      WHERE g.subject_user_id IN (:userIds) AND g.subject_type = 'user' AND g.scope_type = 'pond' AND g.effect = 'allow'
      GROUP BY g.subject_user_id`,
    { replacements: { userIds: [...userIds] }, type: QueryTypes.SELECT, transaction },
  );
  return new Map(rows.map((row) => [row.user_id, row.ponds]));
}

function withoutSiteAdminBypass(access: SubjectAccess): SubjectAccess {
  return access.subject.isSiteAdmin ? new SubjectAccess(access.data, { ...access.subject, isSiteAdmin: false }) : access;
}

/**
 * The pond-level role the subject's own grants give it, denies taken into account; a Site
 * Admin's bypass aside (their capabilities still show what they may do).
 */
export function ownPondRole(access: SubjectAccess): PondRole | null {
  return effectivePondRole(withoutSiteAdminBypass(access));
}

/** A user's effective pond-level role, as `ownPondRole`. */
export function effectiveRoleOfUser(data: PondAccessData, userId: string): PondRole | null {
  return ownPondRole(new SubjectAccess(data, { userId, signedIn: true, isSiteAdmin: false }));
}

/** The highest pond-scope allow role each pseudo subject (all signed-in users, the public) holds. */
export function everyoneRoles(data: PondAccessData): { signedIn: PondRole | null; public: PondRole | null } {
  let signedIn: PondRole | null = null;
  let publicRole: PondRole | null = null;
  for (const grant of data.grants) {
    if (grant.scopeType !== 'pond' || grant.effect !== 'allow') continue;
    if (grant.subjectType === 'signed-in') signedIn = higherRole(signedIn, grant.role);
    if (grant.subjectType === 'public') publicRole = higherRole(publicRole, grant.role);
  }
  return { signedIn, public: publicRole };
}

/**
 * Whether the subject belongs to the pond (see the header): it sees the pond, and would
 * still see it if the pond had no `public` grants. Both, because a public deny can hide a
 * pond that a signed-in grant alone would show.
 */
export function belongsToPond(access: SubjectAccess): boolean {
  if (!access.subject.userId) return false;
  const own = withoutSiteAdminBypass(access);
  if (!pondVisible(own)) return false;
  const grants = access.data.grants;
  if (!grants.some((grant) => grant.subjectType === 'public')) return true;
  const withoutPublic: PondAccessData = { ...access.data, grants: grants.filter((grant) => grant.subjectType !== 'public') };
  return pondVisible(new SubjectAccess(withoutPublic, own.subject));
}

/**
 * Whether the subject reads the pond as a whole by grants of its own: a Site Admin, or
 * pond-level read that the grants naming them or all signed-in users give (as in
 * `belongsToPond`, a `public` grant alone is public reading, and a public deny still counts).
 * Who reads only part of the pond (a label- or page-scope guest, a visitor) sees the label
 * tree only around the pages they may read (docs/access-model.md, "Visitors and members").
 */
export function readsWholePond(access: SubjectAccess): boolean {
  if (access.subject.isSiteAdmin) return true;
  if (!access.subject.userId || !access.pond('read').allowed) return false;
  const grants = access.data.grants;
  if (!grants.some((grant) => grant.subjectType === 'public')) return true;
  const withoutPublic: PondAccessData = { ...access.data, grants: grants.filter((grant) => grant.subjectType !== 'public') };
  return new SubjectAccess(withoutPublic, access.subject).pond('read').allowed;
}
