/**
 * The first-run setup wizard: admin → instance → SMTP (optional: saved, or skipped with
 * `POST /setup/smtp/skip`) → registration → complete.
 * Every step after the admin needs the setup admin's session; every step answers 410 once
 * setup is complete, and every step is audit-logged.
 */
import { z } from 'zod';
import { displayNameSchema, emailSchema, passwordSchema, usernameSchema } from '../auth/accountSchemas.ts';
import { isSecureRequest } from '../auth/authenticateRequest.ts';
import { createSession, setSessionCookie } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { createAccount } from '../commands/accountCreator.ts';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { smtpHostField } from '../mail/smtpHost.ts';
import { presentUser } from '../presenters/userPresenter.ts';
import { siteSettingsChanged } from '../publicPages/siteDocumentInvalidation.ts';
import { getSetting, setSetting } from '../settings/instanceSettings.ts';
import { assertSetupPending, readSetupState } from '../setup/setupState.ts';

/** Serializes concurrent `POST /setup/admin` calls: only one Site Admin is created. */
const SETUP_ADMIN_LOCK_KEY = 0x6474_7361;

const smtpBody = z.object({
  // Checked here, not by the resolver: what fails this never reaches the network (smtpHost.ts).
  host: smtpHostField(),
  port: z.number().int().min(1).max(65535),
  secure: z.boolean(),
  username: z.string().max(255).optional(),
  password: z.string().max(1024).optional(),
  from: z.string().trim().min(3).max(255),
  testRecipient: z.string().trim().pipe(z.email()),
});

/**
 * Parsed in the handler, after the pending check: once setup is complete the step answers
 * 410 whatever the body (the route wrapper would otherwise answer 400 first).
 */
const setupAdminBody = z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema, displayName: displayNameSchema });

export const setupRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/setup',
    access: { kind: 'public' },
    setupExempt: true,
    handler: async ({ services }) => ({ body: await readSetupState(services.sequelize, services.config.smtpFallback !== null) }),
  }),

  defineRoute({
    method: 'post',
    path: '/setup/admin',
    access: { kind: 'public' },
    setupExempt: true,
    precondition: assertSetupPending,
    body: setupAdminBody,
    handler: async ({ req, res, body, services }) => {
      const { user, token, expiresAt } = await services.sequelize.transaction(async (transaction) => {
        await services.sequelize.query('SELECT pg_advisory_xact_lock(:key)', { replacements: { key: SETUP_ADMIN_LOCK_KEY }, transaction });
        if ((await getSetting('setup.adminId', transaction)) !== null) throw new ApiError('setup_admin_exists');
        const { user: created } = await createAccount(
          { ...body, locale: null, status: 'ACTIVE', isSiteAdmin: true, emailVerified: true, passwordHashCost: services.config.passwordHashCost },
          transaction,
        );
        await setSetting('setup.adminId', created.id, { actorId: created.id, transaction });
        const session = await createSession(created.id, { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, policy: { ttlDays: services.config.sessionTtlDays } }, transaction);
        await recordAudit({ actor: auditActorOf(created), action: 'setup.admin_created', details: { username: created.username, email: created.email }, ip: req.ip }, transaction);
        return { user: created, token: session.token, expiresAt: session.session.expiresAt };
      });
      setSessionCookie(res, token, expiresAt, isSecureRequest(req, services));
      return { status: 201, body: { user: presentUser(user) } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/setup/instance',
    access: { kind: 'setupAdmin' },
    setupExempt: true,
    body: z.object({
      name: z.string().trim().min(1).max(100),
      baseUrl: z.url({ protocol: /^https?$/ }).transform((value) => new URL(value).origin),
      defaultLocale: z.enum(['de', 'en']),
    }),
    handler: async ({ req, body, actor, services }) => {
      const user = actor.user;
      await services.sequelize.transaction(async (transaction) => {
        const options = { actorId: user.id, transaction };
        await setSetting('instance.name', body.name, options);
        await setSetting('instance.baseUrl', body.baseUrl, options);
        await setSetting('instance.defaultLocale', body.defaultLocale, options);
        await setSetting('setup.instanceSavedAt', new Date().toISOString(), options);
        // Legal pages are served before setup completes; they show the instance's name.
        await siteSettingsChanged(transaction, ['instance.name', 'instance.baseUrl', 'instance.defaultLocale']);
        await recordAudit({ actor: auditActorOf(user), action: 'setup.instance_saved', details: body, ip: req.ip }, transaction);
      });
      return { body: { instance: body } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/setup/smtp',
    access: { kind: 'setupAdmin' },
    setupExempt: true,
    body: smtpBody,
    handler: async ({ req, body, actor, services, locale }) => {
      const user = actor.user;
      const { testRecipient, ...settings } = body;
      try {
        await services.mailer.sendTestMail(settings, testRecipient, await locale(), await getSetting('instance.name'));
      } catch (error) {
        const transportError = error as { message?: string; code?: string; responseCode?: number; command?: string };
        const details = {
          message: transportError.message ?? String(error),
          ...(transportError.code ? { code: transportError.code } : {}),
          ...(transportError.responseCode ? { responseCode: transportError.responseCode } : {}),
          ...(transportError.command ? { command: transportError.command } : {}),
        };
        await recordAudit({ actor: auditActorOf(user), action: 'setup.smtp_test_failed', details: { host: settings.host, port: settings.port, error: details.message }, ip: req.ip });
        throw new ApiError('smtp_test_failed', undefined, details);
      }
      await services.sequelize.transaction(async (transaction) => {
        await setSetting('smtp.settings', settings, { actorId: user.id, transaction });
        await setSetting('setup.smtpSkippedAt', null, { actorId: user.id, transaction });
        await recordAudit(
          { actor: auditActorOf(user), action: 'setup.smtp_saved', details: { host: settings.host, port: settings.port, secure: settings.secure, from: settings.from, username: settings.username ?? null }, ip: req.ip },
          transaction,
        );
      });
      return { body: { smtpConfigured: true } };
    },
  }),

  /**
   * The admin goes on without mail. Saved, so the wizard resumes past the step after a reload
   * (`GET /setup` → `smtpSkipped`). 200 `{ smtpSkipped: true }`; a relay saved later clears it.
   */
  defineRoute({
    method: 'post',
    path: '/setup/smtp/skip',
    access: { kind: 'setupAdmin' },
    setupExempt: true,
    handler: async ({ req, actor, services }) => {
      const user = actor.user;
      await services.sequelize.transaction(async (transaction) => {
        await setSetting('setup.smtpSkippedAt', new Date().toISOString(), { actorId: user.id, transaction });
        await recordAudit({ actor: auditActorOf(user), action: 'setup.smtp_skipped', ip: req.ip }, transaction);
      });
      return { body: { smtpSkipped: true } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/setup/registration',
    access: { kind: 'setupAdmin' },
    setupExempt: true,
    body: z.object({ mode: z.enum(['open', 'closed']) }),
    handler: async ({ req, body, actor, services }) => {
      const user = actor.user;
      await services.sequelize.transaction(async (transaction) => {
        await setSetting('registration.mode', body.mode, { actorId: user.id, transaction });
        await setSetting('setup.registrationSavedAt', new Date().toISOString(), { actorId: user.id, transaction });
        await recordAudit({ actor: auditActorOf(user), action: 'setup.registration_saved', details: { mode: body.mode }, ip: req.ip }, transaction);
      });
      return { body: { registrationMode: body.mode } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/setup/complete',
    access: { kind: 'setupAdmin' },
    setupExempt: true,
    handler: async ({ req, actor, services }) => {
      const user = actor.user;
      const state = await readSetupState(services.sequelize, services.config.smtpFallback !== null);
      const missing = (['admin', 'instance'] as const).filter((step) => !state.steps[step]);
      if (missing.length > 0) throw new ApiError('setup_incomplete', undefined, { missing });
      const completedAt = new Date().toISOString();
      await services.sequelize.transaction(async (transaction) => {
        await services.sequelize.query('SELECT pg_advisory_xact_lock(:key)', { replacements: { key: SETUP_ADMIN_LOCK_KEY }, transaction });
        if ((await getSetting('setup.completedAt', transaction)) !== null) throw new ApiError('setup_completed');
        await setSetting('setup.completedAt', completedAt, { actorId: user.id, transaction });
        await recordAudit({ actor: auditActorOf(user), action: 'setup.completed', details: { completedAt }, ip: req.ip }, transaction);
      });
      return { body: { completed: true, completedAt } };
    },
  }),
];
