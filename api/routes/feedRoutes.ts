/**
 * Atom feeds (spec: Comments, watches, notifications, feeds; Feed rules; Authentication 5):
 * a pond's recently changed pages and a page's version history, for the public or, with
 * `?token=<feed token>`, for the token's owner. The rules live in api/feeds/.
 *
 * The routes skip session authentication: a feed is never a signed-in view (the cookie is not
 * read, no cookie is refreshed, so a shared cache may keep a public feed), and the feed token is
 * read here and nowhere else. These entries must come before any `/public/:pondSlug/:pageSlug`
 * route: slugs never contain a dot, so `feed.xml` is never a page slug, but the router would
 * still hand it to such a route as one.
 */
import type { Request, Response } from 'express';
import type { Sequelize } from 'sequelize';
import { renderAtomFeed, type AtomFeed } from '../feeds/atomXml.ts';
import { resolveFeedReader, type FeedReader } from '../feeds/feedAccess.ts';
import { findLivePond, findReadablePage } from '../pages/slugLookup.ts';
import { applyTokenRequestHeaders, sendFeed } from '../feeds/feedResponse.ts';
import { publicBaseUrl } from '../feeds/feedUrls.ts';
import { buildPageFeed } from '../feeds/pageFeed.ts';
import { buildPondFeed } from '../feeds/pondFeed.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';

interface FeedFrame {
  reader: FeedReader;
  baseUrl: string;
  instanceName: string;
}

/** The reader behind the request (404 for a bad token) and what every feed names. */
async function feedFrame(req: Request, res: Response, services: AppServices): Promise<FeedFrame> {
  const token = req.query['token'];
  // Before anything can fail: a 404 for a token URL is no more cacheable than the feed.
  if (token !== undefined) applyTokenRequestHeaders(res);
  const reader = await resolveFeedReader(services.sequelize, token);
  return { reader, baseUrl: await publicBaseUrl(services), instanceName: await getSetting('instance.name') };
}

function send(req: Request, res: Response, frame: FeedFrame, feed: AtomFeed): void {
  sendFeed(req, res, renderAtomFeed(feed), { lastModified: feed.updated, viaToken: frame.reader.viaToken });
}

async function pondFeed(sequelize: Sequelize, frame: FeedFrame, pondSlug: string): Promise<AtomFeed> {
  const { pond, access } = await findLivePond(sequelize, frame.reader.subject, pondSlug);
  return buildPondFeed(sequelize, { pond, access, baseUrl: frame.baseUrl, locale: frame.reader.locale, instanceName: frame.instanceName });
}

async function pageFeed(sequelize: Sequelize, frame: FeedFrame, pondSlug: string, pageSlug: string): Promise<AtomFeed> {
  const { pond, access } = await findLivePond(sequelize, frame.reader.subject, pondSlug);
  const page = await findReadablePage(pond, access, pageSlug);
  return buildPageFeed(sequelize, { pond, page, baseUrl: frame.baseUrl, locale: frame.reader.locale, instanceName: frame.instanceName });
}

export const feedRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/public/:pondSlug/feed.xml',
    access: { kind: 'public' },
    skipAuthentication: true,
    handler: async ({ req, res, params, services }) => {
      const frame = await feedFrame(req, res, services);
      send(req, res, frame, await pondFeed(services.sequelize, frame, params.pondSlug));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/public/:pondSlug/:pageSlug/feed.xml',
    access: { kind: 'public' },
    skipAuthentication: true,
    handler: async ({ req, res, params, services }) => {
      const frame = await feedFrame(req, res, services);
      send(req, res, frame, await pageFeed(services.sequelize, frame, params.pondSlug, params.pageSlug));
    },
  }),
];
