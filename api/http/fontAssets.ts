/**
 * Serves the catalog's font files under `/assets/fonts/` from the installed `@fontsource/*`
 * packages, with plain node:http request and response objects, so the public hot path can
 * answer before Express (and Express mounts it too, see api/app.ts).
 *
 * Only URLs that api/publicPages/fontFaces.ts hands out are served: the request path must be
 * exactly one of them (no decoding, no joining of paths), anything else under the prefix is a
 * 404. Each URL carries its package version, so the response is cached for a year as immutable.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FONT_ASSET_PREFIX, webFontFiles } from '../publicPages/fontFaces.ts';

interface FontAsset {
  body: Buffer;
  etag: string;
}

let allowList: ReadonlyMap<string, string> | null = null;
const loaded = new Map<string, FontAsset>();

/** The file behind an allowed URL path, read once and kept (a face is 10–60 KB, the catalog a few MB). */
function assetFor(urlPath: string): FontAsset | null {
  const cached = loaded.get(urlPath);
  if (cached) return cached;
  allowList ??= webFontFiles();
  const filePath = allowList.get(urlPath);
  if (!filePath) return null;
  const body = readFileSync(filePath);
  const asset = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  loaded.set(urlPath, asset);
  return asset;
}

/** True when `If-None-Match` names this ETag (a list, weak forms, or `*`). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

function answerPlain(res: ServerResponse, status: number, text: string, extraHeaders: Record<string, string> = {}): void {
  const body = Buffer.from(text, 'utf8');
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    ...extraHeaders,
  });
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

/**
 * Answers a request under `/assets/fonts/` and returns true; returns false (touching
 * nothing) for any other path, so the caller goes on with its own routing.
 */
export function serveFontAsset(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '';
  const queryStart = url.indexOf('?');
  const urlPath = queryStart === -1 ? url : url.slice(0, queryStart);
  if (!urlPath.startsWith(FONT_ASSET_PREFIX)) return false;

  if (req.method !== 'GET' && req.method !== 'HEAD') {
    answerPlain(res, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    return true;
  }
  const asset = assetFor(urlPath);
  if (!asset) {
    answerPlain(res, 404, 'Not Found');
    return true;
  }
  const headers: Record<string, string> = {
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: asset.etag,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
  if (matchesEtag(req.headers['if-none-match'], asset.etag)) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  res.writeHead(200, { ...headers, 'Content-Type': 'font/woff2', 'Content-Length': String(asset.body.length) });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
  return true;
}
