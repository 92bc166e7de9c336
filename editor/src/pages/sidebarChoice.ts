/**
 * A member's own choice of sidebar presentation per pond (folder tree or label grouping),
 * kept in one cookie so the server renders the chosen view at once, with no jump on load.
 * The value is `pondId:view` pairs joined by `|`, newest first, at most MAX_REMEMBERED.
 */
import type { SidebarView } from '../api/apiViews.ts';

export const SIDEBAR_COOKIE = 'dt_sidebar_view';
const MAX_REMEMBERED = 30;
const PAIR = /^([0-9a-f-]{36}):(tree|labels)$/i;

function parse(value: string): [string, SidebarView][] {
  return value
    .split('|')
    .map((pair) => PAIR.exec(pair))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => [match[1]!.toLowerCase(), match[2]!.toLowerCase() as SidebarView]);
}

/** The view chosen for `pondId` in a cookie value, or null when none was chosen. */
export function sidebarChoiceFor(cookieValue: string, pondId: string): SidebarView | null {
  return parse(cookieValue).find(([id]) => id === pondId.toLowerCase())?.[1] ?? null;
}

/** The cookie value after choosing `view` for `pondId`. */
export function withSidebarChoice(cookieValue: string, pondId: string, view: SidebarView): string {
  const others = parse(cookieValue).filter(([id]) => id !== pondId.toLowerCase());
  return [[pondId.toLowerCase(), view] as const, ...others]
    .slice(0, MAX_REMEMBERED)
    .map(([id, chosen]) => `${id}:${chosen}`)
    .join('|');
}

/** Stores the choice in this browser for a year (read back by the server, site/src/server/appPond.ts). */
export function rememberSidebarChoice(pondId: string, view: SidebarView): void {
  const current = document.cookie.split('; ').find((part) => part.startsWith(`${SIDEBAR_COOKIE}=`))?.slice(SIDEBAR_COOKIE.length + 1) ?? '';
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${SIDEBAR_COOKIE}=${withSidebarChoice(current, pondId, view)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}
