/**
 * Who is calling. Each router chooses how its callers prove it (`registerRoutes(..., {
 * authenticate })`): the internal API reads the `dt_session` cookie; token routers (public
 * REST, MCP, feeds) plug in an `Authenticator` of their own next to it. The actor is
 * remembered per request, so the error handler can localize with the user's locale.
 */
import type { Request, Response } from 'express';
import type { Session, User } from '../models/index.ts';
import type { AppServices } from '../services.ts';
import { renderReadsOf, type RenderReads } from '../http/inProcessFetch.ts';
import { SESSION_COOKIE, clearSessionCookie, readCookie, setSessionCookie, validateSessionToken, type ValidatedSession } from './sessions.ts';

/** The personal access token a bearer caller presented (spec: Personal access token). */
export interface ActorToken {
  id: string;
  name: string;
  scope: 'read' | 'write';
  /** The one pond the token may reach, or null for every pond its owner reaches. */
  pondId: string | null;
}

/** A signed-in caller: by the session cookie (`session`) or by a personal access token (`token`), never both. */
export interface Actor {
  user: User;
  session: Session | null;
  token: ActorToken | null;
}

export interface Authenticator {
  /**
   * Whether the browser attaches the credential by itself (a cookie). Such routers run the
   * CSRF origin check on writes; routers whose credential the client must send explicitly
   * (an `Authorization` header) do not, and never read cookies.
   */
  readonly ambientCredentials: boolean;
  /** The caller, or null for a request without a valid credential of this kind (anonymous). */
  authenticate(req: Request, res: Response, services: AppServices): Promise<Actor | null>;
}

/** The browser session: the `dt_session` cookie, refreshed while in use and cleared when invalid. */
export const sessionCookieAuthentication: Authenticator = {
  ambientCredentials: true,
  async authenticate(req, res, services) {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (!token) return null;
    const validated = await validateOncePerRender(req, token, () => validateSessionToken(token, { ttlDays: services.config.sessionTtlDays }));
    const secure = isSecureRequest(req, services);
    if (!validated) {
      clearSessionCookie(res, secure);
      return null;
    }
    if (validated.refreshed) setSessionCookie(res, token, validated.session.expiresAt, secure);
    return { user: validated.user, session: validated.session, token: null };
  },
};

/**
 * A page render's reads (api/http/inProcessFetch.ts) share one check of the cookie; only the
 * first is told of a refresh, so the page passes the renewed cookie on once. Any other request
 * checks its own.
 */
function validateOncePerRender(req: Request, token: string, validate: () => Promise<ValidatedSession | null>): Promise<ValidatedSession | null> {
  const render = renderReadsOf(req.socket);
  if (!render) return validate();
  let entry = render.sessionChecks.get(token);
  if (!entry) {
    entry = { check: validate(), refreshTold: false };
    render.sessionChecks.set(token, entry);
  }
  const check = entry.check as Promise<ValidatedSession | null>;
  if (!entry.refreshTold) {
    entry.refreshTold = true;
    return check;
  }
  return check.then((validated) => validated && { ...validated, refreshed: false });
}

/**
 * Starts a page render's check of its session cookie as the page request arrives (app.ts), so
 * the lookup runs while the page starts rendering instead of after its first read has come
 * through the API's middleware. The reads then share it as if the first had started it.
 */
export function checkSessionAhead(render: RenderReads, cookieHeader: string | undefined, services: AppServices): void {
  const token = readCookie(cookieHeader, SESSION_COOKIE);
  if (!token || render.sessionChecks.has(token)) return;
  const check = validateSessionToken(token, { ttlDays: services.config.sessionTtlDays });
  // A render that reads nothing leaves it unobserved; a read that uses it sees the failure itself.
  check.catch(() => undefined);
  render.sessionChecks.set(token, { check, refreshTold: false });
}

const actors = new WeakMap<Request, Actor | null>();

/** Runs `authenticator` once per request; later calls answer the remembered actor. */
export async function authenticateRequest(req: Request, res: Response, services: AppServices, authenticator: Authenticator): Promise<Actor | null> {
  if (actors.has(req)) return actors.get(req) ?? null;
  const actor = await authenticator.authenticate(req, res, services);
  actors.set(req, actor);
  return actor;
}

/** The actor already resolved for this request, if any. */
export function knownActor(req: Request): Actor | null {
  return actors.get(req) ?? null;
}

/** Cookies get `Secure` when the instance is served over HTTPS (directly or behind a proxy). */
export function isSecureRequest(req: Request, services: AppServices): boolean {
  return req.secure || services.config.baseUrl.startsWith('https:');
}
