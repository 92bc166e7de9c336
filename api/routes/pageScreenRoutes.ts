/**
 * `GET /api/v1/-/page-screen?pond=&page=`: everything the app's page screen (`/:pondSlug/:pageSlug`)
 * reads before it renders, in one read. Only for a page render in this process
 * (api/http/inProcessFetch.ts); from anywhere else it is the API's 404, whatever the query, so
 * it is no part of the API's surface.
 *
 * It runs the GET routes the screen read one by one before (`/setup`, `/auth/session`,
 * `/ponds`, then the pond's `/ponds/:id`, `/pages`, `/labels`, `/favorites`, then `/pages/:id`
 * of the page of that slug) through the route table's own steps (`runRoute`: access rule,
 * validation, handler), so each part answers exactly what its route answers, refusals
 * included. What it spares is an HTTP exchange, the middleware and the JSON of each read.
 *
 * Each part is `{ ok: true, data }` or `{ ok: false, status, error }`, as the page reads a
 * route; the pond's parts are null when the caller has no pond of that slug, the page's when
 * the pond has no readable page of that slug.
 */
import { z } from 'zod';
import { sessionCookieAuthentication } from '../auth/authenticateRequest.ts';
import { ApiError } from '../http/apiError.ts';
import { renderReadsOf } from '../http/inProcessFetch.ts';
import { resolveRequestLocale } from '../http/requestLocale.ts';
import { defineRoute, runRoute, type AnyRoute, type RouteContext } from '../http/routeTable.ts';
import { errorMessage } from '../i18n/locale.ts';
import { MAX_FAVORITE_LIST_LIMIT } from '../pages/favorites.ts';
import { MAX_PAGE_LIST_LIMIT } from '../pages/pageListing.ts';
import { authSessionRoutes } from './authSessionRoutes.ts';
import { favoriteRoutes } from './favoriteRoutes.ts';
import { labelRoutes } from './labelRoutes.ts';
import { pageRoutes } from './pageRoutes.ts';
import { pondRoutes } from './pondRoutes.ts';
import { setupRoutes } from './setupRoutes.ts';

export type PartAnswer = { ok: true; data: unknown } | { ok: false; status: number; error: { code: string; message: string; details: unknown } };

/** The page list comes in pages of the route's maximum; a pond holds at most a few thousand. */
const MAX_PAGE_LISTS = 50;
const MAX_SLUG_LENGTH = 200;

/** Any query passes the schema, so the outside gets the same 404 for every request; the handler then asks for both slugs. */
const screenQuery = z.object({ pond: z.string().optional(), page: z.string().optional() });

interface Listed<T> {
  items: T[];
  nextCursor: string | null;
}

interface Summary {
  id: string;
  slug: string;
}

const table: readonly AnyRoute[] = [...setupRoutes, ...authSessionRoutes, ...pondRoutes, ...pageRoutes, ...labelRoutes, ...favoriteRoutes];

function get(path: string): AnyRoute {
  const route = table.find((candidate) => candidate.method === 'get' && candidate.path === path);
  if (!route) throw new Error(`page screen: no GET ${path} among the routes it runs`);
  return route;
}

/** The routes whose answers make the screen. */
const routes = {
  setup: get('/setup'),
  session: get('/auth/session'),
  ponds: get('/ponds'),
  pond: get('/ponds/:id'),
  pages: get('/ponds/:id/pages'),
  labels: get('/ponds/:id/labels'),
  favorites: get('/ponds/:id/favorites'),
  page: get('/pages/:id'),
};

type Context = RouteContext<unknown, unknown, unknown>;

export const pageScreenRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/-/page-screen',
    access: { kind: 'public' },
    query: screenQuery,
    handler: async (context) => {
      if (!renderReadsOf(context.req.socket)) throw new ApiError('not_found');
      const { pond: pondSlug, page: pageSlug } = context.query;
      if (!pondSlug || !pageSlug || pondSlug.length > MAX_SLUG_LENGTH || pageSlug.length > MAX_SLUG_LENGTH) throw new ApiError('invalid_request', 400);
      const part = (route: AnyRoute, params: Record<string, string>, query: Record<string, string> = {}) => answerOf(context, route, params, query);
      const [setup, session, ponds] = await Promise.all([part(routes.setup, {}), part(routes.session, {}), part(routes.ponds, {})]);
      const pond = ponds.ok ? (ponds.data as Listed<Summary>).items.find((candidate) => candidate.slug.toLowerCase() === pondSlug.toLowerCase()) : undefined;
      if (!pond) return { body: { setup, session, ponds, pond: null, pages: null, labels: null, favorites: null, page: null } };
      const id = { id: pond.id };
      const [detail, pages, labels, favorites] = await Promise.all([
        part(routes.pond, id),
        allPages(context, pond.id),
        part(routes.labels, id),
        part(routes.favorites, id, { limit: String(MAX_FAVORITE_LIST_LIMIT) }),
      ]);
      const summary = pages.ok ? (pages.data as Listed<Summary>).items.find((candidate) => candidate.slug.toLowerCase() === pageSlug.toLowerCase()) : undefined;
      const page = summary ? await part(routes.page, { id: summary.id }) : null;
      return { body: { setup, session, ponds, pond: detail, pages, labels, favorites, page } };
    },
  }),
];

/** One route's answer as the page would have read it: its body, or its refusal in the caller's language. */
async function answerOf(context: Context, route: AnyRoute, params: Record<string, string>, query: Record<string, string>): Promise<PartAnswer> {
  try {
    const result = await runRoute(route, { req: context.req, res: context.res, services: context.services, authenticator: sessionCookieAuthentication, params, query });
    return { ok: true, data: result?.body ?? null };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const locale = await resolveRequestLocale(context.req);
    return { ok: false, status: error.status, error: { code: error.code, message: errorMessage(error.code, locale), details: error.details } };
  }
}

/** Every readable page of the pond, its list read to the end. */
async function allPages(context: Context, pondId: string): Promise<PartAnswer> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  for (let list = 0; list < MAX_PAGE_LISTS; list += 1) {
    const listed = await answerOf(context, routes.pages, { id: pondId }, { limit: String(MAX_PAGE_LIST_LIMIT), ...(cursor ? { cursor } : {}) });
    if (!listed.ok) return listed;
    const { items: more, nextCursor } = listed.data as Listed<unknown>;
    items.push(...more);
    cursor = nextCursor;
    if (!cursor) break;
  }
  return { ok: true, data: { items, nextCursor: null } };
}
