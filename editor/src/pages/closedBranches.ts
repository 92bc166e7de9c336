/**
 * Which branches of a pond's tree a member closed. This browser's localStorage keeps them per
 * pond; the pond used last is also mirrored into a small cookie, so the server renders its tree
 * already closed where it was, without a jump when the island takes over. The cookie holds the
 * pond id and the first 8 hex digits of each closed page id (enough inside one pond; a clash
 * would merely close one more branch), at most MAX_IN_COOKIE of them.
 */
export const CLOSED_BRANCHES_COOKIE = 'dt_tree_closed';
const MAX_IN_COOKIE = 100;
const PREFIX = 8;
const storageKey = (pondId: string) => `dt-tree-closed:${pondId}`;

/** The closed page ids the cookie names for `pondId`, or null when the cookie is about another pond (or missing). */
export function closedFromCookie(cookieValue: string, pondId: string, pageIds: readonly string[]): string[] | null {
  const [pond, list = ''] = cookieValue.split(':');
  if (!pond || pond.toLowerCase() !== pondId.toLowerCase()) return null;
  const prefixes = new Set(list.split('.').filter((prefix) => /^[0-9a-f]{8}$/i.test(prefix)).map((prefix) => prefix.toLowerCase()));
  return pageIds.filter((id) => prefixes.has(id.slice(0, PREFIX).toLowerCase()));
}

export function cookieValueFor(pondId: string, closed: Iterable<string>): string {
  return `${pondId.toLowerCase()}:${[...closed].slice(0, MAX_IN_COOKIE).map((id) => id.slice(0, PREFIX).toLowerCase()).join('.')}`;
}

/** The closed branches this browser remembers for the pond. */
export function readStoredClosed(pondId: string): string[] {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(pondId)) ?? '[]') as unknown;
    return Array.isArray(saved) ? saved.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** Remembers the closed branches in this browser and mirrors them into the cookie. */
export function storeClosed(pondId: string, closed: ReadonlySet<string>): void {
  try {
    localStorage.setItem(storageKey(pondId), JSON.stringify([...closed]));
  } catch {
    // Not remembered here; the cookie below still keeps the current pond's.
  }
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${CLOSED_BRANCHES_COOKIE}=${cookieValueFor(pondId, closed)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}
