/**
 * Cross-site request forgery defence for cookie sessions: a state-changing request must come
 * from our own origin. Cookie-authenticated writes need a matching `Origin` (or `Referer`);
 * any write that carries a foreign `Origin` is refused as well (this also stops login CSRF).
 * Requests without cookies and without `Origin` (API clients, curl) are not browser-driven.
 */
import type { Request } from 'express';
import type { AppServices } from '../services.ts';
import { ApiError } from './apiError.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function originOf(value: string | undefined): string | null {
  if (!value || value === 'null') return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

export function assertSameOrigin(req: Request, services: AppServices, cookieAuthenticated: boolean): void {
  if (SAFE_METHODS.has(req.method)) return;
  const allowed = new Set([services.config.baseUrl]);
  const origin = req.headers.origin;
  const source = originOf(origin) ?? originOf(req.headers.referer);
  if (source !== null) {
    if (!allowed.has(source)) throw new ApiError('csrf_failed', 403, { reason: 'origin_mismatch' });
    return;
  }
  // `Origin: null` (sandboxed frames, privacy redirects) is never trusted.
  if (origin === 'null' || cookieAuthenticated) throw new ApiError('csrf_failed', 403, { reason: 'origin_missing' });
}
