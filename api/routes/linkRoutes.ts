/**
 * Wikilinks: a page's backlinks, a pond's phantom (missing-target) links (all of them, or the
 * one of a slug for the missing-page screen) and its link graph.
 * Members only (a session): where an anonymous caller may see the page or pond through a
 * public grant it gets 401; where it may not, 404 as anyone else, so existence stays hidden.
 * Every answer is the caller's readable slice (api/pages/linkGraph.ts).
 */
import { z } from 'zod';
import { backlinkCursor, phantomCursor } from '../http/cursorCodec.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { notFound } from '../http/apiError.ts';
import { DEFAULT_LINK_LIST_LIMIT, findPhantomLink, listBacklinks, listPhantomLinks, loadLinkGraph, MAX_LINK_LIST_LIMIT } from '../pages/linkGraph.ts';

const limitField = z.coerce.number().int().min(1).max(MAX_LINK_LIST_LIMIT).default(DEFAULT_LINK_LIST_LIMIT);

const backlinksQuery = z.object({ limit: limitField, cursor: backlinkCursor.field });
const phantomLinksQuery = z.object({ limit: limitField, cursor: phantomCursor.field });

export const linkRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/pages/:id/backlinks',
    access: { kind: 'page', capability: 'read', session: true },
    query: backlinksQuery,
    handler: async ({ query, resource, services }) => ({
      body: await listBacklinks(services.sequelize, resource.access, resource.page.id, { limit: query.limit, cursor: query.cursor ?? null }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/phantom-links',
    access: { kind: 'pond', capability: 'visible', session: true },
    query: phantomLinksQuery,
    handler: async ({ query, resource, services }) => ({
      body: await listPhantomLinks(services.sequelize, resource.access, { limit: query.limit, cursor: query.cursor ?? null }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/phantom-links/:slug',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ params, resource, services }) => {
      // No readable page links there (a text that is no slug never matches a link's target slug): as for anything else the caller cannot see, a 404.
      const found = await findPhantomLink(services.sequelize, resource.access, params.slug);
      if (!found) throw notFound();
      return { body: found };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/links',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ resource, services }) => ({ body: await loadLinkGraph(services.sequelize, resource.access) }),
  }),
];
