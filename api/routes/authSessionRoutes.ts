/**
 * Sign in, sign out, and "who am I". Login takes a username or an e-mail address; unknown
 * accounts and wrong passwords get the same answer in the same time.
 *
 * Throttling (api/auth/passwordAttemptThrottle.ts, shared with the password change): every
 * attempt is counted per client address and per (account, address) before the password is
 * checked. An attacker's failures lock out only the attacker's address: the owner still
 * signs in from theirs.
 */
import { Op, fn, col, where } from 'sequelize';
import { z } from 'zod';
import { isSecureRequest } from '../auth/authenticateRequest.ts';
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from '../auth/passwords.ts';
import { clearAccountAttempts, countAttemptFromAddress, countAttemptOnAccount } from '../auth/passwordAttemptThrottle.ts';
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
      const { sequelize, config } = services;
      const login = body.login.toLowerCase();
      await countAttemptFromAddress(sequelize, config.loginRateLimit, req.ip);
      const user = await User.findOne({
        where: { [Op.or]: [where(fn('lower', col('username')), login), where(fn('lower', col('email')), login)] },
      });
      const accountKey = await countAttemptOnAccount(sequelize, config.loginRateLimit, req.ip, user ? { userId: user.id } : { unknownLogin: login });

      const passwordMatches = user?.passwordHash
        ? await verifyPassword(body.password, user.passwordHash)
        : await verifyAgainstDummy(body.password, config.passwordHashCost);
      if (!user || !passwordMatches) {
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
      await clearAccountAttempts(sequelize, accountKey);
      // The only moment the password is at hand: a hash made with a lower cost is replaced now.
      const verifiedHash = user.passwordHash;
      const upgradedHash = verifiedHash && needsRehash(verifiedHash, config.passwordHashCost) ? await hashPassword(body.password, config.passwordHashCost) : null;
      // A new sign-in always gets a new session; the previous one of this browser ends.
      if (actor?.session) await invalidateSession(actor.session.id);
      const session = await sequelize.transaction(async (transaction) => {
        user.lastLoginAt = new Date();
        await user.save({ transaction });
        // Only over the hash just verified: a password reset meanwhile must not be undone.
        if (upgradedHash) await User.update({ passwordHash: upgradedHash }, { where: { id: user.id, passwordHash: verifiedHash }, transaction });
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
        if (actor.session) await invalidateSession(actor.session.id);
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
      return { body: { user: actor ? presentUser(actor.user) : null, expiresAt: actor?.session ? actor.session.expiresAt.toISOString() : null } };
    },
  }),
];
