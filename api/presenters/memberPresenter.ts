import type { MemberState, SeatUsage } from '../commands/membershipCommands.ts';
import type { PondRole } from '../models/index.ts';
import type { Member } from '../policies/membership.ts';

export interface MemberView {
  userId: string;
  username: string;
  displayName: string;
  /** The highest pond-scope allow grant the member holds. */
  grantedRole: PondRole;
  /** What that amounts to after denies and all-signed-in grants; null = no pond-level access. */
  effectiveRole: PondRole | null;
  isOwner: boolean;
}

export type MemberGroupRole = PondRole | 'none';

export interface MemberListView {
  groups: { role: MemberGroupRole; members: MemberView[] }[];
  seats: SeatUsage;
  /** The highest pond-scope allow role of the pseudo subjects, or null. */
  everyone: { signedIn: PondRole | null; public: PondRole | null };
  canManage: boolean;
}

const GROUP_ORDER: readonly MemberGroupRole[] = ['pond_admin', 'editor', 'reader', 'none'];

export function presentMember(state: MemberState): MemberView {
  return {
    userId: state.member.userId,
    username: state.member.username,
    displayName: state.member.displayName,
    grantedRole: state.member.grantedRole,
    effectiveRole: state.effectiveRole,
    isOwner: state.isOwner,
  };
}

function byDisplayName(a: MemberView, b: MemberView): number {
  return a.displayName.localeCompare(b.displayName, undefined, { sensitivity: 'base' }) || a.username.localeCompare(b.username);
}

/** All four groups, always present and in rank order, each sorted by display name. */
export function presentMemberList(input: {
  members: readonly Member[];
  effectiveRoleOf: (member: Member) => PondRole | null;
  ownerId: string | null;
  seats: SeatUsage;
  everyone: MemberListView['everyone'];
  canManage: boolean;
}): MemberListView {
  const views = input.members.map((member) =>
    presentMember({ member, effectiveRole: input.effectiveRoleOf(member), isOwner: member.userId === input.ownerId }),
  );
  return {
    groups: GROUP_ORDER.map((role) => ({
      role,
      members: views.filter((view) => (view.effectiveRole ?? 'none') === role).sort(byDisplayName),
    })),
    seats: input.seats,
    everyone: input.everyone,
    canManage: input.canManage,
  };
}
