/**
 * Sending a feed: a strong ETag (SHA-256 of the exact bytes) and Last-Modified (the feed's
 * `updated`), answered with 304 when the reader already has them (RFC 9110 13.2.2: a present
 * If-None-Match decides alone; If-Modified-Since counts only without it). HEAD gets the headers
 * of GET (Node sends no body for HEAD).
 *
 * Caching: the bytes depend on the URL alone (the session cookie is never read on feed routes,
 * the language is the instance's or the token owner's), so there is no `Vary`. A public feed may
 * sit in any cache for a minute. A token feed is one person's view behind a secret in the URL:
 * no cache may store it (`private, no-store`; readers still revalidate with the ETag they keep),
 * and no Referer may carry its URL onward.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

export const ATOM_CONTENT_TYPE = 'application/atom+xml; charset=utf-8';
export const PUBLIC_FEED_CACHE_CONTROL = 'public, max-age=60';
export const TOKEN_FEED_CACHE_CONTROL = 'private, no-store';

/** Set before anything can fail, so a token request's 404 is not stored or passed on either. */
export function applyTokenRequestHeaders(res: Response): void {
  res.setHeader('Cache-Control', TOKEN_FEED_CACHE_CONTROL);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
}

export function strongEtag(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`;
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` prefixes do not matter. */
function noneMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === etag);
}

/** Whether the resource is unchanged since the If-Modified-Since date (HTTP dates have whole seconds). */
function notModifiedSince(header: string, lastModified: Date): boolean {
  const since = Date.parse(header);
  if (Number.isNaN(since)) return false;
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

export function isNotModified(req: Request, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return noneMatch(ifNoneMatch, etag);
  const ifModifiedSince = req.headers['if-modified-since'];
  return ifModifiedSince !== undefined && notModifiedSince(ifModifiedSince, lastModified);
}

export function sendFeed(req: Request, res: Response, xml: string, options: { lastModified: Date; viaToken: boolean }): void {
  const bytes = Buffer.from(xml, 'utf8');
  const etag = strongEtag(bytes);
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', options.lastModified.toUTCString());
  res.setHeader('Cache-Control', options.viaToken ? TOKEN_FEED_CACHE_CONTROL : PUBLIC_FEED_CACHE_CONTROL);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (options.viaToken) applyTokenRequestHeaders(res);
  if (isNotModified(req, etag, options.lastModified)) {
    res.status(304).end();
    return;
  }
  res.status(200);
  res.setHeader('Content-Type', ATOM_CONTENT_TYPE);
  res.setHeader('Content-Length', String(bytes.length));
  res.end(bytes);
}
