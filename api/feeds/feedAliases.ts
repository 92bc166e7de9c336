/**
 * Feeds at the URL people guess: `/<pond>/feed.xml` and `/<pond>/<page>/feed.xml` answer what
 * the spec's `/api/v1/public/<pond>/feed.xml` and `/api/v1/public/<pond>/<page>/feed.xml`
 * answer, byte for byte: the request is handed to the same API router with the canonical path,
 * so status, headers (type, ETag, Last-Modified, caching, token policy), body, 304s and the 404
 * come from one place and cannot drift apart. The feed's `rel=self` stays the canonical URL.
 *
 * No collision with pages: a page slug is lowercase letters, digits and hyphens (slugs.ts), so
 * `feed.xml` is never a page slug, and `/<pond>/<page>/feed.xml` is deeper than any page URL.
 * Reserved first segments (`api`, `legal`, …) are never ponds and are left alone.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isReservedPondSlug } from '../ponds/reservedSlugs.ts';

const SEGMENT = /^[^/?#]+$/;

/** The canonical feed path under `/api/v1` for an alias path, or null when it is none. */
export function canonicalFeedPath(pathname: string): string | null {
  const parts = pathname.split('/');
  if (parts[0] !== '' || parts.at(-1) !== 'feed.xml') return null;
  const slugs = parts.slice(1, -1);
  if (slugs.length < 1 || slugs.length > 2 || !slugs.every((slug) => SEGMENT.test(slug))) return null;
  if (isReservedPondSlug(safeDecode(slugs[0]!))) return null;
  return `/public/${slugs.join('/')}/feed.xml`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Mount on the app: `apiRouter` is the router mounted at `/api/v1`. */
export function feedAliases(apiRouter: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const url = req.url;
    const queryAt = url.indexOf('?');
    const canonical = canonicalFeedPath(queryAt < 0 ? url : url.slice(0, queryAt));
    if (!canonical) return next();
    req.url = canonical + (queryAt < 0 ? '' : url.slice(queryAt));
    // Unmatched after all (cannot happen for these shapes, but never hand on a rewritten URL).
    apiRouter(req, res, (error?: unknown) => {
      req.url = url;
      next(error);
    });
  };
}
