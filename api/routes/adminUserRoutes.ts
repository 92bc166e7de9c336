/**
 * Site Admin actions on accounts. Nobody acts on their own account (`cannot_modify_self`);
 * every action is audited.
 *
 * - `POST /admin/users/:id/disable`, `/enable` → 200 with the account (`presentUser`).
 *   Disabling ends every session at once.
 * - `POST /admin/users/:id/confirm` → 200 with the account: the Site Admin vouches for the
 *   address, which counts as verified, and an unconfirmed account becomes ACTIVE (a disabled
 *   one stays disabled). For an instance without mail, or a mail that never arrives. An
 *   account whose address is verified already answers 409 `account_already_confirmed`
 *   (nothing changed, nothing audited).
 * - `POST /admin/users/:id/reset-link` → 201 `{ link, expiresAt }`: a one-time password-reset
 *   link, valid 1 hour, for the Site Admin to hand over (on an instance without mail the only
 *   way back into an account). It is answered only to the admin: never mailed, logged or
 *   stored in clear (the token row keeps its SHA-256). A newer link retires the older one.
 */
import type { Transaction } from 'sequelize';
import { z } from 'zod';
import { issueEmailToken, retireEmailTokens } from '../auth/emailTokens.ts';
import { invalidateUserSessions } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type SignedInRouteContext } from '../http/routeTable.ts';
import { accountLink } from '../mail/accountMail.ts';
import { User } from '../models/index.ts';
import { presentUser } from '../presenters/userPresenter.ts';

const userIdParams = z.object({ id: z.uuid() });

type UserActionContext = SignedInRouteContext<{ id: string }>;

/** The target account, locked for the action; 404 when unknown, 409 when it is the caller's own. */
async function lockTarget(context: UserActionContext, transaction: Transaction): Promise<User> {
  const target = await User.findByPk(context.params.id, { transaction, lock: transaction.LOCK.UPDATE });
  if (!target) throw notFound();
  // Compared on the loaded row: the path id may differ from ours in letter case only.
  if (target.id === context.actor.user.id) throw new ApiError('cannot_modify_self');
  return target;
}

async function setAccountEnabled(context: UserActionContext, enabled: boolean) {
  const { req, actor, services } = context;
  // Without mail an unverified account could never confirm itself, so it is ACTIVE, as at signup.
  const mailConfigured = await services.mailer.isConfigured();
  const user = await services.sequelize.transaction(async (transaction) => {
    const target = await lockTarget(context, transaction);
    if (enabled && target.status === 'disabled') target.status = target.emailVerifiedAt || !mailConfigured ? 'ACTIVE' : 'unconfirmed';
    if (!enabled) {
      target.status = 'disabled';
      await invalidateUserSessions(target.id, transaction);
    }
    await target.save({ transaction });
    await recordAudit({ actor: auditActorOf(actor.user), action: enabled ? 'admin.user_enabled' : 'admin.user_disabled', details: { userId: target.id, username: target.username }, ip: req.ip }, transaction);
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
  defineRoute({
    method: 'post',
    path: '/admin/users/:id/confirm',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: async (context) => {
      const { req, actor, services } = context;
      const user = await services.sequelize.transaction(async (transaction) => {
        const target = await lockTarget(context, transaction);
        if (target.emailVerifiedAt !== null && target.status !== 'unconfirmed') throw new ApiError('account_already_confirmed');
        target.emailVerifiedAt ??= new Date();
        if (target.status === 'unconfirmed') target.status = 'ACTIVE';
        await target.save({ transaction });
        // A verification link still out there has nothing left to do.
        await retireEmailTokens(target.id, ['verify_email'], transaction);
        await recordAudit({ actor: auditActorOf(actor.user), action: 'admin.user_confirmed', details: { userId: target.id, username: target.username }, ip: req.ip }, transaction);
        return target;
      });
      return { body: presentUser(user) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/users/:id/reset-link',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: async (context) => {
      const { req, res, actor, services } = context;
      const issued = await services.sequelize.transaction(async (transaction) => {
        const target = await lockTarget(context, transaction);
        const { token, expiresAt } = await issueEmailToken(target.id, 'admin_reset_password', transaction);
        await recordAudit(
          { actor: auditActorOf(actor.user), action: 'admin.user_reset_link_created', details: { userId: target.id, username: target.username, expiresAt: expiresAt.toISOString() }, ip: req.ip },
          transaction,
        );
        return { token, expiresAt };
      });
      // The link is a credential: no cache may keep this answer.
      res.setHeader('Cache-Control', 'no-store');
      return { status: 201, body: { link: await accountLink('admin_reset_password', issued.token, services.config.baseUrl), expiresAt: issued.expiresAt.toISOString() } };
    },
  }),
];
