/**
 * Cross-site request forgery defence for cookie sessions: a state-changing request must come
 * from our own origin. Cookie-authenticated writes need a matching `Origin` (or `Referer`);
 * any write that carries a foreign `Origin` is refused as well (this also stops login CSRF).
 * Requests without cookies and without `Origin` (API clients, curl) are not browser-driven.
 */
import type { Request } from 'express';
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';
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

/**
 * The instance's own origins: `BASE_URL` and the base URL saved by the setup wizard (the
 * wizard pre-fills it with the address the admin actually uses).
 */
async function ownOrigins(req: Request, services: AppServices): Promise<Set<string>> {
  const origins = new Set([services.config.baseUrl]);
  const saved = await getSetting('instance.baseUrl');
  if (saved) origins.add(saved);
  // Without BASE_URL we do not know our public address (first run at 127.0.0.1 or a LAN IP):
  // the classic same-origin check against the Host the browser addressed still stops cross-site writes.
  if (!services.config.baseUrlExplicit && req.headers.host) origins.add(`${req.protocol}://${req.headers.host}`);
  return origins;
}

export async function assertSameOrigin(req: Request, services: AppServices, cookieAuthenticated: boolean): Promise<void> {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  const referer = originOf(req.headers.referer);
  if (origin === undefined && referer === null) {
    if (cookieAuthenticated) throw new ApiError('csrf_failed', 403, { reason: 'origin_missing' });
    return;
  }
  const allowed = await ownOrigins(req, services);
  if (origin !== undefined) {
    // A present `Origin` alone decides; the Referer is only a fallback for browsers that omit it.
    // `Origin: null` (sandboxed frames, privacy redirects) is never trusted, not even beside a matching Referer.
    if (origin === 'null') throw new ApiError('csrf_failed', 403, { reason: 'origin_missing' });
    if (!allowed.has(originOf(origin) ?? '')) throw new ApiError('csrf_failed', 403, { reason: 'origin_mismatch' });
    return;
  }
  if (!allowed.has(referer ?? '')) throw new ApiError('csrf_failed', 403, { reason: 'origin_mismatch' });
}
