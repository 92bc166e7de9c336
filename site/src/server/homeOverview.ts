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
