/**
 * Pond members (spec: Members and access): the list with seat usage, and adding, re-roling and
 * removing members. Membership is a user's pond-scope allow grant; the commands keep the
 * owner, last-admin, personal-pond and seat rules under the per-pond lock.
 */
import { z } from 'zod';
import { addMember, changeMemberRole, findUserByLogin, loadMembers, removeMember, seatUsage, type ChangeContext } from '../commands/membershipCommands.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type SignedInRouteContext } from '../http/routeTable.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { effectiveRoleOfUser, everyoneRoles } from '../policies/membership.ts';
import { presentMember, presentMemberList } from '../presenters/memberPresenter.ts';

const ROLE = z.enum(['pond_admin', 'editor', 'reader']);

const addMemberBody = z.object({
  /** Exact username or e-mail address. */
  user: z.string().trim().min(1).max(320),
  role: ROLE,
});

const changeRoleBody = z.object({ role: ROLE });

interface MemberParams {
  id: string;
  userId: string;
}

function changeContext(context: SignedInRouteContext): ChangeContext {
  return { actor: context.actor.user, ip: context.req.ip };
}

/** A malformed user id names nobody: 404 like an unknown one. */
function memberIdOf(params: MemberParams): string {
  if (!isUuid(params.userId)) throw notFound();
  return params.userId.toLowerCase();
}

export const memberRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:id/members',
    // Who works in a pond is the members' business: everyone else, public readers included, gets 404.
    access: { kind: 'pond', capability: 'member', session: true },
    handler: async ({ resource }) => {
      const pond = resource.pond;
      const members = await loadMembers(pond.id);
      // The access data the access rule just loaded for the caller: the whole pond's grants.
      const data = resource.access.data;
      return {
        body: presentMemberList({
          members,
          effectiveRoleOf: (member) => effectiveRoleOfUser(data, member.userId),
          ownerId: pond.ownerId,
          seats: await seatUsage(pond, members),
          everyone: everyoneRoles(data),
          canManage: resource.access.pond('admin').allowed,
        }),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:id/members',
    access: { kind: 'pond', capability: 'admin' },
    body: addMemberBody,
    handler: async (context) => {
      const user = await findUserByLogin(context.body.user);
      if (!user) throw new ApiError('user_not_found');
      const state = await addMember(context.resource.pond.id, user, context.body.role, changeContext(context));
      return { status: 201, body: presentMember(state) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/ponds/:id/members/:userId',
    access: { kind: 'pond', capability: 'admin' },
    body: changeRoleBody,
    handler: async (context) => {
      const userId = memberIdOf(context.params);
      const state = await changeMemberRole(context.resource.pond.id, userId, context.body.role, changeContext(context));
      return { body: presentMember(state) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/ponds/:id/members/:userId',
    access: { kind: 'pond', capability: 'admin' },
    handler: async (context) => {
      await removeMember(context.resource.pond.id, memberIdOf(context.params), changeContext(context));
      return { status: 204 };
    },
  }),
];
