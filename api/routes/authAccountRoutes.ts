/**
 * Self-service account flows: signup, e-mail verification, password reset. Requests that
 * mail someone answer the same whether or not the address exists.
 */
import { fn, col, where } from 'sequelize';
import { z } from 'zod';
import { displayNameSchema, emailSchema, localeSchema, passwordSchema, usernameSchema } from '../auth/accountSchemas.ts';
import { consumeEmailToken, issueEmailToken } from '../auth/emailTokens.ts';
import { hashPassword } from '../auth/passwords.ts';
import { consumeRateLimit } from '../auth/rateLimiter.ts';
import { invalidateUserSessions } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { createAccount } from '../commands/accountCreator.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type RouteContext } from '../http/routeTable.ts';
import { isLocale } from '../i18n/locale.ts';
import { User, type EmailTokenPurpose } from '../models/index.ts';
import { presentUser } from '../presenters/userPresenter.ts';
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';

/** Mail-sending endpoints: generous for people, tight for scripts. */
const MAIL_RATE_LIMIT = { limit: 10, windowSeconds: 3600 };

async function linkBase(services: AppServices): Promise<string> {
  return (await getSetting('instance.baseUrl')) ?? services.config.baseUrl;
}

async function userLocale(user: User, context: RouteContext<unknown, unknown, unknown>) {
  return isLocale(user.locale) ? user.locale : context.locale();
}

async function findByEmail(email: string): Promise<User | null> {
  return User.findOne({ where: where(fn('lower', col('email')), email.toLowerCase()) });
}

async function sendVerificationMail(user: User, token: string, context: RouteContext<unknown, unknown, unknown>): Promise<void> {
  const link = `${await linkBase(context.services)}/verify-email?token=${encodeURIComponent(token)}`;
  const instanceName = await getSetting('instance.name');
  await context.services.mailer.send(user.email, { kind: 'verify_email', displayName: user.displayName, instanceName, link }, await userLocale(user, context));
}

type EmailRequestContext = RouteContext<unknown, unknown, { email: string }>;

/**
 * The account a mailed-link request is for, or null. Counts the request against the caller's
 * IP and the address first, so probing or mail-bombing is limited whether or not it exists.
 */
async function linkRecipient(context: EmailRequestContext, purpose: 'verify' | 'reset', eligible: (user: User) => boolean): Promise<User | null> {
  const { req, body, services } = context;
  await consumeRateLimit(services.sequelize, `mail:ip:${req.ip}`, MAIL_RATE_LIMIT);
  await consumeRateLimit(services.sequelize, `mail:${purpose}:${body.email}`, { limit: 5, windowSeconds: 3600 });
  const user = await findByEmail(body.email);
  return user && eligible(user) ? user : null;
}

async function issueAuditedLink(context: EmailRequestContext, user: User, purpose: EmailTokenPurpose, action: string): Promise<string> {
  return context.services.sequelize.transaction(async (transaction) => {
    await recordAudit({ actor: auditActorOf(user), action, ip: context.req.ip }, transaction);
    return issueEmailToken(user.id, purpose, transaction);
  });
}

export const authAccountRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/auth/signup',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema, displayName: displayNameSchema.optional(), locale: localeSchema.optional() }),
    handler: async (context) => {
      const { req, body, services } = context;
      if ((await getSetting('registration.mode')) !== 'open') throw new ApiError('registration_closed');
      await consumeRateLimit(services.sequelize, `signup:ip:${req.ip}`, MAIL_RATE_LIMIT);
      const { user, token } = await services.sequelize.transaction(async (transaction) => {
        const { user: created } = await createAccount(
          {
            username: body.username,
            email: body.email,
            password: body.password,
            displayName: body.displayName ?? body.username,
            locale: body.locale ?? null,
            status: 'unconfirmed',
            isSiteAdmin: false,
            emailVerified: false,
            passwordHashCost: services.config.passwordHashCost,
          },
          transaction,
        );
        await recordAudit({ actor: auditActorOf(created), action: 'auth.signup', details: { username: created.username, email: created.email }, ip: req.ip }, transaction);
        return { user: created, token: await issueEmailToken(created.id, 'verify_email', transaction) };
      });
      await sendVerificationMail(user, token, context);
      return { status: 201, body: { user: presentUser(user), verificationSent: true } };
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
        const token = await consumeEmailToken(body.token, 'verify_email', transaction);
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
    handler: async (context) => {
      const user = await linkRecipient(context, 'verify', (candidate) => candidate.status === 'unconfirmed');
      if (user) await sendVerificationMail(user, await issueAuditedLink(context, user, 'verify_email', 'auth.verification_resent'), context);
      return { status: 202, body: {} };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/auth/forgot-password',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ email: emailSchema }),
    handler: async (context) => {
      const user = await linkRecipient(context, 'reset', (candidate) => candidate.status !== 'disabled');
      if (user) {
        const token = await issueAuditedLink(context, user, 'reset_password', 'auth.password_reset_requested');
        const link = `${await linkBase(context.services)}/reset-password?token=${encodeURIComponent(token)}`;
        const instanceName = await getSetting('instance.name');
        await context.services.mailer.send(user.email, { kind: 'reset_password', displayName: user.displayName, instanceName, link }, await userLocale(user, context));
      }
      return { status: 202, body: {} };
    },
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
        const token = await consumeEmailToken(body.token, 'reset_password', transaction);
        const user = await User.findByPk(token.userId, { transaction, lock: transaction.LOCK.UPDATE });
        if (!user) throw new ApiError('token_invalid');
        user.passwordHash = passwordHash;
        // The link proves control of the mailbox, just as the verification link would.
        if (user.status === 'unconfirmed') user.status = 'ACTIVE';
        user.emailVerifiedAt ??= new Date();
        await user.save({ transaction });
        await invalidateUserSessions(user.id, transaction);
        await recordAudit({ actor: auditActorOf(user), action: 'auth.password_reset', ip: req.ip }, transaction);
      });
      return { body: { reset: true } };
    },
  }),
];
