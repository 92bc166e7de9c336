/**
 * Which branches of a pond's tree are open. A branch is closed unless the member opened it or
 * it leads to the page on screen, so a pond of thousands of pages renders its top level and the
 * way to the open page, not every row. This browser's localStorage keeps the opened branches per
 * pond; the pond used last is also mirrored into a small cookie, so the server renders the tree
 * as the member left it and hydration moves nothing. The cookie holds the pond id and the first
 * 8 hex digits of each opened page id (enough inside one pond; a clash would merely open one
 * more branch), at most MAX_IN_COOKIE of them.
 */
export const OPEN_BRANCHES_COOKIE = 'dt_tree_open';
const MAX_IN_COOKIE = 100;
const PREFIX = 8;
const storageKey = (pondId: string) => `dt-tree-open:${pondId}`;

/** The opened page ids the cookie names for `pondId`, or null when the cookie is about another pond (or missing). */
export function openFromCookie(cookieValue: string, pondId: string, pageIds: readonly string[]): string[] | null {
  const [pond, list = ''] = cookieValue.split(':');
  if (!pond || pond.toLowerCase() !== pondId.toLowerCase()) return null;
  const prefixes = new Set(list.split('.').filter((prefix) => /^[0-9a-f]{8}$/i.test(prefix)).map((prefix) => prefix.toLowerCase()));
  return pageIds.filter((id) => prefixes.has(id.slice(0, PREFIX).toLowerCase()));
}

/** The newest MAX_IN_COOKIE opened branches (a Set keeps insertion order). */
export function cookieValueFor(pondId: string, opened: Iterable<string>): string {
  return `${pondId.toLowerCase()}:${[...opened].slice(-MAX_IN_COOKIE).map((id) => id.slice(0, PREFIX).toLowerCase()).join('.')}`;
}

/** The opened branches this browser remembers for the pond. */
export function readStoredOpen(pondId: string): string[] {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(pondId)) ?? '[]') as unknown;
    return Array.isArray(saved) ? saved.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** Remembers the opened branches in this browser and mirrors them into the cookie. */
export function storeOpen(pondId: string, opened: ReadonlySet<string>): void {
  try {
    localStorage.setItem(storageKey(pondId), JSON.stringify([...opened]));
  } catch {
    // Not remembered here; the cookie below still keeps the current pond's.
  }
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${OPEN_BRANCHES_COOKIE}=${cookieValueFor(pondId, opened)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}
