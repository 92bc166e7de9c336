/**
 * The declarative route table: each route names its method, path, access rule and zod
 * schemas; `registerRoutes` turns the table into Express handlers that run
 * setup gate → authenticate → CSRF check → access rule → validation → handler.
 * A test walks every table and fails on a route without an access rule.
 */
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import { authenticateRequest, type Actor } from '../auth/authenticateRequest.ts';
import type { Locale } from '../i18n/locale.ts';
import type { AppServices } from '../services.ts';
import { ApiError, forbidden, unauthenticated } from './apiError.ts';
import { assertSameOrigin } from './csrf.ts';
import { resolveRequestLocale } from './requestLocale.ts';
import { assertSetupComplete, assertSetupPending, isSetupAdmin } from '../setup/setupState.ts';
import { parseWithSchema } from './validation.ts';

/**
 * Who may call a route. Later issues add pond-role and page-permission rules here; the
 * route wrapper refuses to register a route whose rule it does not know.
 */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'session' }
  | { kind: 'siteAdmin' }
  /** The Site Admin created by `POST /setup/admin`, while setup runs. */
  | { kind: 'setupAdmin' };

export const ACCESS_RULE_KINDS = ['public', 'session', 'siteAdmin', 'setupAdmin'] as const satisfies AccessRule['kind'][];

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteContext<P, Q, B> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  /** Null on public routes called anonymously. */
  actor: Actor | null;
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
      await enforceAccessRule(route.access, actor);
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
        services,
        locale,
      });
      if (res.headersSent) return;
      if (!result || result.body === undefined) res.status(result?.status ?? 204).end();
      else res.status(result.status ?? 200).json(result.body);
    });
  }
}

async function enforceAccessRule(rule: AccessRule, actor: Actor | null): Promise<void> {
  switch (rule.kind) {
    case 'public':
      return;
    case 'session':
      if (!actor) throw unauthenticated();
      return;
    case 'siteAdmin':
      if (!actor) throw unauthenticated();
      if (!actor.user.isSiteAdmin) throw forbidden();
      return;
    case 'setupAdmin':
      await assertSetupPending();
      if (!actor) throw unauthenticated();
      if (!(await isSetupAdmin(actor.user.id))) throw forbidden();
      return;
    default:
      throw new ApiError('internal_error');
  }
}
