/**
 * Generates public documents: the view model from the database (publicDocumentData.ts),
 * the HTML from the Astro layout (astroDocumentRenderer.ts), then the stored form — the bytes
 * and a strong ETag, its gzip and brotli variants made at their first request — plus, for pages, the Markdown and the JSON the
 * single-page client reads (`/api/v1/public/:pondSlug/:pageSlug/content`).
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { Sequelize, Transaction } from 'sequelize';
import { publicThreadsOf } from '../comments/publicCommentThreads.ts';
import { apiText } from '../i18n/apiTexts.ts';
import { getAllSettings, getSetting } from '../settings/instanceSettings.ts';
import { DEFAULT_FONTS } from '../ponds/fontCatalog.ts';
import { renderPublicDocumentHtml } from './astroDocumentRenderer.ts';
import type { Locale } from '../i18n/locale.ts';
import { loadHomeContent, loadPublicOverview, renderSiteMarkdown } from './homeContent.ts';
import { loadPublicPageData, loadPublicTree, type PageDependency, type PublicPageData, type PublicPondRow, type PublicTreeRow } from './publicDocumentData.ts';
import type { PublicDocumentKind, PublicDocumentModel, PublicTreeNode } from './publicDocumentModel.ts';
import { activePluginStyles } from './publicPluginSeam.ts';

/** What every document shares: the instance, its public origin and its default locale. */
export interface SiteContext {
  instanceName: string;
  /** Origin without a trailing slash. */
  baseUrl: string;
  locale: 'de' | 'en';
}

export type LegalKind = 'imprint' | 'privacy';

export interface GeneratedDocument {
  /** Lowercased human path: the storage and cache key. */
  path: string;
  kind: PublicDocumentKind;
  pondId: string | null;
  pageId: string | null;
  html: Buffer;
  /** Empty until first asked for (NOT_YET_COMPRESSED, see encodeDocument). */
  gzip: Buffer;
  /** Empty until first asked for (NOT_YET_COMPRESSED, see encodeDocument). */
  brotli: Buffer;
  etag: string;
  markdown: string | null;
  /** The `/content` JSON (PublicPageContent) as served: stored as this text, never re-serialized. */
  content: string | null;
  /** Pages whose change may change this document (pages only). */
  dependsOn: PageDependency[];
}

/** The JSON view of a public page (`…/content`). */
export interface PublicPageContent {
  title: string;
  pondSlug: string;
  slug: string;
  html: string;
  outline: PublicPageData['outline'];
  breadcrumbs: { title: string; slug: string }[];
  children: { title: string; slug: string }[];
  updatedAt: string;
}

// Brotli's middle quality: within a few percent of the best for HTML at a fraction of its time.
const BROTLI_QUALITY = 5;

export async function loadSiteContext(fallbackBaseUrl: string, transaction?: Transaction): Promise<SiteContext> {
  // One query for the three settings (this runs for every generated document).
  const settings = await getAllSettings(transaction);
  const instanceName = settings['instance.name'];
  const baseUrl = settings['instance.baseUrl'];
  const locale = settings['instance.defaultLocale'];
  return { instanceName, baseUrl: (baseUrl ?? fallbackBaseUrl).replace(/\/+$/, ''), locale };
}

export function pagePath(pondSlug: string, pageSlug: string): string {
  return `/${pondSlug}/${pageSlug}`.toLowerCase();
}

export function pondPath(pondSlug: string): string {
  return `/${pondSlug}`.toLowerCase();
}

/**
 * The storage and cache key of the landing document in `locale`. No request path can be it (a
 * `#` never reaches the server), so the hot path alone maps `/` onto it (publicHotPath.ts).
 */
export function landingPath(locale: Locale): string {
  return `/#${locale}`;
}

export function legalPath(kind: LegalKind): string {
  return `/legal/${kind}`;
}

function pageHref(pondSlug: string, pageSlug: string): string {
  return `/${encodeURIComponent(pondSlug)}/${encodeURIComponent(pageSlug)}`;
}

/**
 * The text with whitespace runs as single spaces and trimmed, or as much of its start as
 * decides a `limit`-character description: a page's plain text is its whole body, and
 * flattening all of it for 160 characters was per-document work for nothing. From a head of
 * the text whose flattened form (trimmed) is longer than `limit`, the first `limit`
 * characters are those of the whole text's, which is all `describe` reads then.
 */
function flattened(text: string, limit: number): string {
  const headLength = limit * 8;
  if (text.length > headLength) {
    const head = text.slice(0, headLength).replace(/\s+/g, ' ').trimStart();
    // Longer without a trailing space too: the whole text flattened is then longer than `limit`.
    if (head.trimEnd().length > limit) return head;
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** Plain text cut at a word boundary, for meta descriptions. */
export function describe(text: string, limit = 160): string {
  const flat = flattened(text, limit);
  if (flat.length <= limit) return flat;
  const cut = flat.slice(0, limit - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function baseModel(site: SiteContext, fields: Pick<PublicDocumentModel, 'kind' | 'title' | 'description' | 'canonicalUrl'>): PublicDocumentModel {
  return {
    ...fields,
    locale: site.locale,
    instanceName: site.instanceName,
    feeds: [],
    fonts: { ...DEFAULT_FONTS },
    pond: null,
    breadcrumbs: [],
    outline: [],
    bodyHtml: '',
    children: [],
    backlinks: [],
    comments: [],
    tree: [],
    updatedAt: null,
    pluginStyles: '',
    landing: null,
    legal: { imprint: legalPath('imprint'), privacy: legalPath('privacy') },
  };
}

function pondFeed(site: SiteContext, pond: PublicPondRow): { title: string; href: string } {
  return { title: pond.name, href: `${site.baseUrl}/api/v1/public/${encodeURIComponent(pond.slug)}/feed.xml` };
}

export function pageModel(site: SiteContext, data: PublicPageData): PublicDocumentModel {
  const { pond, page } = data;
  const link = (entry: { slug: string; title: string }) => ({ title: entry.title, href: pageHref(pond.slug, entry.slug) });
  return {
    ...baseModel(site, { kind: 'page', title: page.title, description: describe(data.plainText), canonicalUrl: `${site.baseUrl}${pageHref(pond.slug, page.slug)}` }),
    feeds: [pondFeed(site, pond), { title: page.title, href: `${site.baseUrl}/api/v1/public/${encodeURIComponent(pond.slug)}/${encodeURIComponent(page.slug)}/feed.xml` }],
    fonts: pond.fonts,
    pond: { title: pond.name, href: `/${encodeURIComponent(pond.slug)}` },
    breadcrumbs: data.ancestors.map(link),
    outline: data.outline,
    bodyHtml: data.bodyHtml,
    children: data.children.map(link),
    backlinks: data.backlinks.map(link),
    comments: publicThreadsOf(data.comments, site.locale),
    updatedAt: page.updatedAt.toISOString(),
    pluginStyles: activePluginStyles(pond.id),
  };
}

function treeOf(pondSlug: string, pages: PublicTreeRow[]): PublicTreeNode[] {
  const nodes = new Map(pages.map((page) => [page.id, { title: page.title, href: pageHref(pondSlug, page.slug), children: [] as PublicTreeNode[] }]));
  const roots: PublicTreeNode[] = [];
  for (const page of pages) {
    const node = nodes.get(page.id)!;
    const parent = page.parentId ? nodes.get(page.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/**
 * What a stored document holds for a compressed variant that no request has asked for yet: an
 * empty buffer (no gzip or brotli stream of a document is empty, so it cannot be mistaken for
 * one). See `encodeDocument`.
 */
export const NOT_YET_COMPRESSED: Buffer = Buffer.alloc(0);

/**
 * A variant's bytes: the same for the same HTML, whenever and wherever it is compressed
 * (generation used to do it; the hot path does it now, at the variant's first request).
 * Synchronous on purpose: zlib's asynchronous calls build a stream per call, which measured
 * twice the time of both compressions together for a 30 KB document (1.1 ms against 0.55 ms).
 */
export function compressDocument(html: Buffer, encoding: 'br' | 'gzip'): Buffer {
  if (encoding === 'gzip') return gzipSync(html, { level: 6 });
  return brotliCompressSync(html, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: html.length,
    },
  });
}

/**
 * The stored form of a document's HTML: the bytes and a strong ETag, with its gzip and brotli
 * variants left to their first request (publicHotPath.ts compresses them then and writes them
 * back to storage). Most generations are regenerations after a save, of documents nobody asks
 * for before the next save, and the two compressions were a quarter of a generation's time
 * (bench:public (d): 1.2 ms of 4.9 ms for a 30 KB page); the bytes a request gets are the
 * same either way (`compressDocument`), and so are the headers (built from those bytes).
 */
export function encodeDocument(html: string): Pick<GeneratedDocument, 'html' | 'gzip' | 'brotli' | 'etag'> {
  const bytes = Buffer.from(html, 'utf8');
  return {
    html: bytes,
    gzip: NOT_YET_COMPRESSED,
    brotli: NOT_YET_COMPRESSED,
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`,
  };
}

/** A page's document, or null when the public may not read it. */
export async function generatePageDocument(sequelize: Sequelize, site: SiteContext, pageId: string, transaction?: Transaction): Promise<GeneratedDocument | null> {
  const data = await loadPublicPageData(sequelize, pageId, transaction, site.locale);
  if (!data) return null;
  const html = await renderPublicDocumentHtml(pageModel(site, data));
  const content: PublicPageContent = {
    title: data.page.title,
    pondSlug: data.pond.slug,
    slug: data.page.slug,
    html: data.bodyHtml,
    outline: data.outline,
    breadcrumbs: data.ancestors.map((entry) => ({ title: entry.title, slug: entry.slug })),
    children: data.children.map((entry) => ({ title: entry.title, slug: entry.slug })),
    updatedAt: data.page.updatedAt.toISOString(),
  };
  return {
    path: pagePath(data.pond.slug, data.page.slug),
    kind: 'page',
    pondId: data.pond.id,
    pageId: data.page.id,
    ...encodeDocument(html),
    markdown: data.markdown,
    content: JSON.stringify(content),
    dependsOn: data.dependsOn,
  };
}

/**
 * The pond's public index: its public page tree. Null when the public can read nothing in the
 * pond (the pond then answers 404 like a missing one).
 */
export async function generatePondIndex(sequelize: Sequelize, site: SiteContext, pondId: string, transaction?: Transaction): Promise<GeneratedDocument | null> {
  const loaded = await loadPublicTree(sequelize, pondId, transaction);
  if (!loaded || loaded.pages.length === 0) return null;
  const { pond, pages } = loaded;
  const model: PublicDocumentModel = {
    ...baseModel(site, { kind: 'pond', title: pond.name, description: describe(pages.map((page) => page.title).join(' · ')), canonicalUrl: `${site.baseUrl}/${encodeURIComponent(pond.slug)}` }),
    feeds: [pondFeed(site, pond)],
    fonts: pond.fonts,
    pond: { title: pond.name, href: `/${encodeURIComponent(pond.slug)}` },
    tree: treeOf(pond.slug, pages),
    pluginStyles: activePluginStyles(pond.id),
  };
  const html = await renderPublicDocumentHtml(model);
  return { path: pondPath(pond.slug), kind: 'pond', pondId: pond.id, pageId: null, ...encodeDocument(html), markdown: null, content: null, dependsOn: [] };
}

/**
 * The landing page (`/`) in `locale`: `home.content` (or the built-in welcome in that
 * language), Sign in and, while registration is open, Sign up, the public ponds and the public
 * pages changed most recently. Read inside `transaction` (the landing lock held, see
 * publicDocumentService.ts), so every access rule is read fresh.
 */
export async function generateHomeDocument(sequelize: Sequelize, site: SiteContext, locale: Locale, transaction?: Transaction): Promise<GeneratedDocument> {
  const [home, overview, registration] = await Promise.all([loadHomeContent(locale), loadPublicOverview(sequelize, transaction), getSetting('registration.mode')]);
  const landingSite = { ...site, locale };
  const model: PublicDocumentModel = {
    ...baseModel(landingSite, { kind: 'home', title: site.instanceName, description: describe(home.markdown.replace(/[#*_`>[\]()!\\-]/g, ' ')), canonicalUrl: `${site.baseUrl}/` }),
    bodyHtml: home.html,
    landing: {
      registrationOpen: registration === 'open',
      ponds: overview.ponds.map((pond) => ({ title: pond.name, href: `/${encodeURIComponent(pond.slug)}`, pageCount: pond.pageCount })),
      recentPages: overview.recentPages.map((page) => ({ title: page.title, href: pageHref(page.pond.slug, page.slug), pondTitle: page.pond.name, updatedAt: page.updatedAt })),
    },
  };
  const html = await renderPublicDocumentHtml(model);
  return { path: landingPath(locale), kind: 'home', pondId: null, pageId: null, ...encodeDocument(html), markdown: home.markdown, content: null, dependsOn: [] };
}

/** Imprint or privacy page; an unconfigured one shows a localized notice (spec: Legal). */
export async function generateLegalDocument(site: SiteContext, kind: LegalKind): Promise<GeneratedDocument> {
  const text = await getSetting(kind === 'imprint' ? 'legal.imprint' : 'legal.privacy');
  const configured = text.trim() !== '';
  const notice = apiText('legal.notConfigured', site.locale);
  const model: PublicDocumentModel = {
    ...baseModel(site, { kind: 'legal', title: apiText(`legal.${kind}`, site.locale), description: describe(configured ? text : notice), canonicalUrl: `${site.baseUrl}${legalPath(kind)}` }),
    bodyHtml: configured ? renderSiteMarkdown(text) : renderSiteMarkdown(notice),
  };
  const html = await renderPublicDocumentHtml(model);
  return { path: legalPath(kind), kind: 'legal', pondId: null, pageId: null, ...encodeDocument(html), markdown: configured ? text : null, content: null, dependsOn: [] };
}
