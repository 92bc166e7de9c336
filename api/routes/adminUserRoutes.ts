/** Site Admin actions on accounts. Disabling ends every session of the account at once. */
import { z } from 'zod';
import { invalidateUserSessions } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type RouteContext } from '../http/routeTable.ts';
import { User } from '../models/index.ts';
import { presentUser } from '../presenters/userPresenter.ts';

const userIdParams = z.object({ id: z.uuid() });

async function setAccountEnabled(context: RouteContext<{ id: string }, unknown, unknown>, enabled: boolean) {
  const { req, params, actor, services } = context;
  const admin = actor!.user;
  const user = await services.sequelize.transaction(async (transaction) => {
    const target = await User.findByPk(params.id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!target) throw notFound();
    // Compared on the loaded row: the path id may differ from ours in letter case only.
    if (target.id === admin.id) throw new ApiError('cannot_modify_self');
    if (enabled && target.status === 'disabled') target.status = target.emailVerifiedAt ? 'ACTIVE' : 'unconfirmed';
    if (!enabled) {
      target.status = 'disabled';
      await invalidateUserSessions(target.id, transaction);
    }
    await target.save({ transaction });
    await recordAudit({ actor: auditActorOf(admin), action: enabled ? 'admin.user_enabled' : 'admin.user_disabled', details: { userId: target.id, username: target.username }, ip: req.ip }, transaction);
    return target;
  });
  return { body: presentUser(user) };
}

export const adminUserRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/admin/users/:id/disable',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: (context) => setAccountEnabled(context, false),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/users/:id/enable',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: (context) => setAccountEnabled(context, true),
  }),
];
