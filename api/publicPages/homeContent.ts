/**
 * The landing page's text: the `home.content` setting, or a built-in welcome while it is
 * empty. `GET /api/v1/home/content` writes the welcome in the instance default locale; the
 * landing page visitors see at `/` speaks the visitor's language, as /login does, and lists what
 * the public may read: the public ponds and the public pages changed most recently. It is a
 * generated document per locale (publicDocumentGenerator.ts, served by the hot path);
 * `GET /api/v1/home/overview` answers the same data as JSON (and feeds the site's own render of
 * `/` when the hot path hands a visitor on, e.g. while a document cannot be generated).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { documentToHtml, markdownToDocument } from '../../content-pipeline/index.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import { listPublicCandidatePonds } from '../policies/accessPolicy.ts';
import { ANONYMOUS, pondVisible, SubjectAccess } from '../policies/grantResolution.ts';
import { loadPondAccessMany } from '../policies/pondAccessCache.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { loadPublicTree } from './publicDocumentData.ts';

export interface HomeContent {
  /** The Markdown the landing page shows: the setting, or the built-in welcome. */
  markdown: string;
  /** Rendered by the content pipeline (sanitized; raw HTML stays text). */
  html: string;
  /** True while `home.content` is empty (blank counts as empty) and the welcome is shown. */
  isDefault: boolean;
}

/**
 * Backslash-escapes every ASCII punctuation character (CommonMark allows that for all of
 * them), so an instance name like `*Teich* [x](javascript:…)` reads literally in the heading.
 * Line breaks collapse to spaces: a newline would end the heading.
 */
function literalMarkdown(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** The built-in welcome in Markdown, naming the instance. */
export function defaultHomeMarkdown(locale: Locale, instanceName: string): string {
  const name = literalMarkdown(instanceName);
  // A function replacement: a `$&` or `$1` in the name must stay literal.
  return apiText('home.welcomeMarkdown', locale).replace('{instance}', () => name);
}

/** Renders landing or legal Markdown exactly as the public documents show it. */
export function renderSiteMarkdown(markdown: string): string {
  return documentToHtml(markdownToDocument(markdown));
}

/**
 * The landing page for a `home.content` text (saved or previewed): blank counts as empty.
 * The welcome is in `locale`, by default the instance's.
 */
export async function homeContentFor(text: string, locale?: Locale): Promise<HomeContent> {
  if (text.trim()) return { markdown: text, html: renderSiteMarkdown(text), isDefault: false };
  const [defaultLocale, instanceName] = await Promise.all([getSetting('instance.defaultLocale'), getSetting('instance.name')]);
  const markdown = defaultHomeMarkdown(locale ?? defaultLocale, instanceName);
  return { markdown, html: renderSiteMarkdown(markdown), isDefault: true };
}

/** The landing page's current text from the settings, rendered (the welcome in `locale`, by default the instance's). */
export async function loadHomeContent(locale?: Locale): Promise<HomeContent> {
  return homeContentFor(await getSetting('home.content'), locale);
}

/** Public ponds and recently changed public pages the landing page lists. */
export const LANDING_PONDS_SHOWN = 12;
export const LANDING_PAGES_SHOWN = 8;
/** Ponds looked into for the lists: a bound for an instance with very many public ponds. */
const LANDING_PONDS_SCANNED = 200;

export interface PublicPondEntry {
  slug: string;
  name: string;
  /** Pages the public may read. */
  pageCount: number;
  /** The newest change among those pages (ISO 8601). */
  updatedAt: string;
}

export interface PublicPageEntry {
  pond: { slug: string; name: string };
  slug: string;
  title: string;
  updatedAt: string;
}

export interface PublicOverview {
  ponds: PublicPondEntry[];
  recentPages: PublicPageEntry[];
}

const newestFirst = (a: { updatedAt: string }, b: { updatedAt: string }) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0);

/**
 * What the public may read, newest first: ponds with at least one public page, and the public
 * pages changed most recently across them. The same verdicts as the pond index and the sitemap
 * (loadPublicTree: the `public` subject's read access per page), so nothing private is named.
 * Inside a transaction (the generated landing documents) every rule is read fresh.
 */
export async function loadPublicOverview(sequelize: Sequelize, transaction?: Transaction): Promise<PublicOverview> {
  const candidates = await listPublicCandidatePonds(sequelize, transaction);
  const access = await loadPondAccessMany(sequelize, candidates, transaction);
  const reachable = [...access.values()].map((pond) => new SubjectAccess(pond, ANONYMOUS)).filter(pondVisible).slice(0, LANDING_PONDS_SCANNED);
  const ponds: PublicPondEntry[] = [];
  const pages: PublicPageEntry[] = [];
  for (const pondAccess of reachable) {
    const tree = await loadPublicTree(sequelize, pondAccess.data.pondId, transaction);
    if (!tree || tree.pages.length === 0 || !tree.lastModified) continue;
    const pond = { slug: tree.pond.slug, name: tree.pond.name };
    ponds.push({ ...pond, pageCount: tree.pages.length, updatedAt: tree.lastModified.toISOString() });
    const updated = await sequelize.query<{ id: string; updated_at: Date }>(`SELECT id, updated_at FROM pages WHERE id = ANY ($1::uuid[]) ORDER BY updated_at DESC, id LIMIT ${LANDING_PAGES_SHOWN}`, {
      bind: [tree.pages.map((page) => page.id)],
      type: QueryTypes.SELECT,
      transaction,
    });
    const byId = new Map(tree.pages.map((page) => [page.id, page]));
    for (const row of updated) {
      const page = byId.get(row.id)!;
      pages.push({ pond, slug: page.slug, title: page.title, updatedAt: new Date(row.updated_at).toISOString() });
    }
  }
  return { ponds: ponds.sort(newestFirst).slice(0, LANDING_PONDS_SHOWN), recentPages: pages.sort(newestFirst).slice(0, LANDING_PAGES_SHOWN) };
}
