/**
 * Site Admin actions on accounts. Nobody acts on their own account (`cannot_modify_self`);
 * every action is audited.
 *
 * - `POST /admin/users/:id/disable`, `/enable` → 200 with the account (`presentUser`).
 *   Disabling ends every session at once; it refuses `last_site_admin` when no other ACTIVE
 *   Site Admin would remain.
 * - `POST /admin/users/:id/confirm` → 200 with the account: the Site Admin vouches for the
 *   address, which counts as verified, and an unconfirmed account becomes ACTIVE (a disabled
 *   one stays disabled). For an instance without mail, or a mail that never arrives. An
 *   account whose address is verified already answers 409 `account_already_confirmed`
 *   (nothing changed, nothing audited).
 * - `POST /admin/users/:id/reset-link` → 201 `{ link, expiresAt }`: a one-time password-reset
 *   link, valid 1 hour, for the Site Admin to hand over (on an instance without mail the only
 *   way back into an account). It is answered only to the admin: never mailed, logged or
 *   stored in clear (the token row keeps its SHA-256). A newer link retires the older one.
 * - `POST /admin/users/:id/resend-verification` → 202 `{ mailConfigured }`: queues the
 *   verification mail as the self-service resend does (a job, api/mail/accountMail.ts). With
 *   `mailConfigured: false` nothing was or will be sent (confirm the account instead). A
 *   verified address answers 409 `account_already_confirmed`, a disabled account 403
 *   `account_disabled` as at sign-in (enable it first); neither queues anything.
 * - `PUT` / `DELETE /admin/users/:id/site-admin` → 200 with the account: grant or revoke Site
 *   Admin. Idempotent (no change, no audit entry). Revoking refuses `last_site_admin` when no
 *   other ACTIVE Site Admin would remain.
 * - `DELETE /admin/users/:id` → 204: scrubs the account, ends its sessions (its collab sockets
 *   close), removes its grants, trashes its personal pond (api/commands/accountDeletion.ts).
 *   409 `user_owns_ponds` (`details.ponds`: slugs) while it owns shared ponds,
 *   `last_site_admin` for the last ACTIVE Site Admin.
 * - `GET /admin/users?q=&status=&limit=&cursor=` → `{ items, nextCursor }`, see
 *   api/users/accountListing.ts; items as `presentAccountListItem`.
 *
 * A deleted account answers 404 to every action: it is gone, nothing may revive it.
 */
import type { Transaction } from 'sequelize';
import { z } from 'zod';
import { displayNameSchema, emailSchema, usernameSchema } from '../auth/accountSchemas.ts';
import { issueEmailToken, retireEmailTokens } from '../auth/emailTokens.ts';
import { invalidateUserSessions } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { createAccount } from '../commands/accountCreator.ts';
import { deleteAccount } from '../commands/accountDeletion.ts';
import { lockManagedAccount, lockSiteAdmins, setSiteAdmin, type AdminActor } from '../commands/managedAccounts.ts';
import { accountListCursor } from '../http/cursorCodec.ts';
import { storableString } from '../http/fieldSchemas.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type SignedInRouteContext } from '../http/routeTable.ts';
import { accountLink, enqueueAccountMail } from '../mail/accountMail.ts';
import { User } from '../models/index.ts';
import { countListedPonds } from '../policies/membership.ts';
import { presentAccountListItem, presentUser } from '../presenters/userPresenter.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { DEFAULT_ACCOUNT_LIST_LIMIT, listAccounts, MAX_ACCOUNT_LIST_LIMIT } from '../users/accountListing.ts';

const userIdParams = z.object({ id: z.uuid() });

type UserActionContext = SignedInRouteContext<{ id: string }>;

const listQuery = z.object({
  q: storableString().trim().max(254).optional(),
  status: z.enum(['unconfirmed', 'ACTIVE', 'disabled', 'deleted']).optional(),
  siteAdmin: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ACCOUNT_LIST_LIMIT).default(DEFAULT_ACCOUNT_LIST_LIMIT),
  cursor: accountListCursor.field,
});

const createBody = z.object({ username: usernameSchema, email: emailSchema, displayName: displayNameSchema.optional(), siteAdmin: z.boolean().optional() });

/** A set-password link is handed over by hand, maybe the next morning: it lives a day, not the reset link's hour. */
const CREATED_ACCOUNT_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

function adminActorOf(context: UserActionContext): AdminActor {
  return { user: context.actor.user, ip: context.req.ip };
}

/** The target account, locked for the action; 404 when unknown or deleted, 409 when it is the caller's own. */
function lockTarget(context: UserActionContext, transaction: Transaction): Promise<User> {
  return lockManagedAccount(context.params.id, adminActorOf(context), transaction);
}

async function setAccountEnabled(context: UserActionContext, enabled: boolean) {
  const { req, actor, services } = context;
  // Without mail an unverified account could never confirm itself, so it is ACTIVE, as at signup.
  const mailConfigured = await services.mailer.isConfigured();
  const user = await services.sequelize.transaction(async (transaction) => {
    // A disabled Site Admin can no longer act: disabling counts as removing one.
    const siteAdmins = enabled ? null : await lockSiteAdmins(transaction);
    const target = await lockTarget(context, transaction);
    if (target.isSiteAdmin) siteAdmins?.assertRemainsWithout(target.id);
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
  defineRoute({
    method: 'post',
    path: '/admin/users/:id/resend-verification',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: async (context) => {
      const { req, actor, services } = context;
      const mailConfigured = await services.mailer.isConfigured();
      await services.sequelize.transaction(async (transaction) => {
        const target = await lockTarget(context, transaction);
        if (target.emailVerifiedAt !== null) throw new ApiError('account_already_confirmed');
        // The job would drop it (a disabled account gets no links): say so instead of "queued".
        if (target.status === 'disabled') throw new ApiError('account_disabled');
        if (!mailConfigured) return;
        const locale = target.locale ?? (await getSetting('instance.defaultLocale'));
        await enqueueAccountMail(services.sequelize, { userId: target.id, purpose: 'verify_email', locale }, transaction);
        await recordAudit({ actor: auditActorOf(actor.user), action: 'admin.user_verification_resent', details: { userId: target.id, username: target.username }, ip: req.ip }, transaction);
      });
      return { status: 202, body: { mailConfigured } };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/admin/users/:id/site-admin',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: async (context) => {
      const user = await context.services.sequelize.transaction((transaction) => setSiteAdmin(context.params.id, true, adminActorOf(context), transaction));
      return { body: presentUser(user) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/users/:id/site-admin',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: async (context) => {
      const user = await context.services.sequelize.transaction((transaction) => setSiteAdmin(context.params.id, false, adminActorOf(context), transaction));
      return { body: presentUser(user) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/users/:id',
    access: { kind: 'siteAdmin' },
    params: userIdParams,
    handler: async (context) => {
      await context.services.sequelize.transaction((transaction) => deleteAccount(context.params.id, adminActorOf(context), transaction));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/admin/users',
    access: { kind: 'siteAdmin' },
    query: listQuery,
    handler: async ({ query, services, locale }) => {
      const siteAdmin = query.siteAdmin === undefined ? undefined : query.siteAdmin === 'true';
      const page = await listAccounts({ q: query.q || undefined, status: query.status, siteAdmin, limit: query.limit, cursor: query.cursor });
      const pondCounts = await countListedPonds(services.sequelize, page.users.map((user) => user.id));
      const language = await locale();
      return {
        body: {
          items: page.users.map((user) => presentAccountListItem(user, pondCounts.get(user.id) ?? 0, language)),
          nextCursor: page.next ? accountListCursor.encode(page.next) : null,
        },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/users',
    access: { kind: 'siteAdmin' },
    body: createBody,
    handler: async ({ req, res, body, actor, services }) => {
      const created = await services.sequelize.transaction(async (transaction) => {
        const { user } = await createAccount(
          {
            username: body.username,
            email: body.email,
            password: null,
            displayName: body.displayName ?? body.username,
            locale: null,
            status: 'ACTIVE',
            isSiteAdmin: body.siteAdmin ?? false,
            emailVerified: true,
            passwordHashCost: services.config.passwordHashCost,
          },
          transaction,
        );
        const { token, expiresAt } = await issueEmailToken(user.id, 'admin_reset_password', transaction, { lifetimeMs: CREATED_ACCOUNT_LINK_LIFETIME_MS });
        // The link is a credential: the entry names the account, never the link.
        await recordAudit(
          { actor: auditActorOf(actor.user), action: 'admin.user_created', details: { userId: user.id, username: user.username, siteAdmin: user.isSiteAdmin }, ip: req.ip },
          transaction,
        );
        return { user, token, expiresAt };
      });
      res.setHeader('Cache-Control', 'no-store');
      const link = await accountLink('admin_reset_password', created.token, services.config.baseUrl);
      return { status: 201, body: { user: presentUser(created.user), link, expiresAt: created.expiresAt.toISOString() } };
    },
  }),
];
