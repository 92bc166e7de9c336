/**
 * Mounts the Astro site (built into site/dist by scripts/build-site.ts) behind the API
 * routers: static assets first, then the setup gate, then Astro's page handler.
 *
 * Content-Security-Policy: `securityHeaders` gives every response a policy under which
 * nothing may run, which is right for JSON, files and redirects. Astro renders each page
 * with its own policy as a response header (configured in astro.config.mjs: 'self' plus
 * SHA-256 hashes of the inline island bootstrap scripts it emits). Astro writes its
 * headers with `writeHead`, which takes precedence over headers set earlier with
 * `setHeader`, so an HTML page carries exactly Astro's policy.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express, { type Express, type Request } from 'express';
import { createInProcessFetch, type InProcessFetch, type RenderReads } from './inProcessFetch.ts';
import { precompressedAssets } from './precompressedAssets.ts';

const SITE_DIST = fileURLToPath(new URL('../../site/dist/', import.meta.url));
const CLIENT_DIR = path.join(SITE_DIST, 'client');
const SERVER_ENTRY = path.join(SITE_DIST, 'server', 'entry.mjs');

const SETUP_PATH = '/setup';
/** Vite's content-hashed bundles: a changed file gets a new name, so browsers may keep them forever. */
const HASHED_ASSETS_PATH = '/_astro';

/** The node adapter's middleware-mode handler (`@astrojs/node`, `mode: 'middleware'`). */
type AstroHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
  locals?: SiteLocals,
) => Promise<void>;

/** What pages find in `Astro.locals`; declared for them in site/src/env.d.ts. */
interface SiteLocals {
  apiOrigin: string;
  fetchApi: InProcessFetch;
}

export interface MountSiteOptions {
  isSetupComplete: () => Promise<boolean>;
  /** Work for a page render's reads that may start as its request arrives (inProcessFetch.ts). */
  beforeRender?: (render: RenderReads, cookieHeader: string | undefined) => void;
}

/** The URL paths of the built site's files outside `/_astro` (the build's `public/`), fixed once built. */
function unhashedPublicFiles(): Set<string> {
  const files = readdirSync(CLIENT_DIR, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const paths = files.map((entry) => `/${path.relative(CLIENT_DIR, path.join(entry.parentPath, entry.name)).split(path.sep).join('/')}`);
  return new Set(paths.filter((urlPath) => !urlPath.startsWith(`${HASHED_ASSETS_PATH}/`)));
}

export async function mountSite(app: Express, options: MountSiteOptions): Promise<void> {
  if (!existsSync(SERVER_ENTRY)) {
    throw new Error(`The site is not built: ${SERVER_ENTRY} is missing. Run \`node scripts/build-site.ts\`.`);
  }
  const { handler } = (await import(pathToFileURL(SERVER_ENTRY).href)) as { handler: AstroHandler };

  app.use(HASHED_ASSETS_PATH, precompressedAssets(path.join(CLIENT_DIR, '_astro')));
  app.use(HASHED_ASSETS_PATH, express.static(path.join(CLIENT_DIR, '_astro'), { immutable: true, maxAge: '365d', index: false, redirect: false }));
  // Unhashed public files (favicon) may change with a release; revalidate hourly. Only their
  // own paths go to the file system: a page's path would cost every page render a failed stat.
  const publicFiles = unhashedPublicFiles();
  const servePublicFile = express.static(CLIENT_DIR, { maxAge: '1h', index: false, redirect: false });
  app.use((req, res, next) => (publicFiles.has(req.path) ? servePublicFile(req, res, next) : next()));

  const inProcess = createInProcessFetch(app, { beforeRender: options.beforeRender });
  app.use(async (req, res, next) => {
    // Pages answer GET and HEAD only; a missing hashed asset must not turn into a page.
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path.startsWith(`${HASHED_ASSETS_PATH}/`)) {
      next();
      return;
    }
    try {
      const setupComplete = await options.isSetupComplete();
      const onSetupPage = req.path === SETUP_PATH || req.path === `${SETUP_PATH}/`;
      if (setupComplete === onSetupPage) {
        // Where this redirect points depends on state that changes once; never cache it.
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(302, setupComplete ? '/' : SETUP_PATH);
        return;
      }
      // No `next`: paths without a page render the site's own 404 page.
      await handler(req, res, undefined, { apiOrigin: loopbackOrigin(req), fetchApi: inProcess.forRender(req.id, req.headers.cookie) });
    } catch (error) {
      next(error);
    }
  });
}

/**
 * The address this very server was reached on, seen from inside: pages read the API
 * through it, whatever public host name or proxy sits in front.
 */
function loopbackOrigin(req: Request): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort}`;
}
