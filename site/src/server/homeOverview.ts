/**
 * What `/` shows a signed-in member besides their ponds: their favorites and the pages changed
 * lately, across every pond they belong to. Read through the same per-pond API the sidebar uses
 * (favorites, the page list with `updatedSince`), so both stay within what the member may read.
 */
import type { AstroGlobal } from 'astro';
import type { FavoriteView, ListView, PageSummaryView, PondSummaryView } from '../../../editor/src/api/apiViews.ts';
import { readApiForPage } from './apiForPage.ts';

/** Ponds looked into; a member of more sees those listed first. */
const MAX_PONDS = 50;
const RECENT_DAYS = 30;
const FAVORITES_SHOWN = 12;
const RECENT_SHOWN = 10;

export interface HomeEntry {
  page: PageSummaryView;
  pond: PondSummaryView;
}

export interface HomeOverview {
  favorites: HomeEntry[];
  recent: HomeEntry[];
}

export async function loadHomeOverview(astro: AstroGlobal, ponds: PondSummaryView[], now = new Date()): Promise<HomeOverview> {
  const since = new Date(now.getTime() - RECENT_DAYS * 86_400_000).toISOString();
  const perPond = await Promise.all(
    ponds.slice(0, MAX_PONDS).map(async (pond) => {
      const [favorites, changed] = await Promise.all([
        readApiForPage<ListView<FavoriteView>>(astro, `/ponds/${pond.id}/favorites?limit=${FAVORITES_SHOWN}`),
        readApiForPage<ListView<PageSummaryView>>(astro, `/ponds/${pond.id}/pages?limit=1000&updatedSince=${encodeURIComponent(since)}`),
      ]);
      return {
        favorites: favorites.ok ? favorites.data.items.map((page) => ({ page, pond, at: page.favoritedAt })) : [],
        recent: changed.ok ? changed.data.items.map((page) => ({ page, pond, at: page.updatedAt })) : [],
      };
    }),
  );
  const newestFirst = (a: { at: string }, b: { at: string }) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);
  const pick = (entries: (HomeEntry & { at: string })[], count: number) => entries.sort(newestFirst).slice(0, count).map(({ page, pond }) => ({ page, pond }));
  return {
    favorites: pick(perPond.flatMap((entry) => entry.favorites), FAVORITES_SHOWN),
    recent: pick(perPond.flatMap((entry) => entry.recent), RECENT_SHOWN),
  };
}

/** `GET /home/overview`: what the landing page shows a visitor (api/publicPages/homeContent.ts). */
export interface LandingOverview {
  /** The landing text, rendered and sanitized by the content pipeline; the welcome in the visitor's language. */
  content: { html: string; isDefault: boolean };
  ponds: { slug: string; name: string; pageCount: number; updatedAt: string }[];
  recentPages: { pond: { slug: string; name: string }; slug: string; title: string; updatedAt: string }[];
}

/**
 * The landing page's data for a visitor whom the public hot path handed on (it serves the
 * generated landing documents otherwise), and its caching: the page names only what the public
 * may read and nothing of the visitor, so any cache may keep it, revalidating every time (a
 * page made private must not live on), per language and per cookie (a signed-in browser gets
 * its home at the same URL). A response that sets a cookie stays private.
 */
export async function loadLandingOverview(astro: AstroGlobal): Promise<LandingOverview | null> {
  const answer = await readApiForPage<LandingOverview>(astro, '/home/overview');
  if (!astro.response.headers.has('set-cookie')) astro.response.headers.set('Cache-Control', 'public, no-cache');
  astro.response.headers.set('Vary', 'Cookie, Accept-Language');
  return answer.ok ? answer.data : null;
}
