/**
 * Server-side reads of `/api/v1` while rendering a page. The request goes over loopback
 * to the same process with the visitor's cookie and language, so the API applies exactly
 * the rules it applies to the browser. A refreshed session cookie is passed on.
 */
import type { AstroGlobal } from 'astro';
import type { ApiErrorBody } from '../../../editor/src/api/apiViews.ts';

export type PageApiResult<T> =
  | { ok: true; data: T }
  | { ok: false; status: number; error: ApiErrorBody['error'] | null };

const FORWARDED_HEADERS = ['cookie', 'accept-language'] as const;

export async function readApiForPage<T>(astro: AstroGlobal, path: string): Promise<PageApiResult<T>> {
  const origin = astro.locals.apiOrigin ?? astro.url.origin;
  const headers = new Headers({ accept: 'application/json' });
  for (const name of FORWARDED_HEADERS) {
    const value = astro.request.headers.get(name);
    if (value) headers.set(name, value);
  }
  let response: Response;
  try {
    response = await fetch(`${origin}/api/v1${path}`, { headers, redirect: 'manual' });
  } catch {
    return { ok: false, status: 0, error: null };
  }
  for (const cookie of response.headers.getSetCookie()) astro.response.headers.append('set-cookie', cookie);
  const payload: unknown = await response.json().catch(() => null);
  if (response.ok) return { ok: true, data: payload as T };
  const error = (payload as ApiErrorBody | null)?.error;
  return { ok: false, status: response.status, error: typeof error?.code === 'string' ? error : null };
}
