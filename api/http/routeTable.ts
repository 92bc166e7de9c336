/**
 * The declarative route table: each route names its method, path, access rule and zod
 * schemas; `registerRoutes` turns the table into Express handlers that run
 * setup gate → authenticate (as the router chose) → CSRF check (cookie routers) →
 * access rule → validation → handler. A test walks every table and fails on a route
 * without an access rule.
 *
 * The handler's context is typed by the route's access rule: `actor` is never null where
 * the rule needs a signed-in caller, and `resource` holds exactly what the rule loaded.
 */
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import { authenticateRequest, type Actor, type Authenticator } from '../auth/authenticateRequest.ts';
import { Page as PageModel, Pond as PondModel, type Label, type Page, type Pond } from '../models/index.ts';
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
import { ApiError, bearerRequired, forbidden, unauthenticated } from './apiError.ts';
import { recordTokenWrite } from '../audit/tokenWrites.ts';
import { assertSameOrigin } from './csrf.ts';
import { isFormRequest, readFormBody } from './formBody.ts';
import { renderReadsOf, type RenderReads } from './inProcessFetch.ts';
import { resolveRequestLocale } from './requestLocale.ts';
import { assertSetupComplete, assertSetupPending, isSetupAdmin } from '../setup/setupState.ts';
import { assertJsonBody, parseWithSchema } from './validation.ts';

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
  /** Labels belong to their pond: the capability is checked at pond level; `session` as for ponds. */
  | { kind: 'label'; capability: PondCapability; param?: string; session?: boolean }
  /**
   * A personal access token (public REST API): 401 without one, 403 `scope_required` when a
   * read token calls a `write` route. The pond opt-in, the token's pond restriction and the
   * permission model follow in the handler (api/publicApi/apiCall.ts), in the spec's order.
   */
  | { kind: 'token'; scope: 'read' | 'write' };

export const ACCESS_RULE_KINDS = ['public', 'session', 'siteAdmin', 'setupAdmin', 'pond', 'page', 'label', 'token'] as const satisfies AccessRule['kind'][];

/**
 * Rules under which the handler always has a signed-in caller. Writing and administering
 * need a session (the policy module answers 401 to anonymous callers), as does a rule
 * marked `session`. `ruleRequiresActor` says the same at run time and `registerRoutes`
 * enforces it, so the type holds.
 */
type SignedInRule =
  | { kind: 'session' | 'siteAdmin' | 'setupAdmin' | 'token' }
  | { kind: 'pond' | 'page' | 'label'; session: true }
  | { kind: 'pond' | 'label'; capability: 'write' | 'admin' }
  | { kind: 'page'; capability: 'write' };

/** Whether a handler under `rule` always has a caller: the run-time twin of `ActorFor`. */
export function ruleRequiresActor(rule: AccessRule): boolean {
  switch (rule.kind) {
    case 'public':
      return false;
    case 'session':
    case 'siteAdmin':
    case 'setupAdmin':
    case 'token':
      return true;
    case 'pond':
    case 'label':
      return rule.session === true || rule.capability === 'write' || rule.capability === 'admin';
    case 'page':
      return rule.session === true || rule.capability === 'write';
  }
}

/** The caller a handler under rule `A` sees: never null where the rule needs a session. */
export type ActorFor<A> = A extends SignedInRule ? Actor : Actor | null;

/** What a resource rule loaded and authorized, when the rule is not known statically. */
export interface AuthorizedResource {
  pond?: Pond;
  page?: Page;
  label?: Label;
  access?: SubjectAccess;
}

/** Rules on no resource load nothing. */
type NoResource = Record<never, never>;

/** What a handler under rule `A` gets: the pond, page or label the rule authorized, with the caller's access to its pond. */
export type ResourceFor<A> = AccessRule extends A
  ? AuthorizedResource
  : A extends { kind: 'pond' }
    ? { pond: Pond; access: SubjectAccess }
    : A extends { kind: 'page' }
      ? { page: Page; access: SubjectAccess }
      : A extends { kind: 'label' }
        ? { label: Label; access: SubjectAccess }
        : NoResource;

/** The names of a path's `:parameters` (`/ponds/:id/members/:userId` → `id` | `userId`). */
type PathParamNames<Path extends string> = Path extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | PathParamNames<`/${Tail}`>
    : Rest
  : never;

/** The path parameters of a route without a `params` schema, as Express hands them over. */
export type PathParams<Path extends string> = string extends Path ? Record<string, string> : { [Name in PathParamNames<Path>]: string };

/** A route's params: the `params` schema's output, else the path's parameters as strings. */
type ParamsOf<P, Path extends string> = unknown extends P ? PathParams<Path> : P;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * What a handler gets. `Caller` and `Resource` default to what any rule may give; a route's
 * handler sees them narrowed by its rule (`ActorFor`, `ResourceFor`).
 */
export interface RouteContext<P, Q, B, Caller extends Actor | null = Actor | null, Resource = AuthorizedResource> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  /** Null only on rules an anonymous caller may pass (see `ActorFor`). */
  actor: Caller;
  /** The actor as the policy module sees it (anonymous when there is no actor). */
  subject: AccessSubject;
  resource: Resource;
  services: AppServices;
  locale: () => Promise<Locale>;
}

/** The context of a handler behind any rule that needs a signed-in caller (for helpers shared by such routes). */
export type SignedInRouteContext<P = unknown, Q = unknown, B = unknown> = RouteContext<P, Q, B, Actor>;

export interface RouteResult {
  status?: number;
  body?: unknown;
}

/**
 * What the OpenAPI document says of a route (api/publicApi/openApiDocument.ts); every public
 * REST route carries one, so the document is made from the same schemas the route validates with.
 */
export interface RouteDescription {
  summary: string;
  description?: string;
  /** The document's group: 'Me', 'Ponds', 'Pages', 'Search', 'Labels', 'Comments', 'Export'. */
  tag: string;
  /** The success answer: its status and the zod schema of its JSON body (null: no body), or another media type. */
  response: { status: number; schema: z.ZodType | null; description: string; mediaType?: string };
  /** Error statuses the route can answer besides those every token route has (401, 403, 404 switch, 429). */
  errors?: number[];
}

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, A extends AccessRule = AccessRule, Path extends string = string> {
  method: HttpMethod;
  path: Path;
  access: A;
  /** Reachable while setup is pending (setup, session and health routes, legal pages). */
  setupExempt?: boolean;
  /**
   * Health probes answer without touching sessions, so they work while the database is down;
   * the unsubscribe link must neither read nor set a cookie. Such a route has no ambient
   * credential a forged request could ride on, so the CSRF origin check does not apply.
   */
  skipAuthentication?: boolean;
  /**
   * Also takes an HTML form's body (urlencoded or multipart; api/http/formBody.ts), parsed by
   * the `body` schema like JSON: for pages outside the app and mail providers (unsubscribe).
   */
  formBody?: boolean;
  /**
   * A state the route needs, checked after the access rule and before validation, so a
   * locked step answers 410 whatever its body (e.g. `POST /setup/admin` after setup).
   */
  precondition?: () => Promise<void>;
  /** The public REST API's routes describe themselves for the OpenAPI document. */
  describe?: RouteDescription;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  // A method, so a table of routes with different rules type-checks as one array.
  handler(context: RouteContext<ParamsOf<P, Path>, Q, B, ActorFor<A>, ResourceFor<A>>): Promise<RouteResult | void>;
}

/**
 * Identity function that lets TypeScript infer one route's types: the schemas' outputs, the
 * path's parameters and the access rule as a literal, which types `actor` and `resource`.
 */
export function defineRoute<P = unknown, Q = unknown, B = unknown, const A extends AccessRule = AccessRule, const Path extends string = string>(
  route: RouteDefinition<P, Q, B, A, Path>,
): RouteDefinition<P, Q, B, A, Path> {
  return route;
}

// Routes of different shapes share one table.
export type AnyRoute = RouteDefinition<any, any, any, any, string>;

export interface RouterOptions {
  /** How this router's callers authenticate (e.g. `sessionCookieAuthentication`). */
  authenticate: Authenticator;
}

export function registerRoutes(router: Router, routes: AnyRoute[], services: AppServices, options: RouterOptions): void {
  const authenticator = options.authenticate;
  for (const route of routes) {
    if (!route.access || !(ACCESS_RULE_KINDS as readonly string[]).includes(route.access.kind)) {
      throw new Error(`Route ${route.method.toUpperCase()} ${route.path} has no valid access rule`);
    }
    router[route.method](route.path, async (req, res) => {
      const result = await runRoute(route, { req, res, services, authenticator, params: req.params as Record<string, string>, query: req.query });
      if (res.headersSent) return;
      if (!result || result.body === undefined) res.status(result?.status ?? 204).end();
      else res.status(result.status ?? 200).json(result.body);
    });
  }
}

export interface RouteRun {
  req: Request;
  res: Response;
  services: AppServices;
  authenticator: Authenticator;
  /** The path's parameters and the query: the request's own, or those of a route run inside it (see `runRoute`). */
  params: Record<string, string>;
  query: unknown;
}

/**
 * One route for one request: setup gate → authenticate → CSRF check (cookie routers) → access
 * rule → validation → handler. Answers the handler's result; throws what the steps throw (an
 * ApiError for a refusal). Besides the router, the page screen's read (pageScreenRoutes.ts)
 * runs GET routes here with parameters of its own: the same steps, the same caller
 * (authentication is remembered per request).
 */
export async function runRoute(route: AnyRoute, run: RouteRun): Promise<RouteResult | void> {
  const { req, res, services, authenticator } = run;
  if (!route.setupExempt) await assertSetupComplete();
  const actor = route.skipAuthentication ? null : await authenticateRequest(req, res, services, authenticator);
  if (authenticator.ambientCredentials && !route.skipAuthentication) await assertSameOrigin(req, services, actor !== null);
  const subject = accessSubjectOf(actor);
  const resource = await enforceAccessRule(route.access, actor, subject, run.params, services, route.method === 'get' ? renderReadsOf(req.socket) : null);
  // After the rule, so a caller who cannot see the target gets 404 first; this is what makes `ActorFor` hold.
  if (!actor && ruleRequiresActor(route.access)) throw unauthenticated();
  await route.precondition?.();
  const locale = () => resolveRequestLocale(req);
  const params = await parseWithSchema(route.params, run.params, 'params', locale);
  const query = await parseWithSchema(route.query, run.query, 'query', locale);
  const form = route.formBody === true && isFormRequest(req);
  if (!form) assertJsonBody(req, route.body !== undefined);
  const body = await parseWithSchema(route.body, form ? await readFormBody(req) : req.body, 'body', locale);
  const result = await route.handler({ req, res, params, query, body, actor, subject, resource, services, locale });
  if (route.access.kind === 'token' && route.access.scope === 'write' && actor?.token) {
    await recordTokenWrite(actor, { channel: 'rest', method: route.method.toUpperCase(), route: route.path, params: run.params, status: result?.status ?? (result?.body === undefined ? 204 : 200) }, req.ip);
  }
  return result;
}

async function enforceAccessRule(
  rule: AccessRule,
  actor: Actor | null,
  subject: AccessSubject,
  params: Record<string, string>,
  services: AppServices,
  render: RenderReads | null,
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
    case 'pond':
      return authorizePond(services.sequelize, subject, params[rule.param ?? 'id'] ?? '', rule.capability, render ? (id) => pondOfRender(render, id) : undefined);
    case 'page':
      return authorizePage(services.sequelize, subject, params[rule.param ?? 'id'] ?? '', rule.capability, { allowTrashed: rule.allowTrashed ?? false, loadPage: render ? (id) => pageOfRender(render, id) : undefined });
    case 'label':
      return authorizeLabel(services.sequelize, subject, params[rule.param ?? 'id'] ?? '', rule.capability);
    case 'token':
      if (!actor?.token) throw bearerRequired();
      if (rule.scope === 'write' && actor.token.scope !== 'write') throw new ApiError('scope_required', 403);
      return {};
    default:
      throw new ApiError('internal_error');
  }
}

/** A row read once per page render, shared by the render's reads (a GET changes no row). */
function sharedLookup<T>(rows: Map<string, Promise<T | null>>, id: string, load: (id: string) => Promise<T | null>): Promise<T | null> {
  let lookup = rows.get(id);
  if (!lookup) {
    lookup = load(id);
    rows.set(id, lookup);
  }
  return lookup;
}

function pondOfRender(render: RenderReads, id: string): Promise<Pond | null> {
  return sharedLookup(render.ponds, id, (key) => PondModel.findByPk(key));
}

/** Ponds a render's read has loaded whole (`GET /ponds`), for its later reads of the same pond. */
export function rememberPondsOfRender(render: RenderReads | null, ponds: readonly Pond[]): void {
  if (!render) return;
  for (const pond of ponds) if (!render.ponds.has(pond.id)) render.ponds.set(pond.id, Promise.resolve(pond));
}

/** The body's read and the page screen's name the same page: one row for both. */
export function pageOfRender(render: RenderReads, id: string): Promise<Page | null> {
  return sharedLookup(render.pages, id, (key) => PageModel.findByPk(key));
}
