/**
 * Server-side reads of `/api/v1` while rendering a page. The request goes to the same
 * process with the visitor's cookie and language, so the API applies exactly the rules it
 * applies to the browser: handed to the Express app in process (api/http/inProcessFetch.ts)
 * when the API mounted the site, else over HTTP to the page's own origin. A refreshed
 * session cookie is passed on.
 */
import type { AstroGlobal } from 'astro';
import type { ApiAnswer } from '../../../api/http/inProcessFetch.ts';
import type { ApiErrorBody } from '../../../editor/src/api/apiViews.ts';

export type PageApiResult<T> =
  | { ok: true; data: T }
  | { ok: false; status: number; error: ApiErrorBody['error'] | null };

const FORWARDED_HEADERS = ['cookie', 'accept-language'] as const;

/** `GET /api/v1${path}` as the visitor (their cookie and language); throws only when the API cannot be reached. */
export async function fetchApiForPage(astro: AstroGlobal, path: string, accept: string): Promise<ApiAnswer> {
  const headers: Record<string, string> = { accept };
  for (const name of FORWARDED_HEADERS) {
    const value = astro.request.headers.get(name);
    if (value) headers[name] = value;
  }
  const { fetchApi } = astro.locals;
  if (fetchApi) return fetchApi(`/api/v1${path}`, { headers });
  return fetch(`${astro.url.origin}/api/v1${path}`, { headers, redirect: 'manual' });
}

export async function readApiForPage<T>(astro: AstroGlobal, path: string): Promise<PageApiResult<T>> {
  let response: ApiAnswer;
  try {
    response = await fetchApiForPage(astro, path, 'application/json');
  } catch {
    return { ok: false, status: 0, error: null };
  }
  for (const cookie of response.headers.getSetCookie()) astro.response.headers.append('set-cookie', cookie);
  const payload: unknown = await response.json().catch(() => null);
  if (response.ok) return { ok: true, data: payload as T };
  const error = (payload as ApiErrorBody | null)?.error;
  return { ok: false, status: response.status, error: typeof error?.code === 'string' ? error : null };
}
