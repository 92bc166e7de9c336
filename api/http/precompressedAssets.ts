/**
 * Serves Vite's hashed bundles (`/_astro/…`) in their brotli or gzip form, written next to
 * them at build time (scripts/build-site.ts), so a browser downloads the app's scripts and
 * styles compressed without the server compressing per request. Falls through to the plain
 * file (express.static) when the client takes neither coding or no variant exists.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { chooseEncoding } from '../publicPages/publicHotPath.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};
const SUFFIX = { br: '.br', gzip: '.gz' } as const;

export function precompressedAssets(directory: string): (req: Request, res: Response, next: NextFunction) => void {
  const root = path.resolve(directory);
  /** Whether a variant file exists; the bundle directory only changes with a new build and restart. */
  const present = new Map<string, boolean>();
  const exists = (file: string) => {
    let known = present.get(file);
    if (known === undefined) present.set(file, (known = existsSync(file)));
    return known;
  };
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const type = CONTENT_TYPES[path.extname(req.path)];
    let file: string;
    try {
      file = path.resolve(root, `.${decodeURIComponent(req.path)}`);
    } catch {
      return next(); // A malformed escape: express.static answers it.
    }
    if (!type || !file.startsWith(`${root}${path.sep}`)) return next();
    const encoding = chooseEncoding(req.headers['accept-encoding']);
    // Every answer here depends on Accept-Encoding, also the plain one express.static gives.
    res.vary('Accept-Encoding');
    if (encoding === 'identity' || !exists(`${file}${SUFFIX[encoding]}`)) return next();
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Encoding', encoding);
    res.sendFile(`${file}${SUFFIX[encoding]}`, { immutable: true, maxAge: '365d', dotfiles: 'deny' }, (error) => error && next());
  };
}
