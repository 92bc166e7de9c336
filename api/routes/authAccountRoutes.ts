/**
 * Self-service account flows: signup, e-mail verification, password reset.
 *
 * Mail goes out through a job enqueued in the transaction that changes the account
 * (api/mail/accountMail.ts); no request waits for SMTP. Whether the instance can send mail at
 * all (a relay saved by setup, or the `SMTP_*` fallback) decides what signup does:
 *
 * - with mail, a new account is `unconfirmed` and gets a verification link;
 * - without, it is `ACTIVE` at once (address unverified) and signed in, since no link could
 *   ever reach it.
 *
 * Answers (the browser client shows exactly what happened from them):
 *
 * - `POST /auth/signup` → 201 `{ user, mailConfigured, signedIn }`. `mailConfigured: true`:
 *   the account is unconfirmed and a verification mail is queued (`signedIn: false`).
 *   `mailConfigured: false`: no mail was or will be sent, the account is ACTIVE with
 *   `emailVerified: false`, and the response set the session cookie (`signedIn: true`).
 * - `POST /auth/resend-verification`, `POST /auth/forgot-password` → 202 `{ mailConfigured }`.
 *   The answer is the same whether or not the address has an account (or one the link is for):
 *   `mailConfigured` is the instance's state, not the account's. With `false` nothing was
 *   sent; the user has to ask a Site Admin (confirm: `POST /admin/users/:id/confirm`, reset
 *   link: `POST /admin/users/:id/reset-link`).
 */
import { fn, col, where } from 'sequelize';
import { z } from 'zod';
import { displayNameSchema, emailSchema, localeSchema, passwordSchema, usernameSchema } from '../auth/accountSchemas.ts';
import { isSecureRequest } from '../auth/authenticateRequest.ts';
import { consumeEmailToken, retireEmailTokens } from '../auth/emailTokens.ts';
import { hashPassword } from '../auth/passwords.ts';
import { consumeRateLimit, rateLimitAddress } from '../auth/rateLimiter.ts';
import { createSession, invalidateSession, invalidateUserSessions, setSessionCookie } from '../auth/sessions.ts';
import type { AuditAction } from '../audit/auditActions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { createAccount } from '../commands/accountCreator.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type RouteContext } from '../http/routeTable.ts';
import { enqueueAccountMail, type AccountMailPurpose } from '../mail/accountMail.ts';
import { User } from '../models/index.ts';
import { presentUser } from '../presenters/userPresenter.ts';
import { getSetting } from '../settings/instanceSettings.ts';

/** Mail-sending endpoints: generous for people, tight for scripts. */
const MAIL_RATE_LIMIT = { limit: 10, windowSeconds: 3600 };

async function findByEmail(email: string): Promise<User | null> {
  return User.findOne({ where: where(fn('lower', col('email')), email.toLowerCase()) });
}

type EmailRequestContext = RouteContext<unknown, unknown, { email: string }>;

interface LinkRequest {
  purpose: AccountMailPurpose;
  /** Whether the account may get this link at all (checked again when the job runs). */
  eligible: (user: User) => boolean;
  auditAction: AuditAction;
}

const VERIFICATION_REQUEST: LinkRequest = {
  purpose: 'verify_email',
  // Also an account that signed up while the instance had no mail: it may confirm its address later.
  eligible: (user) => user.status !== 'disabled' && user.emailVerifiedAt === null,
  auditAction: 'auth.verification_resent',
};

const RESET_REQUEST: LinkRequest = {
  purpose: 'reset_password',
  eligible: (user) => user.status !== 'disabled',
  auditAction: 'auth.password_reset_requested',
};

/**
 * Queues a mailed link for the address's account, if it has one that may get it. Counts the
 * request against the caller's address and the e-mail first, so probing or mail-bombing is
 * limited whether or not the account exists. The answer never depends on the account.
 */
async function requestMailedLink(context: EmailRequestContext, request: LinkRequest) {
  const { req, body, services } = context;
  await consumeRateLimit(services.sequelize, `mail:ip:${rateLimitAddress(req.ip)}`, MAIL_RATE_LIMIT);
  await consumeRateLimit(services.sequelize, `mail:${request.purpose}:${body.email.toLowerCase()}`, { limit: 5, windowSeconds: 3600 });
  const mailConfigured = await services.mailer.isConfigured();
  if (mailConfigured) {
    const user = await findByEmail(body.email);
    if (user && request.eligible(user)) {
      const locale = await context.locale();
      await services.sequelize.transaction(async (transaction) => {
        await recordAudit({ actor: auditActorOf(user), action: request.auditAction, ip: req.ip }, transaction);
        await enqueueAccountMail(services.sequelize, { userId: user.id, purpose: request.purpose, locale }, transaction);
      });
    }
  }
  return { status: 202, body: { mailConfigured } };
}

export const authAccountRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/auth/signup',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema, displayName: displayNameSchema.optional(), locale: localeSchema.optional() }),
    handler: async (context) => {
      const { req, res, body, actor, services } = context;
      if ((await getSetting('registration.mode')) !== 'open') throw new ApiError('registration_closed');
      await consumeRateLimit(services.sequelize, `signup:ip:${rateLimitAddress(req.ip)}`, MAIL_RATE_LIMIT);
      const mailConfigured = await services.mailer.isConfigured();
      const locale = body.locale ?? (await context.locale());
      const { user, session } = await services.sequelize.transaction(async (transaction) => {
        const { user: created } = await createAccount(
          {
            username: body.username,
            email: body.email,
            password: body.password,
            displayName: body.displayName ?? body.username,
            locale: body.locale ?? null,
            status: mailConfigured ? 'unconfirmed' : 'ACTIVE',
            isSiteAdmin: false,
            emailVerified: false,
            passwordHashCost: services.config.passwordHashCost,
          },
          transaction,
        );
        await recordAudit(
          { actor: auditActorOf(created), action: 'auth.signup', details: { username: created.username, email: created.email, mailConfigured }, ip: req.ip },
          transaction,
        );
        if (mailConfigured) {
          await enqueueAccountMail(services.sequelize, { userId: created.id, purpose: 'verify_email', locale }, transaction);
          return { user: created, session: null };
        }
        const opened = await createSession(created.id, { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, policy: { ttlDays: services.config.sessionTtlDays } }, transaction);
        return { user: created, session: opened };
      });
      if (session) {
        // As at login: a new sign-in gets a new session; the one this browser had ends.
        if (actor?.session) await invalidateSession(actor.session.id);
        setSessionCookie(res, session.token, session.session.expiresAt, isSecureRequest(req, services));
      }
      return { status: 201, body: { user: presentUser(user), mailConfigured, signedIn: session !== null } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/auth/verify-email',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ token: z.string().min(1).max(200) }),
    handler: async ({ req, body, services }) => {
      await services.sequelize.transaction(async (transaction) => {
        const token = await consumeEmailToken(body.token, ['verify_email'], transaction);
        const user = await User.findByPk(token.userId, { transaction, lock: transaction.LOCK.UPDATE });
        if (!user) throw new ApiError('token_invalid');
        user.emailVerifiedAt = new Date();
        if (user.status === 'unconfirmed') user.status = 'ACTIVE';
        await user.save({ transaction });
        await recordAudit({ actor: auditActorOf(user), action: 'auth.email_verified', details: { email: user.email }, ip: req.ip }, transaction);
      });
      return { body: { verified: true } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/auth/resend-verification',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ email: emailSchema }),
    handler: (context) => requestMailedLink(context, VERIFICATION_REQUEST),
  }),

  defineRoute({
    method: 'post',
    path: '/auth/forgot-password',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ email: emailSchema }),
    handler: (context) => requestMailedLink(context, RESET_REQUEST),
  }),

  defineRoute({
    method: 'post',
    path: '/auth/reset-password',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ token: z.string().min(1).max(200), password: passwordSchema }),
    handler: async ({ req, body, services }) => {
      const passwordHash = await hashPassword(body.password, services.config.passwordHashCost);
      await services.sequelize.transaction(async (transaction) => {
        const token = await consumeEmailToken(body.token, ['reset_password', 'admin_reset_password'], transaction);
        const user = await User.findByPk(token.userId, { transaction, lock: transaction.LOCK.UPDATE });
        if (!user) throw new ApiError('token_invalid');
        user.passwordHash = passwordHash;
        // A Site Admin handed this link over (or mailed it): the account may be used now.
        if (user.status === 'unconfirmed') user.status = 'ACTIVE';
        // Only a mailed link proves control of the mailbox, as the verification link would.
        if (token.purpose === 'reset_password') user.emailVerifiedAt ??= new Date();
        await user.save({ transaction });
        // Any other reset link still out there (mailed or handed over) dies with this reset.
        await retireEmailTokens(user.id, ['reset_password', 'admin_reset_password'], transaction);
        await invalidateUserSessions(user.id, transaction);
        await recordAudit({ actor: auditActorOf(user), action: 'auth.password_reset', details: { via: token.purpose === 'reset_password' ? 'mail' : 'admin_link' }, ip: req.ip }, transaction);
      });
      return { body: { reset: true } };
    },
  }),
];
