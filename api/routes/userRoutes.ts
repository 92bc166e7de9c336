/**
 * The signed-in user's own account and preferences.
 *
 * `POST /users/me/password` changes the password: the current one is checked (throttled like
 * sign-in, since it is a password guess as much as a login is), the new one follows the
 * signup rules, and every other session of the account ends while this one stays. These
 * routes live on the cookie-authenticated internal API only: no bearer token reaches them.
 */
import { z } from 'zod';
import { displayNameSchema, localeSchema, passwordSchema } from '../auth/accountSchemas.ts';
import { clearAccountAttempts, countAttemptFromAddress, countAttemptOnAccount } from '../auth/passwordAttemptThrottle.ts';
import { hashPassword, PASSWORD_MAX_LENGTH, verifyAgainstDummy, verifyPassword } from '../auth/passwords.ts';
import { invalidateUserSessions } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { User } from '../models/index.ts';
import { presentUser } from '../presenters/userPresenter.ts';

const profilePatch = z
  .strictObject({
    displayName: displayNameSchema.optional(),
    locale: localeSchema.nullable().optional(),
    digestFrequency: z.enum(['hourly', 'daily', 'off']).optional(),
    autoWatchOwnPages: z.boolean().optional(),
    autoWatchOnComment: z.boolean().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0);

const passwordChange = z.strictObject({
  currentPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  newPassword: passwordSchema,
});

export const userRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/users/me',
    access: { kind: 'session' },
    handler: async ({ actor }) => ({ body: presentUser(actor.user) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/users/me',
    access: { kind: 'session' },
    body: profilePatch,
    handler: async ({ actor, body }) => {
      const user = actor.user;
      user.set(Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)));
      await user.save();
      return { body: presentUser(user) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/users/me/password',
    access: { kind: 'session' },
    body: passwordChange,
    handler: async ({ req, actor, body, services }) => {
      const { sequelize, config } = services;
      const { user, session } = actor;
      await countAttemptFromAddress(sequelize, config.loginRateLimit, req.ip);
      const attemptKey = await countAttemptOnAccount(sequelize, config.loginRateLimit, req.ip, { userId: user.id });
      const storedHash = user.passwordHash;
      // An account without a password (external sign-in only) spends the same time and is refused alike.
      const matches = storedHash ? await verifyPassword(body.currentPassword, storedHash) : await verifyAgainstDummy(body.currentPassword, config.passwordHashCost);
      if (!matches) {
        await recordAudit({ actor: auditActorOf(user), action: 'auth.password_change_failed', ip: req.ip });
        throw new ApiError('current_password_wrong');
      }
      await clearAccountAttempts(sequelize, attemptKey);
      const newHash = await hashPassword(body.newPassword, config.passwordHashCost);
      await sequelize.transaction(async (transaction) => {
        // Only over the hash just checked: a reset or another change meanwhile is not overwritten.
        const [changed] = await User.update({ passwordHash: newHash }, { where: { id: user.id, passwordHash: storedHash }, transaction });
        if (changed === 0) throw new ApiError('current_password_wrong');
        await invalidateUserSessions(user.id, transaction, session?.id);
        await recordAudit({ actor: auditActorOf(user), action: 'auth.password_changed', ip: req.ip }, transaction);
      });
      return { status: 204 };
    },
  }),
];
