/**
 * Changing the members of a pond (who is one, and with which role, is defined in
 * api/policies/membership.ts). Every change that moves someone's granted role (member routes and
 * grant routes alike) goes through `assertMembershipChange` under the per-pond row lock, so
 * the owner, last-admin, personal-pond and seat rules cannot be bypassed by either path, and
 * concurrent adds cannot overrun a seat quota.
 */
import { Op, type Transaction } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { Grant, Pond, User, type PondRole } from '../models/index.ts';
import { effectiveRoleOfUser, loadListedMembers, membershipGrant, membershipGrantWhere, type Member } from '../policies/membership.ts';
import { announceAccessChange, loadPondAccess } from '../policies/pondAccessCache.ts';
import { resolveQuota } from '../quotas/quotaLadder.ts';

export type SeatKind = 'editors' | 'readers';

/** Pond admins take an editor seat: they can write. */
export function seatOf(role: PondRole): SeatKind {
  return role === 'reader' ? 'readers' : 'editors';
}

const SEAT_QUOTA = { editors: 'editors_per_pond', readers: 'readers_per_pond' } as const;

export interface SeatCount {
  used: number;
  /** null = unlimited */
  limit: number | null;
}

export type SeatUsage = Record<SeatKind, SeatCount>;

/** Every listed member of the pond, as the transaction sees it. */
export async function loadMembers(pondId: string, transaction?: Transaction): Promise<Member[]> {
  return loadListedMembers(Grant.sequelize!, pondId, transaction);
}

export async function seatUsage(pond: Pond, members: readonly Member[], transaction?: Transaction): Promise<SeatUsage> {
  const count = (kind: SeatKind) => members.filter((member) => seatOf(member.grantedRole) === kind).length;
  const [editors, readers] = await Promise.all([
    resolveQuota(SEAT_QUOTA.editors, { pondId: pond.id, userId: pond.ownerId }, transaction),
    resolveQuota(SEAT_QUOTA.readers, { pondId: pond.id, userId: pond.ownerId }, transaction),
  ]);
  return { editors: { used: count('editors'), limit: editors.limit }, readers: { used: count('readers'), limit: readers.limit } };
}

/**
 * Takes the per-pond lock that serializes member and grant changes (held until the
 * transaction ends) and returns the pond as it is now.
 */
export async function lockPond(pondId: string, transaction: Transaction): Promise<Pond> {
  const pond = await Pond.findByPk(pondId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!pond) throw notFound();
  return pond;
}

/**
 * The pond rules for one user's granted role moving from `from` to `to` (null = not a
 * member). Call under `lockPond`, with `members` loaded after taking the lock.
 */
export async function assertMembershipChange(
  pond: Pond,
  members: readonly Member[],
  change: { userId: string; from: PondRole | null; to: PondRole | null },
  transaction: Transaction,
): Promise<void> {
  const { userId, from, to } = change;
  if (from === to) return;
  if (userId === pond.ownerId && to !== 'pond_admin') throw new ApiError('owner_membership');
  if (from === 'pond_admin' && to !== 'pond_admin') {
    const otherAdmins = members.filter((member) => member.grantedRole === 'pond_admin' && member.userId !== userId);
    if (otherAdmins.length === 0) throw new ApiError('last_pond_admin');
  }
  if (to === 'pond_admin' && pond.kind === 'personal' && userId !== pond.ownerId) throw new ApiError('personal_pond_single_admin');
  if (to === null || (from !== null && seatOf(from) === seatOf(to))) return;
  const kind = seatOf(to);
  const usage = await seatUsage(pond, members, transaction);
  const { used, limit } = usage[kind];
  if (limit !== null && used + 1 > limit) throw new ApiError('quota_exceeded', 409, { quota: SEAT_QUOTA[kind], limit, used });
}

export function memberOf(members: readonly Member[], userId: string): Member | null {
  return members.find((member) => member.userId === userId) ?? null;
}

export interface MemberState {
  member: Member;
  effectiveRole: PondRole | null;
  isOwner: boolean;
}

/** A member as the transaction now sees it (fresh access data, nothing cached). */
async function memberState(pond: Pond, userId: string, transaction: Transaction): Promise<MemberState> {
  const member = memberOf(await loadMembers(pond.id, transaction), userId);
  const data = await loadPondAccess(Pond.sequelize!, pond.id, transaction);
  if (!member || !data) throw new ApiError('internal_error');
  return { member, effectiveRole: effectiveRoleOfUser(data, userId), isOwner: pond.ownerId === userId };
}

export interface ChangeContext {
  actor: User;
  ip: string | undefined;
}

/** Finds an account by exact username or e-mail, ignoring letter case. */
export async function findUserByLogin(login: string): Promise<User | null> {
  const needle = login.trim().toLowerCase();
  return User.findOne({
    where: {
      [Op.or]: [
        User.sequelize!.where(User.sequelize!.fn('lower', User.sequelize!.col('username')), needle),
        User.sequelize!.where(User.sequelize!.fn('lower', User.sequelize!.col('email')), needle),
      ],
    },
  });
}

export async function addMember(pondId: string, user: User, role: PondRole, context: ChangeContext): Promise<MemberState> {
  return Grant.sequelize!.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    const members = await loadMembers(pond.id, transaction);
    if (memberOf(members, user.id)) throw new ApiError('member_exists');
    await assertMembershipChange(pond, members, { userId: user.id, from: null, to: role }, transaction);
    await Grant.create(membershipGrant(pond.id, user.id, role, context.actor.id), { transaction });
    await announceAccessChange(pond.id, transaction);
    await recordAudit({ actor: auditActorOf(context.actor), action: 'member.added', details: { pondId: pond.id, userId: user.id, username: user.username, role }, ip: context.ip }, transaction);
    return memberState(pond, user.id, transaction);
  });
}

/** Replaces the member's pond-scope allow grants with exactly one of `role`. */
export async function changeMemberRole(pondId: string, userId: string, role: PondRole, context: ChangeContext): Promise<MemberState> {
  return Grant.sequelize!.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    const members = await loadMembers(pond.id, transaction);
    const member = memberOf(members, userId);
    if (!member) throw notFound();
    const grants = await Grant.findAll({ where: membershipGrantWhere(pond.id, userId), transaction });
    // Already exactly this one grant: nothing changes, nothing to announce or audit.
    if (grants.length === 1 && grants[0]!.role === role) return memberState(pond, userId, transaction);
    await assertMembershipChange(pond, members, { userId, from: member.grantedRole, to: role }, transaction);
    await Grant.destroy({ where: membershipGrantWhere(pond.id, userId), transaction });
    await Grant.create(membershipGrant(pond.id, userId, role, context.actor.id), { transaction });
    await announceAccessChange(pond.id, transaction);
    await recordAudit({ actor: auditActorOf(context.actor), action: 'member.role_changed', details: { pondId: pond.id, userId, from: member.grantedRole, to: role }, ip: context.ip }, transaction);
    return memberState(pond, userId, transaction);
  });
}

/**
 * Ends a membership: deletes the user's pond-scope allow grants. Label- and page-scope grants
 * and denies naming the user stay; they are access rules of their own.
 */
export async function removeMember(pondId: string, userId: string, context: ChangeContext): Promise<void> {
  await Grant.sequelize!.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    const members = await loadMembers(pond.id, transaction);
    const member = memberOf(members, userId);
    if (!member) throw notFound();
    await assertMembershipChange(pond, members, { userId, from: member.grantedRole, to: null }, transaction);
    await Grant.destroy({ where: membershipGrantWhere(pond.id, userId), transaction });
    await announceAccessChange(pond.id, transaction);
    await recordAudit({ actor: auditActorOf(context.actor), action: 'member.removed', details: { pondId: pond.id, userId, role: member.grantedRole }, ip: context.ip }, transaction);
  });
}
