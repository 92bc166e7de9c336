/**
 * What the app's pond screens read before they render: the pond (by slug, among the caller's
 * ponds) and every page of it the caller may read, through the same `/api/v1` the browser
 * uses. Also the way back to the public layer: a request that carried a session cookie
 * skipped the hot path (publicHotPath.ts), so when that session turns out to be gone, the
 * visitor's document is fetched from the hot path as a visitor would get it.
 */
import type { AstroGlobal } from 'astro';
import type { FavoriteView, LabelSummaryView, ListView, PageDetailView, PageSummaryView, PondSummaryView, PondView, SetupStateView, SidebarView, UserView } from '../../../editor/src/api/apiViews.ts';
import { OPEN_BRANCHES_COOKIE, openFromCookie } from '../../../editor/src/pages/openBranches.ts';
import { SIDEBAR_COOKIE, sidebarChoiceFor } from '../../../editor/src/pages/sidebarChoice.ts';
import { packSidebarPages } from '../../../editor/src/pages/sidebarPages.ts';
import { readApiForPage, type PageApiResult } from './apiForPage.ts';
import { loadPageContext, pageContextFrom, type PageContext } from './pageContext.ts';

/** The page list is read in pages of the API's maximum; a pond holds at most a few thousand. */
const PAGE_LIST_LIMIT = 1000;
const MAX_LIST_REQUESTS = 50;

export interface AppPond {
  pond: PondSummaryView;
  ponds: PondSummaryView[];
  pages: PageSummaryView[];
  /** `pages` packed for islands (sidebarPages.ts), once per request for every island that offers them. */
  pagesData: string;
  /** The pond's labels in tree order (for the sidebar's grouping and the page's chips). */
  labels: LabelSummaryView[];
  /** The caller's starred pages of this pond that they may still read. */
  favorites: FavoriteView[];
  /** What the public may read of the pond (`GET /ponds/:id`); null also when that read failed. */
  publicReading: PondView['publicReading'];
  /** How the sidebar shows the pages: this browser's choice for the pond, else the pond's default. */
  sidebarView: SidebarView;
  /** The tree's branches opened in this browser as its cookie tells them, or null when it is about another pond. */
  openBranches: string[] | null;
}

const FAVORITES_SHOWN = 500;

/**
 * What every pond screen starts with: who asks and the pond, read at once rather than one after
 * the other (for a visitor the API refuses the pond reads, and they are dropped). `app` is null
 * for a visitor and for someone who is no member of a pond of that slug.
 */
export async function loadPondScreen(astro: AstroGlobal): Promise<{ context: PageContext; app: AppPond | null }> {
  const [context, app] = await Promise.all([loadPageContext(astro), loadAppPond(astro, astro.params.pondSlug ?? '')]);
  return { context, app: context.user ? app : null };
}

/** The pond and its readable pages, or null when the caller is no member of a pond of that slug. */
export async function loadAppPond(astro: AstroGlobal, pondSlug: string): Promise<AppPond | null> {
  const ponds = await readApiForPage<ListView<PondSummaryView>>(astro, '/ponds');
  if (!ponds.ok) return null;
  const pond = ponds.data.items.find((candidate) => candidate.slug.toLowerCase() === pondSlug.toLowerCase());
  if (!pond) return null;
  const [pages, detail, labels, favorites] = await Promise.all([
    readAllPages(astro, pond.id),
    readApiForPage<PondView>(astro, `/ponds/${pond.id}`),
    readApiForPage<ListView<LabelSummaryView>>(astro, `/ponds/${pond.id}/labels`),
    readApiForPage<ListView<FavoriteView>>(astro, `/ponds/${pond.id}/favorites?limit=${FAVORITES_SHOWN}`),
  ]);
  return appPondFrom(astro, ponds.data.items, pond, pages, detail, labels, favorites);
}

function appPondFrom(
  astro: AstroGlobal,
  ponds: PondSummaryView[],
  pond: PondSummaryView,
  pages: PageSummaryView[] | null,
  detail: PageApiResult<PondView>,
  labels: PageApiResult<ListView<LabelSummaryView>>,
  favorites: PageApiResult<ListView<FavoriteView>>,
): AppPond | null {
  if (!pages) return null;
  const pondDefault = detail.ok ? detail.data.settings.sidebarView : 'tree';
  return {
    pond,
    ponds,
    pages,
    pagesData: packSidebarPages(pages),
    labels: labels.ok ? labels.data.items : [],
    favorites: favorites.ok ? favorites.data.items : [],
    publicReading: detail.ok ? detail.data.publicReading : null,
    sidebarView: sidebarChoiceFor(astro.cookies.get(SIDEBAR_COOKIE)?.value ?? '', pond.id) ?? pondDefault,
    openBranches: openFromCookie(astro.cookies.get(OPEN_BRANCHES_COOKIE)?.value ?? '', pond.id, pages.map((page) => page.id)),
  };
}

/** What `GET /-/page-screen` answers (api/routes/pageScreenRoutes.ts): each part as its own route answers it. */
interface PageScreenAnswer {
  setup: PageApiResult<SetupStateView>;
  session: PageApiResult<{ user: UserView | null }>;
  ponds: PageApiResult<ListView<PondSummaryView>>;
  pond: PageApiResult<PondView> | null;
  pages: PageApiResult<ListView<PageSummaryView>> | null;
  labels: PageApiResult<ListView<LabelSummaryView>> | null;
  favorites: PageApiResult<ListView<FavoriteView>> | null;
  page: PageApiResult<PageDetailView> | null;
}

/**
 * The page screen's reads (`/:pondSlug/:pageSlug`): who asks, the pond as `loadPondScreen` has
 * it, and the detail of the pond's page of that slug (null when it has none the caller may
 * read). One read when the API runs in this process (`/-/page-screen`, which runs the same
 * routes without an HTTP exchange each); otherwise, or when that read fails, the routes one by
 * one.
 */
export async function loadPageScreen(astro: AstroGlobal, pondSlug: string, pageSlug: string): Promise<{ context: PageContext; app: AppPond | null; detail: PageApiResult<PageDetailView> | null }> {
  const screen = astro.locals.fetchApi ? await readApiForPage<PageScreenAnswer>(astro, `/-/page-screen?${new URLSearchParams({ pond: pondSlug, page: pageSlug })}`) : null;
  if (!screen?.ok) {
    const { context, app } = await loadPondScreen(astro);
    const summary = app?.pages.find((page) => page.slug.toLowerCase() === pageSlug.toLowerCase());
    return { context, app, detail: summary ? await readApiForPage<PageDetailView>(astro, `/pages/${summary.id}`) : null };
  }
  const parts = screen.data;
  const context = pageContextFrom(astro, parts.setup, parts.session);
  const ponds = parts.ponds.ok ? parts.ponds.data.items : [];
  const pond = ponds.find((candidate) => candidate.slug.toLowerCase() === pondSlug.toLowerCase());
  if (!context.user || !pond || !parts.pond || !parts.pages || !parts.labels || !parts.favorites) return { context, app: null, detail: null };
  const app = appPondFrom(astro, ponds, pond, parts.pages.ok ? parts.pages.data.items : null, parts.pond, parts.labels, parts.favorites);
  return { context, app, detail: parts.page };
}

async function readAllPages(astro: AstroGlobal, pondId: string): Promise<PageSummaryView[] | null> {
  const pages: PageSummaryView[] = [];
  let cursor: string | null = null;
  for (let request = 0; request < MAX_LIST_REQUESTS; request++) {
    const query = new URLSearchParams({ limit: String(PAGE_LIST_LIMIT) });
    if (cursor) query.set('cursor', cursor);
    const listed = await readApiForPage<ListView<PageSummaryView>>(astro, `/ponds/${pondId}/pages?${query}`);
    if (!listed.ok) return null;
    pages.push(...listed.data.items);
    cursor = listed.data.nextCursor;
    if (!cursor) break;
  }
  return pages;
}

const PASSED_ON_HEADERS = ['content-type', 'content-security-policy', 'etag', 'last-modified', 'cache-control', 'vary', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-opener-policy'];

/**
 * The public document at this address as a visitor gets it, or null. Only for requests that
 * carried a session cookie: without one the hot path has answered already, and asking it
 * again would come back here.
 */
export async function publicDocumentForVisitor(astro: AstroGlobal): Promise<Response | null> {
  if (!(astro.request.headers.get('cookie') ?? '').includes('dt_session=')) return null;
  const origin = astro.locals.apiOrigin ?? astro.url.origin;
  let response: Response;
  try {
    response = await fetch(`${origin}${astro.url.pathname}`, { headers: { accept: 'text/html', 'accept-encoding': 'identity', 'accept-language': astro.request.headers.get('accept-language') ?? '' }, redirect: 'manual' });
  } catch {
    return null;
  }
  if (response.status !== 200) return null;
  const headers = new Headers();
  for (const name of PASSED_ON_HEADERS) {
    const value = response.headers.get(name);
    if (value) headers.set(name, value);
  }
  return new Response(await response.arrayBuffer(), { status: 200, headers });
}
