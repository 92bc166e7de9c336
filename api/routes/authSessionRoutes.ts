/**
 * Sign in, sign out, and "who am I". Login takes a username or an e-mail address; unknown
 * accounts and wrong passwords get the same answer in the same time.
 */
import { Op, fn, col, where } from 'sequelize';
import { z } from 'zod';
import { isSecureRequest } from '../auth/authenticateRequest.ts';
import { verifyAgainstDummy, verifyPassword } from '../auth/passwords.ts';
import { assertUnderRateLimit, consumeRateLimit, resetRateLimit } from '../auth/rateLimiter.ts';
import { clearSessionCookie, createSession, invalidateSession, setSessionCookie } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { User } from '../models/index.ts';
import { presentUser } from '../presenters/userPresenter.ts';

export const authSessionRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/auth/login',
    access: { kind: 'public' },
    setupExempt: true,
    body: z.object({ login: z.string().trim().min(1).max(254), password: z.string().min(1).max(1024) }),
    handler: async ({ req, res, body, actor, services }) => {
      const { perAccount, perIp, windowSeconds } = services.config.loginRateLimit;
      const login = body.login.toLowerCase();
      await consumeRateLimit(services.sequelize, `login:ip:${req.ip}`, { limit: perIp, windowSeconds });
      const user = await User.findOne({
        where: { [Op.or]: [where(fn('lower', col('username')), login), where(fn('lower', col('email')), login)] },
      });
      // Keyed on the account, not on what was typed: username and e-mail share one budget.
      const accountKey = user ? `login:account:${user.id}` : `login:unknown:${login}`;
      await assertUnderRateLimit(services.sequelize, accountKey, { limit: perAccount, windowSeconds });

      const passwordMatches = user?.passwordHash
        ? await verifyPassword(body.password, user.passwordHash)
        : await verifyAgainstDummy(body.password, services.config.passwordHashCost);
      if (!user || !passwordMatches) {
        await consumeRateLimit(services.sequelize, accountKey, { limit: Number.MAX_SAFE_INTEGER, windowSeconds });
        await recordAudit({ actor: user ? auditActorOf(user) : null, action: 'auth.login_failed', details: { login, reason: 'invalid_credentials' }, ip: req.ip });
        throw new ApiError('invalid_credentials');
      }
      if (user.status === 'disabled') {
        await recordAudit({ actor: auditActorOf(user), action: 'auth.login_failed', details: { login, reason: 'account_disabled' }, ip: req.ip });
        throw new ApiError('account_disabled');
      }
      if (user.status === 'unconfirmed') {
        await recordAudit({ actor: auditActorOf(user), action: 'auth.login_failed', details: { login, reason: 'email_unverified' }, ip: req.ip });
        throw new ApiError('email_unverified');
      }
      await resetRateLimit(services.sequelize, accountKey);
      // A new sign-in always gets a new session; the previous one of this browser ends.
      if (actor) await invalidateSession(actor.session.id);
      const session = await services.sequelize.transaction(async (transaction) => {
        user.lastLoginAt = new Date();
        await user.save({ transaction });
        await recordAudit({ actor: auditActorOf(user), action: 'auth.login', details: { method: 'password' }, ip: req.ip }, transaction);
        return createSession(user.id, { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, policy: { ttlDays: services.config.sessionTtlDays } }, transaction);
      });
      setSessionCookie(res, session.token, session.session.expiresAt, isSecureRequest(req, services));
      return { body: { user: presentUser(user) } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/auth/logout',
    access: { kind: 'public' },
    setupExempt: true,
    handler: async ({ req, res, actor, services }) => {
      if (actor) {
        await invalidateSession(actor.session.id);
        await recordAudit({ actor: auditActorOf(actor.user), action: 'auth.logout', ip: req.ip });
      }
      clearSessionCookie(res, isSecureRequest(req, services));
      return { status: 204 };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/auth/session',
    access: { kind: 'public' },
    setupExempt: true,
    handler: async ({ actor, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      return { body: { user: actor ? presentUser(actor.user) : null, expiresAt: actor ? actor.session.expiresAt.toISOString() : null } };
    },
  }),
];
