/**
 * Single sign-on through OpenID Connect (spec: Authentication 2; ARCHITECTURE, "Single
 * sign-on"; docs/sso.md). The flow routes answer browsers with redirects, never JSON: every
 * refusal lands on the login page (or, for linking, the settings) as `?error=<code>`.
 *
 * - `GET /auth/methods` → `{ password: true, oidc: { label } | null }`.
 * - `GET /auth/oidc/start?next=<path>` → 302 to the provider, the flow cookie set.
 * - `GET /auth/oidc/link` (signed in; else 302 to the login page) → 302 to the provider.
 * - `GET /auth/oidc/callback` → 302 to `next` signed in, to `/settings?linked=1` after a link,
 *   or to the refusal. Checked in this order: the flow cookie (present, signature, age), the
 *   state, the provider's `error`, the code exchange, the ID token. The cookie is cleared on
 *   every outcome; a replayed callback fails at the exchange (codes are single-use).
 * - `GET /users/me/identities` → `{ items: [{ id, provider, label, email, linkedAt }], hasPassword }`.
 * - `DELETE /users/me/identities/:id` → 204; 409 `identity_last_sign_in_method` when it is
 *   the account's only way in; 404 for an unknown id or another user's.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { readCookie, createSession, invalidateSession, setSessionCookie } from '../auth/sessions.ts';
import { isSecureRequest } from '../auth/authenticateRequest.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import type { OidcConfig } from '../config.ts';
import { notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { User } from '../models/index.ts';
import type { AppServices } from '../services.ts';
import { clearFlowCookie, FLOW_COOKIE, safeNextPath, setFlowCookie, signFlow, verifyFlow, type FlowPurpose, type FlowState } from '../sso/flowCookie.ts';
import { listIdentities, unlinkIdentity } from '../sso/loginIdentities.ts';
import { authorizationUrl, exchangeCode, newFlowSecrets, OidcFailure, providerConfiguration, providerIdOf, type OidcFailureCode } from '../sso/oidcClient.ts';
import { accountForLogin, linkIdentity, type SignInContext } from '../sso/ssoSignIn.ts';

const CALLBACK_PATH = '/api/v1/auth/oidc/callback';
/** Where a link lands: the own settings, which list the identities. */
const SETTINGS_PATH = '/settings';

const callbackUrlOf = (services: AppServices) => `${services.config.baseUrl}${CALLBACK_PATH}`;
const flowCookieSecure = (services: AppServices) => services.config.baseUrl.startsWith('https:');
const loginRefusal = (code: OidcFailureCode) => `/login?error=${code}`;

function configuredOidc(services: AppServices): OidcConfig {
  if (!services.config.oidc) throw notFound();
  return services.config.oidc;
}

/** Sends the browser to the provider with a new flow cookie; an unreachable provider lands on `refusal`. */
async function redirectToProvider(res: Response, services: AppServices, purpose: FlowPurpose, next: string, refusal: (code: OidcFailureCode) => string): Promise<void> {
  const config = configuredOidc(services);
  res.setHeader('Cache-Control', 'no-store');
  let configuration;
  try {
    configuration = await providerConfiguration(config);
  } catch (error) {
    services.logger.warn({ err: error instanceof OidcFailure ? error.cause : error, issuer: config.issuer }, 'oidc discovery failed');
    res.redirect(302, refusal(error instanceof OidcFailure ? error.code : 'oidc_discovery_failed'));
    return;
  }
  const flow: FlowState = { ...newFlowSecrets(), next, issuedAt: Date.now(), purpose };
  setFlowCookie(res, signFlow(services.config.sessionSecret, flow), flowCookieSecure(services));
  res.redirect(302, (await authorizationUrl(configuration, config, callbackUrlOf(services), flow)).href);
}

interface CallbackQuery {
  state?: string | undefined;
  error?: string | undefined;
}

/** The callback's work; answers where the browser goes next (a refusal throws OidcFailure). */
async function completeFlow(req: Request, res: Response, services: AppServices, flow: FlowState, query: CallbackQuery, actorUserId: string | null, previousSessionId: string | null): Promise<string> {
  const config = configuredOidc(services);
  if (query.state !== flow.state) throw new OidcFailure('oidc_state_invalid');
  if (query.error !== undefined) throw new OidcFailure(query.error === 'access_denied' ? 'oidc_cancelled' : 'oidc_failed');
  // The link is for the account that asked for it, still signed in in this browser.
  if (flow.purpose.kind === 'link' && flow.purpose.userId !== actorUserId) throw new OidcFailure('oidc_state_invalid');
  const configuration = await providerConfiguration(config);
  const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
  const identity = await exchangeCode(configuration, new URL(`${callbackUrlOf(services)}${search}`), flow);
  const context: SignInContext = { sequelize: services.sequelize, oidc: config, passwordHashCost: services.config.passwordHashCost, provider: providerIdOf(configuration), ip: req.ip };
  const { purpose } = flow;

  if (purpose.kind === 'link') {
    await services.sequelize.transaction(async (transaction) => {
      const user = await User.findByPk(purpose.userId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!user || user.status !== 'ACTIVE') throw new OidcFailure('oidc_state_invalid');
      await linkIdentity(context, user, identity, transaction);
    });
    return `${SETTINGS_PATH}?linked=1`;
  }

  let session;
  try {
    session = await services.sequelize.transaction(async (transaction) => {
      const user = await accountForLogin(context, identity, transaction);
      user.lastLoginAt = new Date();
      await user.save({ transaction });
      await recordAudit({ actor: auditActorOf(user), action: 'auth.login', details: { method: 'oidc', provider: context.provider }, ip: req.ip }, transaction);
      return createSession(user.id, { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, policy: { ttlDays: services.config.sessionTtlDays } }, transaction);
    });
  } catch (error) {
    // A verified identity refused by the account rules (e.g. oidc_link_required: someone at
    // the provider holds a local account's address) is worth a Site Admin's eye; recorded
    // after the rollback, so it stays.
    if (error instanceof OidcFailure) {
      await recordAudit({
        actor: error.account ? auditActorOf(error.account) : null,
        action: 'auth.login_failed',
        details: { method: 'oidc', reason: error.code, provider: context.provider, subject: identity.subject },
        ip: req.ip,
      });
    }
    throw error;
  }
  // As at password login: a new sign-in gets a new session; the one this browser had ends.
  if (previousSessionId) await invalidateSession(previousSessionId);
  setSessionCookie(res, session.token, session.session.expiresAt, isSecureRequest(req, services));
  return flow.next;
}

export const ssoRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/auth/methods',
    access: { kind: 'public' },
    setupExempt: true,
    handler: async ({ services }) => ({ body: { password: true, oidc: services.config.oidc ? { label: services.config.oidc.providerLabel } : null } }),
  }),

  defineRoute({
    method: 'get',
    path: '/auth/oidc/start',
    access: { kind: 'public' },
    // Any `next` is taken: one that is not a same-origin path lands on `/`.
    query: z.object({ next: z.unknown().optional() }),
    handler: async ({ res, query, services }) => {
      await redirectToProvider(res, services, { kind: 'login' }, safeNextPath(query.next), loginRefusal);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/auth/oidc/link',
    access: { kind: 'public' },
    handler: async ({ res, actor, services }) => {
      configuredOidc(services);
      if (!actor) {
        res.redirect(302, `/login?next=${encodeURIComponent(SETTINGS_PATH)}`);
        return;
      }
      await redirectToProvider(res, services, { kind: 'link', userId: actor.user.id }, SETTINGS_PATH, (code) => `${SETTINGS_PATH}?error=${code}`);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/auth/oidc/callback',
    access: { kind: 'public' },
    query: z.object({ state: z.string().max(1024).optional(), error: z.string().max(256).optional() }).loose(),
    handler: async ({ req, res, query, actor, services }) => {
      configuredOidc(services);
      res.setHeader('Cache-Control', 'no-store');
      const flow = verifyFlow(services.config.sessionSecret, readCookie(req.headers.cookie, FLOW_COOKIE) ?? undefined);
      clearFlowCookie(res, flowCookieSecure(services));
      if (!flow) {
        res.redirect(302, loginRefusal('oidc_state_invalid'));
        return;
      }
      // A refused sign-in keeps where it was headed, so signing in by password after it lands
      // there too; except `oidc_link_required`, whose next step is linking in the settings.
      const refusal =
        flow.purpose.kind === 'link'
          ? (code: OidcFailureCode) => `${SETTINGS_PATH}?error=${code}`
          : (code: OidcFailureCode) => (code === 'oidc_link_required' || flow.next === '/' ? loginRefusal(code) : `${loginRefusal(code)}&next=${encodeURIComponent(flow.next)}`);
      try {
        res.redirect(302, await completeFlow(req, res, services, flow, query, actor?.user.id ?? null, actor?.session?.id ?? null));
      } catch (error) {
        const code = error instanceof OidcFailure ? error.code : 'oidc_failed';
        // What the provider or the token got wrong is for the operator (docs/sso.md), not the browser.
        const cause = error instanceof OidcFailure ? error.cause : error;
        services.logger.warn({ code, cause: cause instanceof Error ? `${cause.name}: ${cause.message}${cause.cause instanceof Error ? ` (${cause.cause.message})` : ''}` : undefined }, 'oidc sign-in refused');
        res.redirect(302, refusal(code));
      }
    },
  }),

  defineRoute({
    method: 'get',
    path: '/users/me/identities',
    access: { kind: 'session' },
    handler: async ({ actor, services, res }) => {
      res.setHeader('Cache-Control', 'no-store');
      const identities = await listIdentities(services.sequelize, actor.user.id);
      const current = services.config.oidc;
      const items = identities.map((identity) => ({
        id: identity.id,
        provider: identity.provider,
        label: labelOfProvider(identity.provider, current),
        email: identity.email,
        linkedAt: identity.createdAt.toISOString(),
      }));
      return { body: { items, hasPassword: actor.user.passwordHash !== null } };
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/users/me/identities/:id',
    access: { kind: 'session' },
    handler: async ({ req, params, actor, services }) => {
      await services.sequelize.transaction(async (transaction) => {
        const identity = await unlinkIdentity(services.sequelize, actor.user.id, params.id, transaction);
        if (!identity) throw notFound();
        await recordAudit(
          { actor: auditActorOf(actor.user), action: 'auth.identity_unlinked', details: { identityId: identity.id, provider: identity.provider, subject: identity.subject }, ip: req.ip },
          transaction,
        );
      });
    },
  }),
];

/** A provider's name for people: the configured label when it is the configured issuer (with or without a trailing slash), else its host. */
function labelOfProvider(provider: string, current: OidcConfig | null): string {
  const issuer = provider.slice('oidc:'.length);
  if (current && issuer.replace(/\/+$/, '') === current.issuer.replace(/\/+$/, '')) return current.providerLabel;
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}
