/**
 * The public hot path: answers requests for generated public documents before the Express
 * router and Astro ever see them. A cache hit is a Map lookup and one `writeHead` + `end`
 * with headers built once per entry and representation (on its first request); a miss reads
 * the stored row (generating it once when storage has none, publicDocumentService.ts) and
 * caches it.
 *
 * Served here (GET and HEAD):
 *   /                                  the landing page, visitors only (a session cookie gets the
 *                                      member's home from Astro): the stored document of the locale
 *                                      `Accept-Language` asks for, as every screen negotiates it
 *                                      (localeFromAcceptLanguage), else the instance default's
 *   /:pond, /:pond/:page               visitors only: a session cookie gets the app (Astro) there
 *   /legal/imprint, /legal/privacy     legal pages (also /api/v1/legal/:kind; setup-exempt)
 *   /:pond                             the pond's public index
 *   /:pond/:page                       the page (`Accept: text/markdown` → its Markdown, for everyone)
 *   /:pond/:page.md                    the page's Markdown
 *   /api/v1/public/:pond/:page         the same HTML bytes
 *   /api/v1/public/:pond/:page/content JSON for a single-page client
 * Anything else, and any document the public may not read, goes on to Express (`next`), which
 * answers the localized 404 — the same for a missing and a private page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOCALES, localeFromAcceptLanguage, type Locale } from '../i18n/locale.ts';
import type { Logger } from '../logger.ts';
import { isReservedPondSlug } from '../ponds/reservedSlugs.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { isSetupComplete } from '../setup/setupState.ts';
import { toCachedDocument, type CachedDocument, type Encoding, type PublicDocumentCache } from './publicDocumentCache.ts';
import { compressDocument, landingPath } from './publicDocumentGenerator.ts';
import { storeCompressedVariant } from './publicDocumentStore.ts';
import { documentAtPath, type GenerationContext } from './publicDocumentService.ts';

/** No script source at all: the documents carry none. Inline styles only for the layout's own block. */
export const PUBLIC_DOCUMENT_CSP =
  "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SESSION_COOKIE = 'dt_session=';
/** The hot path remembers the targets of this many URLs of at most this length (see createPublicHotPath). */
const MEMO_TARGETS = 1_000;
const MEMO_URL_LENGTH = 512;
const SLUG = /^[a-z0-9][a-z0-9-]{0,199}$/;

type Representation = 'html' | 'markdown' | 'content';

/** Shared between requests of the same URL (see createPublicHotPath): never changed once made. */
interface Target {
  readonly path: string;
  readonly representation: Representation;
  /** The human page URL negotiates Markdown through `Accept`. */
  readonly negotiates: boolean;
  readonly setupExempt: boolean;
  /**
   * A session cookie gets the app at this URL instead (`/`, `/:pond`, `/:pond/:page`): every
   * answer there, document, 404 or app, says `Vary: Cookie` so no cache hands one to the other.
   */
  readonly cookieDecides: boolean;
  /** The landing page: `Accept-Language` picks the stored document (`Vary: Accept-Language`). */
  readonly languageDecides: boolean;
}

/** `/` for a visitor, before the language is known; the handler swaps in LANDING_TARGETS[locale]. */
const LANDING: Target = { path: '', representation: 'html', negotiates: false, setupExempt: false, cookieDecides: true, languageDecides: true };
// A target per locale (not a text table: api/i18n holds the texts).
const LANDING_TARGETS = Object.fromEntries(LOCALES.map((locale) => [locale, { ...LANDING, path: landingPath(locale) }])) as { [locale in Locale]: Target };
/** What the app's `/` for a member varies by too: the visitor's document there varies by both. */
const LANDING_APP_VARY = 'Accept-Language, Cookie';
/** Distinct `Accept-Language` values whose verdict is remembered (browsers send a handful). */
const MEMO_LANGUAGES = 1_000;

/** What a request path asks for, or null when the hot path has nothing to do with it. */
export function targetOf(url: string, hasSession: boolean, accept: string | undefined): Target | null {
  const query = url.indexOf('?');
  const raw = (query < 0 ? url : url.slice(0, query)).toLowerCase();
  if (raw === '/') return hasSession ? null : LANDING;
  const parts = raw.split('/');
  parts.shift();
  if (parts[0] === 'legal' || (parts[0] === 'api' && parts[1] === 'v1' && parts[2] === 'legal')) {
    const kind = parts.at(-1);
    const depth = parts[0] === 'legal' ? 2 : 4;
    if (parts.length !== depth || (kind !== 'imprint' && kind !== 'privacy')) return null;
    return { path: `/legal/${kind}`, representation: 'html', negotiates: false, setupExempt: true, cookieDecides: false, languageDecides: false };
  }
  if (parts[0] === 'api') {
    if (parts[1] !== 'v1' || parts[2] !== 'public') return null;
    const [, , , pond, page, extra, more] = parts;
    if (more !== undefined || !pond || !page || !SLUG.test(pond) || !SLUG.test(page)) return null;
    if (extra !== undefined && extra !== 'content') return null;
    return { path: `/${pond}/${page}`, representation: extra === 'content' ? 'content' : 'html', negotiates: false, setupExempt: false, cookieDecides: false, languageDecides: false };
  }
  if (parts.length > 2 || isReservedPondSlug(parts[0]!)) return null;
  const [pond, page] = parts;
  if (!SLUG.test(pond!)) return null;
  // A signed-in member gets the app at the same URL (Astro); its Markdown stays public here.
  if (page === undefined || page === '') return hasSession ? null : { path: `/${pond}`, representation: 'html', negotiates: false, setupExempt: false, cookieDecides: true, languageDecides: false };
  const markdownFile = page.endsWith('.md');
  const slug = markdownFile ? page.slice(0, -3) : page;
  if (!SLUG.test(slug)) return null;
  const wantsMarkdown = markdownFile || prefersMarkdown(accept);
  if (hasSession && !wantsMarkdown) return null;
  return { path: `/${pond}/${slug}`, representation: wantsMarkdown ? 'markdown' : 'html', negotiates: !markdownFile, setupExempt: false, cookieDecides: !markdownFile, languageDecides: false };
}

/** `Accept: text/markdown` without HTML preferred over it (a browser's Accept lists text/html first). */
function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept || !accept.includes('text/markdown')) return false;
  const html = qualityOf(accept, 'text/html');
  return qualityOf(accept, 'text/markdown') > html;
}

function qualityOf(header: string, token: string): number {
  for (const part of header.split(',')) {
    const [name, ...parameters] = part.trim().split(';');
    if (name!.trim().toLowerCase() !== token) continue;
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    return Number.isFinite(value) ? value : 0;
  }
  return 0;
}

const LISTS_BR = /(?:^|,)[ \t]*br[ \t]*(?:,|$)/i;
const LISTS_GZIP = /(?:^|,)[ \t]*gzip[ \t]*(?:,|$)/i;

/** br, then gzip, then identity; a coding listed with q=0 is refused. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  // Without q-values (what browsers send) every listed coding is wanted: no parsing on the hot path.
  if (!acceptEncoding.includes(';')) return LISTS_BR.test(acceptEncoding) ? 'br' : LISTS_GZIP.test(acceptEncoding) ? 'gzip' : 'identity';
  if (acceptEncoding.includes('br') && qualityOf(acceptEncoding, 'br') > 0) return 'br';
  if (acceptEncoding.includes('gzip') && qualityOf(acceptEncoding, 'gzip') > 0) return 'gzip';
  return 'identity';
}

const ETAG_SUFFIX: Record<Encoding, string> = { br: '-br', gzip: '-gz', identity: '' };

function variantEtag(etag: string, suffix: string): string {
  return suffix === '' ? etag : `${etag.slice(0, -1)}${suffix}"`;
}

/** If-None-Match against any encoding's ETag of the same bytes (RFC 9110 weak comparison). */
function matchesEtag(ifNoneMatch: string, base: string): boolean {
  const bare = base.slice(1, -1);
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim().replace(/^W\//, '');
    if (tag === '*') return true;
    const value = tag.slice(1, -1);
    if (value === bare || value === `${bare}-br` || value === `${bare}-gz` || value === `${bare}-md` || value === `${bare}-json`) return true;
  }
  return false;
}

function baseHeaders(https: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Security-Policy': PUBLIC_DOCUMENT_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    // Revalidated on every view (a 304 is cheap): a revoked page must not live on in caches.
    'Cache-Control': 'public, no-cache',
  };
  if (https) headers['Strict-Transport-Security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

/**
 * One representation of a cached document (HTML in one encoding, Markdown or JSON) with its
 * 200 and 304 headers built once, on its first request: a hit writes them as they are.
 */
interface Variant {
  etag: string;
  ok: Record<string, string | number>;
  notModified: Record<string, string | number>;
  body: Buffer;
  lastModifiedMs: number;
}

/**
 * The HTML in `encoding`. Generation leaves the compressed variants empty (encodeDocument in
 * publicDocumentGenerator.ts: most generated documents are replaced before anyone asks for
 * them), so the first request for one compresses it here — the same bytes generation would
 * have made, so its ETag, Content-Length and every other header are the same too — and keeps
 * it for the entry's later requests (`compressed`).
 */
type CompressedVariant = (entry: CachedDocument, encoding: 'br' | 'gzip', bytes: Buffer) => void;

function htmlBody(entry: CachedDocument, encoding: Encoding, compressed: CompressedVariant): Buffer {
  const stored = entry.body[encoding];
  if (encoding === 'identity' || stored.length > 0) return stored;
  // Copied into an allocation of exactly its size, as the cache copies stored bytes
  // (toCachedDocument): zlib's result may be a view of a larger one, which the budget would miss.
  const made = compressDocument(entry.body.identity, encoding);
  const bytes = Buffer.allocUnsafeSlow(made.length);
  made.copy(bytes);
  compressed(entry, encoding, bytes);
  return bytes;
}

function buildVariant(entry: CachedDocument, target: Target, encoding: Encoding, common: Record<string, string>, compressed: CompressedVariant): Variant | null {
  let body: Buffer;
  let type: string;
  let etag: string;
  let contentEncoding: Encoding = 'identity';
  if (target.representation === 'html') {
    body = htmlBody(entry, encoding, compressed);
    type = 'text/html; charset=utf-8';
    etag = variantEtag(entry.etag, ETAG_SUFFIX[encoding]);
    contentEncoding = encoding;
  } else if (target.representation === 'markdown') {
    if (!entry.markdown) return null;
    body = entry.markdown;
    type = 'text/markdown; charset=utf-8';
    etag = variantEtag(entry.etag, '-md');
  } else {
    if (!entry.content) return null;
    body = entry.content;
    type = 'application/json; charset=utf-8';
    etag = variantEtag(entry.etag, '-json');
  }
  const vary = `${target.negotiates ? 'Accept, ' : ''}${target.languageDecides ? 'Accept-Language, ' : ''}${target.cookieDecides ? 'Cookie, ' : ''}Accept-Encoding`;
  const notModified: Record<string, string | number> = { ...common, 'Content-Type': type, ETag: etag, 'Last-Modified': entry.lastModified, Vary: vary };
  const ok: Record<string, string | number> = { ...notModified };
  if (contentEncoding !== 'identity') ok['Content-Encoding'] = contentEncoding;
  ok['Content-Length'] = body.length;
  return { etag, ok, notModified, body, lastModifiedMs: Date.parse(entry.lastModified) };
}

function isNotModified(entry: CachedDocument, variant: Variant, ifNoneMatch: string | undefined, ifModifiedSince: string | undefined): boolean {
  // The common revalidation sends back exactly the ETag it was given: no list to parse.
  if (ifNoneMatch !== undefined) return ifNoneMatch === variant.etag || matchesEtag(ifNoneMatch, entry.etag);
  return ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= variant.lastModifiedMs;
}

export interface PublicHotPathOptions {
  generation: GenerationContext;
  cache: PublicDocumentCache;
  https: boolean;
  logger: Logger;
}

export type NextHandler = () => void;

export function createPublicHotPath(options: PublicHotPathOptions): (req: IncomingMessage, res: ServerResponse, next: NextHandler) => void {
  const common = baseHeaders(options.https);
  const loading = new Map<string, Promise<CachedDocument | null>>();
  let setupComplete = false;

  const load = (path: string): Promise<CachedDocument | null> => {
    const pending = loading.get(path);
    if (pending) return pending;
    const ticket = options.cache.startLoad(path);
    const promise = documentAtPath(options.generation, path)
      .then((stored) => {
        if (!stored) {
          options.cache.abandon(ticket);
          return null;
        }
        const entry = toCachedDocument(stored);
        options.cache.set(entry, ticket);
        return entry;
      }, (error: unknown) => {
        options.cache.abandon(ticket);
        throw error;
      })
      .finally(() => loading.delete(path));
    loading.set(path, promise);
    return promise;
  };

  // A variant compressed at its first request counts against the cache's budget (the Variant
  // holds it as long as the entry lives) and goes back to storage, so a later load of the row,
  // here or in another process, serves it as stored.
  const compressed: CompressedVariant = (entry, encoding, bytes) => {
    options.cache.grow(entry, bytes.length);
    storeCompressedVariant(options.generation.sequelize, entry, encoding, bytes).catch((error: unknown) => {
      options.logger.warn({ err: error, path: entry.path }, 'storing a compressed public document variant failed');
    });
  };

  // Per cached entry, its variants by representation, encoding and negotiation; they go with the entry.
  const variants = new WeakMap<CachedDocument, Map<string, Variant | null>>();
  const variantOf = (entry: CachedDocument, target: Target, encoding: Encoding): Variant | null => {
    let built = variants.get(entry);
    if (!built) variants.set(entry, (built = new Map()));
    const key = `${target.representation}:${target.representation === 'html' ? encoding : ''}:${target.negotiates}`;
    let variant = built.get(key);
    if (variant === undefined) built.set(key, (variant = buildVariant(entry, target, encoding, common, compressed)));
    return variant;
  };

  const respond = (req: IncomingMessage, res: ServerResponse, next: NextHandler, target: Target, entry: CachedDocument | null): void => {
    const variant = entry ? variantOf(entry, target, chooseEncoding(req.headers['accept-encoding'])) : null;
    if (!entry || !variant) {
      // The 404 here is the member's app: a cache must not keep one for the other.
      if (target.cookieDecides) res.setHeader('Vary', target.languageDecides ? LANDING_APP_VARY : 'Cookie');
      next();
      return;
    }
    if (isNotModified(entry, variant, req.headers['if-none-match'], req.headers['if-modified-since'])) {
      res.writeHead(304, variant.notModified);
      res.end();
      return;
    }
    res.writeHead(200, variant.ok);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.end(variant.body);
    // Not all of it reached the kernel yet (a slow reader, or responses queued before this one):
    // the socket may still read these bytes later, so the cache must not free them.
    if (res.writableLength > 0) entry.pinned = true;
  };

  // Targets of URLs read before. Without a session and without Markdown in `Accept` the URL
  // alone decides (see targetOf), so a hit on a hot page skips the parsing and its Map key is
  // a string whose hash is already known. Bounded: short URLs only, cleared when full.
  const targets = new Map<string, Target>();
  const targetFor = (url: string, hasSession: boolean, accept: string | undefined): Target | null => {
    if (hasSession || url.length > MEMO_URL_LENGTH || (accept !== undefined && accept.includes('text/markdown'))) return targetOf(url, hasSession, accept);
    const known = targets.get(url);
    if (known) return known;
    const target = targetOf(url, false, accept);
    if (target) {
      if (targets.size >= MEMO_TARGETS) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  // The landing page's language per `Accept-Language` value (null: none we speak), bounded.
  const languages = new Map<string, Locale | null>();
  const askedLocale = (header: string | undefined): Locale | null => {
    if (!header) return null;
    let locale = languages.get(header);
    if (locale === undefined) {
      if (languages.size >= MEMO_LANGUAGES) languages.clear();
      languages.set(header, (locale = localeFromAcceptLanguage(header)));
    }
    return locale;
  };
  // The instance default for visitors asking for no language we speak, remembered with the
  // landing document it was served with: a change of the default drops that document
  // (siteDocumentInvalidation.ts), and with it this memo.
  let fallback: { locale: Locale; entry: CachedDocument } | null = null;
  const fallbackTarget = (): Target | null => (fallback && options.cache.get(LANDING_TARGETS[fallback.locale].path) === fallback.entry ? LANDING_TARGETS[fallback.locale] : null);

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const cookie = req.headers.cookie;
    const hasSession = cookie !== undefined && cookie.includes(SESSION_COOKIE);
    const found = targetFor(req.url ?? '/', hasSession, req.headers.accept);
    if (!found) {
      // The app at a URL whose visitors get a public document: it varies by cookie as that does.
      if (hasSession) {
        const visitors = targetOf(req.url ?? '/', false, req.headers.accept);
        if (visitors?.cookieDecides) res.setHeader('Vary', visitors.languageDecides ? LANDING_APP_VARY : 'Cookie');
      }
      return next();
    }
    let target: Target = found;
    let needsDefaultLocale = false;
    if (target === LANDING) {
      const asked = askedLocale(req.headers['accept-language']);
      const chosen = asked ? LANDING_TARGETS[asked] : fallbackTarget();
      if (chosen) target = chosen;
      else needsDefaultLocale = true;
    }
    const cached = needsDefaultLocale ? undefined : options.cache.get(target.path);
    if (cached && (setupComplete || target.setupExempt)) return respond(req, res, next, target, cached);
    void (async () => {
      if (!target.setupExempt && !setupComplete) {
        setupComplete = await isSetupComplete();
        if (!setupComplete) return next();
      }
      const defaultLocale = needsDefaultLocale ? await getSetting('instance.defaultLocale') : null;
      if (defaultLocale) target = LANDING_TARGETS[defaultLocale];
      // Looked up again after the await: an entry let go of meanwhile may already be freed.
      const entry = options.cache.get(target.path) ?? (await load(target.path));
      if (defaultLocale && entry) fallback = { locale: defaultLocale, entry };
      respond(req, res, next, target, entry);
    })().catch((error: unknown) => {
      options.logger.error({ err: error, path: target.path }, 'public document failed');
      if (!res.headersSent) next();
    });
  };
}
