/**
 * Walks an OpenID Connect flow the way a browser would, for HTTP tests: the test client's
 * cookie jar carries our cookies and the test provider's (cookies do not separate ports,
 * neither here nor in a browser), and redirects are followed one by one.
 */
import type { TestClient } from './testClient.ts';

const MAX_HOPS = 20;

/** One GET anywhere with the client's cookies; keeps the cookies it sets. */
export async function browserGet(client: TestClient, url: string): Promise<{ status: number; location: string | null; text: string }> {
  const target = new URL(url, client.baseUrl);
  if (target.origin === new URL(client.baseUrl).origin) {
    const response = await client.get(`${target.pathname}${target.search}`);
    return { status: response.status, location: response.headers.get('location'), text: response.text };
  }
  const headers: Record<string, string> = {};
  if (client.cookies.size > 0) headers.cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await fetch(target, { headers, redirect: 'manual' });
  for (const setCookie of response.headers.getSetCookie()) {
    const [pair = ''] = setCookie.split(';');
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    if (value === '' || /expires=thu, 01 jan 1970/i.test(setCookie)) client.cookies.delete(name);
    else client.cookies.set(name, value);
  }
  const location = response.headers.get('location');
  return { status: response.status, location: location === null ? null : new URL(location, target).href, text: await response.text() };
}

/**
 * Starts at `path` on our origin and follows redirects until the provider sends the browser
 * back to our callback; returns that callback URL without requesting it.
 */
export async function walkToCallback(client: TestClient, path: string): Promise<string> {
  let url = new URL(path.startsWith('/api') ? path : `/api/v1${path}`, client.baseUrl).href;
  for (let hop = 0; hop < MAX_HOPS; hop += 1) {
    const response = await browserGet(client, url);
    if (!response.location) throw new Error(`walkToCallback: ${url} answered ${response.status} without a redirect: ${response.text.slice(0, 1500)}`);
    if (response.location.startsWith(new URL('/api/v1/auth/oidc/callback', client.baseUrl).href)) return response.location;
    if (new URL(response.location).origin === new URL(client.baseUrl).origin) {
      throw new Error(`walkToCallback: landed on ${response.location} before the provider's callback`);
    }
    url = response.location;
  }
  throw new Error('walkToCallback: too many redirects');
}

/** Requests the callback; returns where it sends the browser (path and query on our origin). */
export async function finishCallback(client: TestClient, callbackUrl: string): Promise<string> {
  const response = await browserGet(client, callbackUrl);
  if (response.status !== 302 || !response.location) throw new Error(`callback answered ${response.status}: ${response.text.slice(0, 300)}`);
  const landing = new URL(response.location, client.baseUrl);
  return `${landing.pathname}${landing.search}`;
}

/** The whole flow from `path` (e.g. `/auth/oidc/start?next=/x`) to where the callback lands. */
export async function signInThroughProvider(client: TestClient, path: string): Promise<string> {
  return finishCallback(client, await walkToCallback(client, path));
}
