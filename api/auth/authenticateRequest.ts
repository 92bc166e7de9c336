/**
 * Resolves the caller of a request from the `dt_session` cookie. The result is remembered
 * per request, so the error handler can localize with the user's locale.
 */
import type { Request, Response } from 'express';
import type { Session, User } from '../models/index.ts';
import type { AppServices } from '../services.ts';
import { SESSION_COOKIE, clearSessionCookie, readCookie, setSessionCookie, validateSessionToken } from './sessions.ts';

export interface Actor {
  user: User;
  session: Session;
}

const actors = new WeakMap<Request, Actor | null>();

export async function authenticateRequest(req: Request, res: Response, services: AppServices): Promise<Actor | null> {
  if (actors.has(req)) return actors.get(req) ?? null;
  const token = readCookie(req.headers.cookie, SESSION_COOKIE);
  let actor: Actor | null = null;
  if (token) {
    const validated = await validateSessionToken(token, { ttlDays: services.config.sessionTtlDays });
    const secure = isSecureRequest(req, services);
    if (!validated) clearSessionCookie(res, secure);
    else {
      actor = { user: validated.user, session: validated.session };
      if (validated.refreshed) setSessionCookie(res, token, validated.session.expiresAt, secure);
    }
  }
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
