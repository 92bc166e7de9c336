/**
 * The declarative route table: each route names its method, path, access rule and zod
 * schemas; `registerRoutes` turns the table into Express handlers that run
 * setup gate → authenticate → CSRF check → access rule → validation → handler.
 * A test walks every table and fails on a route without an access rule.
 */
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import { authenticateRequest, type Actor } from '../auth/authenticateRequest.ts';
import type { Label, Page, Pond } from '../models/index.ts';
import {
  accessSubjectOf,
  authorizeLabel,
  authorizePage,
  authorizePond,
  type AccessSubject,
  type PageCapability,
  type PondCapability,
  type SubjectAccess,
} from '../policies/accessPolicy.ts';
import type { Locale } from '../i18n/locale.ts';
import type { AppServices } from '../services.ts';
import { ApiError, forbidden, unauthenticated } from './apiError.ts';
import { assertSameOrigin } from './csrf.ts';
import { resolveRequestLocale } from './requestLocale.ts';
import { assertSetupComplete, assertSetupPending, isSetupAdmin } from '../setup/setupState.ts';
import { parseWithSchema } from './validation.ts';

/**
 * Who may call a route. The route wrapper refuses to register a route whose rule it does not
 * know. Resource rules name the path parameter holding the id (default `id`) and ask the
 * policy module; a denied read answers 404, a denied write on something readable 403.
 */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'session' }
  | { kind: 'siteAdmin' }
  /** The Site Admin created by `POST /setup/admin`, while setup runs. */
  | { kind: 'setupAdmin' }
  /**
   * `visible`: the pond's members and anyone a label/page grant reaches; else a pond-level capability.
   * `session`: also needs a signed-in caller (401), checked after the access rule, so a caller
   * who cannot see the target still gets 404.
   */
  | { kind: 'pond'; capability: PondCapability; param?: string; session?: boolean }
  /** `allowTrashed` for routes that work on trashed pages (restore, purge); `session` as for ponds. */
  | { kind: 'page'; capability: PageCapability; param?: string; allowTrashed?: boolean; session?: boolean }
  /** Labels belong to their pond: the capability is checked at pond level. */
  | { kind: 'label'; capability: PondCapability; param?: string };

export const ACCESS_RULE_KINDS = ['public', 'session', 'siteAdmin', 'setupAdmin', 'pond', 'page', 'label'] as const satisfies AccessRule['kind'][];

/** What a resource rule loaded and authorized, for the handler to use. */
export interface AuthorizedResource {
  pond?: Pond;
  page?: Page;
  label?: Label;
  access?: SubjectAccess;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteContext<P, Q, B> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  /** Null on public routes called anonymously. */
  actor: Actor | null;
  /** The actor as the policy module sees it (anonymous when there is no actor). */
  subject: AccessSubject;
  resource: AuthorizedResource;
  services: AppServices;
  locale: () => Promise<Locale>;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
}

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown> {
  method: HttpMethod;
  path: string;
  access: AccessRule;
  /** Reachable while setup is pending (setup, session and health routes, legal pages). */
  setupExempt?: boolean;
  /** Health probes answer without touching sessions, so they work while the database is down. */
  skipAuthentication?: boolean;
  /**
   * A state the route needs, checked after the access rule and before validation, so a
   * locked step answers 410 whatever its body (e.g. `POST /setup/admin` after setup).
   */
  precondition?: () => Promise<void>;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  handler: (context: RouteContext<P, Q, B>) => Promise<RouteResult | void>;
}

/** Identity function that lets TypeScript infer the schema types of one route. */
export function defineRoute<P = Record<string, string>, Q = unknown, B = unknown>(route: RouteDefinition<P, Q, B>): RouteDefinition<P, Q, B> {
  return route;
}

// Routes of different shapes share one table.
export type AnyRoute = RouteDefinition<any, any, any>;

export function registerRoutes(router: Router, routes: AnyRoute[], services: AppServices): void {
  for (const route of routes) {
    if (!route.access || !(ACCESS_RULE_KINDS as readonly string[]).includes(route.access.kind)) {
      throw new Error(`Route ${route.method.toUpperCase()} ${route.path} has no valid access rule`);
    }
    router[route.method](route.path, async (req, res) => {
      if (!route.setupExempt) await assertSetupComplete();
      const actor = route.skipAuthentication ? null : await authenticateRequest(req, res, services);
      await assertSameOrigin(req, services, actor !== null);
      const subject = accessSubjectOf(actor);
      const resource = await enforceAccessRule(route.access, actor, subject, req.params as Record<string, string>, services);
      await route.precondition?.();
      const locale = () => resolveRequestLocale(req);
      const params = await parseWithSchema(route.params, req.params, 'params', locale);
      const query = await parseWithSchema(route.query, req.query, 'query', locale);
      const body = await parseWithSchema(route.body, req.body, 'body', locale);
      const result = await route.handler({
        req,
        res,
        params,
        query,
        body,
        actor,
        subject,
        resource,
        services,
        locale,
      });
      if (res.headersSent) return;
      if (!result || result.body === undefined) res.status(result?.status ?? 204).end();
      else res.status(result.status ?? 200).json(result.body);
    });
  }
}

async function enforceAccessRule(
  rule: AccessRule,
  actor: Actor | null,
  subject: AccessSubject,
  params: Record<string, string>,
  services: AppServices,
): Promise<AuthorizedResource> {
  switch (rule.kind) {
    case 'public':
      return {};
    case 'session':
      if (!actor) throw unauthenticated();
      return {};
    case 'siteAdmin':
      if (!actor) throw unauthenticated();
      if (!actor.user.isSiteAdmin) throw forbidden();
      return {};
    case 'setupAdmin':
      await assertSetupPending();
      if (!actor) throw unauthenticated();
      if (!(await isSetupAdmin(actor.user.id))) throw forbidden();
      return {};
    case 'pond': {
      const resource = await authorizePond(services.sequelize, subject, params[rule.param ?? 'id'] ?? '', rule.capability);
      if (rule.session && !actor) throw unauthenticated();
      return resource;
    }
    case 'page': {
      const resource = await authorizePage(services.sequelize, subject, params[rule.param ?? 'id'] ?? '', rule.capability, { allowTrashed: rule.allowTrashed ?? false });
      if (rule.session && !actor) throw unauthenticated();
      return resource;
    }
    case 'label':
      return authorizeLabel(services.sequelize, subject, params[rule.param ?? 'id'] ?? '', rule.capability);
    default:
      throw new ApiError('internal_error');
  }
}
