/**
 * Reads what a page's public document shows, as the `public` subject may see it: the page,
 * its public ancestors and children, backlinks from public pages, transcluded public targets
 * (same pond, depth ≤ 2) and the pond's name and fonts. Everything is decided by the policy
 * module (`SubjectAccess` for the anonymous subject); this module never reads grants.
 *
 * Also answers which pages the document depends on (the dependency index): every ancestor,
 * child, backlink source and transcluded target it looked at, so a change to any of them
 * regenerates it.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { expandPlaceholders, MAX_TRANSCLUSION_DEPTH, type TransclusionTarget } from '../../content-pipeline/index.ts';
import { ANONYMOUS, SubjectAccess } from '../policies/grantResolution.ts';
import { loadPondAccess } from '../policies/pondAccessCache.ts';
import { withFontDefaults, type PondFonts } from '../ponds/fontCatalog.ts';
import { pluginBlockStaticForm } from './publicPluginSeam.ts';

export interface PublicPondRow {
  id: string;
  slug: string;
  name: string;
  fonts: PondFonts;
}

interface PageRow {
  id: string;
  pond_id: string;
  slug: string;
  title: string;
  parent_id: string | null;
  trashed_at: Date | null;
}

export interface PageDependency {
  pageId: string;
  shown: boolean;
}

export interface PublicPageData {
  pond: PublicPondRow;
  page: { id: string; slug: string; title: string; updatedAt: Date };
  /** Public ancestors, root first. */
  ancestors: { slug: string; title: string }[];
  children: { slug: string; title: string }[];
  backlinks: { slug: string; title: string }[];
  /** Sanitized body with transclusions and plugin blocks expanded. */
  bodyHtml: string;
  markdown: string;
  outline: { level: number; text: string; id: string }[];
  plainText: string;
  /** Pages whose change may change this document; `shown` when the document shows them. */
  dependsOn: PageDependency[];
}

/** The anonymous subject's view of a pond, or null when the pond is gone or trashed. */
export async function publicAccessTo(sequelize: Sequelize, pondId: string, transaction?: Transaction): Promise<SubjectAccess | null> {
  const data = await loadPondAccess(sequelize, pondId, transaction);
  if (!data || data.trashedAt) return null;
  return new SubjectAccess(data, ANONYMOUS);
}

function publiclyReadable(access: SubjectAccess, page: { id: string; trashed_at: Date | null }): boolean {
  return access.page({ id: page.id, trashedAt: page.trashed_at }, 'read').allowed;
}

export async function loadPublicPond(sequelize: Sequelize, pondId: string, transaction?: Transaction): Promise<PublicPondRow | null> {
  const [row] = await sequelize.query<{ id: string; slug: string; name: string; fonts: Record<string, unknown> }>(
    `SELECT id, slug, name, fonts FROM ponds WHERE id = :pondId AND trashed_at IS NULL`,
    { replacements: { pondId }, type: QueryTypes.SELECT, transaction },
  );
  return row ? { id: row.id, slug: row.slug, name: row.name, fonts: withFontDefaults(row.fonts ?? {}) } : null;
}

/** Resolves `/:pondSlug/:pageSlug` (slugs compare case-insensitively) to ids. */
export async function findPageBySlugs(sequelize: Sequelize, pondSlug: string, pageSlug: string | null, transaction?: Transaction): Promise<{ pondId: string; pageId: string | null } | null> {
  const [row] = await sequelize.query<{ pond_id: string; page_id: string | null }>(
    pageSlug === null
      ? `SELECT po.id AS pond_id, NULL AS page_id FROM ponds po WHERE lower(po.slug) = lower(:pondSlug) AND po.trashed_at IS NULL`
      : `SELECT po.id AS pond_id, p.id AS page_id FROM ponds po JOIN pages p ON p.pond_id = po.id
          WHERE lower(po.slug) = lower(:pondSlug) AND lower(p.slug) = lower(:pageSlug) AND po.trashed_at IS NULL AND p.trashed_at IS NULL`,
    { replacements: { pondSlug, pageSlug }, type: QueryTypes.SELECT, transaction },
  );
  return row ? { pondId: row.pond_id, pageId: row.page_id } : null;
}

const PAGE_SQL = `
  SELECT p.id, p.pond_id, p.slug, p.title, p.parent_id, p.trashed_at, p.updated_at,
         c.html, c.markdown, c.outline, c.plain_text
    FROM pages p LEFT JOIN page_contents c ON c.page_id = p.id
   WHERE p.id = :pageId`;

const ANCESTORS_SQL = `
  WITH RECURSIVE chain AS (
    SELECT p.id, p.pond_id, p.slug, p.title, p.parent_id, p.trashed_at, 1 AS distance FROM pages p WHERE p.id = :parentId
    UNION ALL
    SELECT p.id, p.pond_id, p.slug, p.title, p.parent_id, p.trashed_at, chain.distance + 1
      FROM pages p JOIN chain ON p.id = chain.parent_id WHERE chain.distance < 64
  )
  SELECT id, pond_id, slug, title, parent_id, trashed_at FROM chain ORDER BY distance DESC`;

const CHILDREN_SQL = `
  SELECT id, pond_id, slug, title, parent_id, trashed_at FROM pages
   WHERE parent_id = :pageId AND trashed_at IS NULL ORDER BY position, id`;

const BACKLINKS_SQL = `
  SELECT DISTINCT s.id, s.pond_id, s.slug, s.title, s.parent_id, s.trashed_at
    FROM page_links l JOIN pages s ON s.id = l.source_page_id
   WHERE l.target_page_id = :pageId AND s.pond_id = :pondId AND s.trashed_at IS NULL AND s.id <> :pageId`;

const TRANSCLUDED_SQL = `
  SELECT p.id, p.pond_id, p.slug, p.title, p.parent_id, p.trashed_at, c.html,
         COALESCE((SELECT array_agg(t.target_slug) FROM page_transclusions t WHERE t.source_page_id = p.id), '{}') AS targets
    FROM pages p JOIN page_contents c ON c.page_id = p.id
   WHERE p.pond_id = :pondId AND lower(p.slug) IN (:slugs) AND p.trashed_at IS NULL`;

interface TranscludedRow extends PageRow {
  html: string;
  targets: string[];
}

/**
 * The transclusion targets the body may expand, level by level up to the nesting limit: every
 * target looked at is a dependency (readable or not — becoming readable changes the document).
 */
async function loadTranscluded(sequelize: Sequelize, transaction: Transaction | undefined, pondId: string, access: SubjectAccess, firstSlugs: string[], dependsOn: Map<string, boolean>): Promise<Map<string, TransclusionTarget>> {
  const targets = new Map<string, TransclusionTarget>();
  const seen = new Set<string>();
  let slugs = firstSlugs.map((slug) => slug.toLowerCase());
  for (let depth = 1; depth <= MAX_TRANSCLUSION_DEPTH && slugs.length > 0; depth++) {
    const fresh = slugs.filter((slug) => !seen.has(slug));
    fresh.forEach((slug) => seen.add(slug));
    if (fresh.length === 0) break;
    const rows = await sequelize.query<TranscludedRow>(TRANSCLUDED_SQL, { replacements: { pondId, slugs: fresh }, type: QueryTypes.SELECT, transaction });
    const next: string[] = [];
    for (const row of rows) {
      const readable = publiclyReadable(access, row);
      dependsOn.set(row.id, dependsOn.get(row.id) === true || readable);
      if (!readable) continue;
      targets.set(row.slug.toLowerCase(), { html: row.html, title: row.title });
      next.push(...row.targets);
    }
    slugs = next;
  }
  return targets;
}

/** Everything the page's public document shows, or null when the public may not read it. */
export async function loadPublicPageData(sequelize: Sequelize, pageId: string, transaction?: Transaction): Promise<PublicPageData | null> {
  const [row] = await sequelize.query<PageRow & { updated_at: Date; html: string | null; markdown: string | null; outline: PublicPageData['outline'] | null; plain_text: string | null }>(
    PAGE_SQL,
    { replacements: { pageId }, type: QueryTypes.SELECT, transaction },
  );
  if (!row || row.trashed_at) return null;
  const access = await publicAccessTo(sequelize, row.pond_id, transaction);
  if (!access || !publiclyReadable(access, row)) return null;
  const pond = await loadPublicPond(sequelize, row.pond_id, transaction);
  if (!pond) return null;

  const dependsOn = new Map<string, boolean>();
  // One after the other: inside a transaction they share one connection.
  const ancestorRows = row.parent_id ? await sequelize.query<PageRow>(ANCESTORS_SQL, { replacements: { parentId: row.parent_id }, type: QueryTypes.SELECT, transaction }) : [];
  const childRows = await sequelize.query<PageRow>(CHILDREN_SQL, { replacements: { pageId }, type: QueryTypes.SELECT, transaction });
  const backlinkRows = await sequelize.query<PageRow>(BACKLINKS_SQL, { replacements: { pageId, pondId: row.pond_id }, type: QueryTypes.SELECT, transaction });
  const transclusionSlugs = await sequelize.query<{ target_slug: string }>(`SELECT target_slug FROM page_transclusions WHERE source_page_id = :pageId`, {
    replacements: { pageId },
    type: QueryTypes.SELECT,
    transaction,
  });
  const shown = (rows: PageRow[]) => {
    const readable = rows.filter((entry) => publiclyReadable(access, entry));
    rows.forEach((entry) => dependsOn.set(entry.id, dependsOn.get(entry.id) === true || readable.includes(entry)));
    return readable.map((entry) => ({ slug: entry.slug, title: entry.title }));
  };
  const ancestors = shown(ancestorRows);
  const children = shown(childRows);
  const backlinks = shown(backlinkRows).sort((a, b) => a.title.localeCompare(b.title, 'en') || a.slug.localeCompare(b.slug, 'en'));

  const targets = await loadTranscluded(sequelize, transaction, row.pond_id, access, transclusionSlugs.map((entry) => entry.target_slug), dependsOn);
  const bodyHtml = expandPlaceholders(row.html ?? '', {
    selfSlug: row.slug.toLowerCase(),
    resolveTransclusion: (slug) => targets.get(slug.toLowerCase()) ?? null,
    resolvePluginBlock: (block) => pluginBlockStaticForm(row.id, block),
  });
  dependsOn.delete(row.id);
  return {
    pond,
    page: { id: row.id, slug: row.slug, title: row.title, updatedAt: new Date(row.updated_at) },
    ancestors,
    children,
    backlinks,
    bodyHtml,
    markdown: row.markdown ?? '',
    outline: row.outline ?? [],
    plainText: row.plain_text ?? '',
    dependsOn: [...dependsOn].map(([pageId, shown]) => ({ pageId, shown })),
  };
}

export interface PublicTreeRow {
  id: string;
  slug: string;
  title: string;
  parentId: string | null;
}

/**
 * The pond's public pages in tree order, for the pond index and the sitemap. A public page
 * under a private parent is shown under its nearest public ancestor (or at the top).
 */
export async function loadPublicTree(sequelize: Sequelize, pondId: string, transaction?: Transaction): Promise<{ pond: PublicPondRow; pages: PublicTreeRow[]; lastModified: Date | null } | null> {
  const access = await publicAccessTo(sequelize, pondId, transaction);
  const pond = access ? await loadPublicPond(sequelize, pondId, transaction) : null;
  if (!access || !pond) return null;
  const rows = await sequelize.query<PageRow & { position: string; updated_at: Date }>(
    `SELECT id, pond_id, slug, title, parent_id, trashed_at, position, updated_at FROM pages WHERE pond_id = :pondId AND trashed_at IS NULL ORDER BY position, id`,
    { replacements: { pondId }, type: QueryTypes.SELECT, transaction },
  );
  const byId = new Map(rows.map((entry) => [entry.id, entry]));
  const visible = new Set(rows.filter((entry) => publiclyReadable(access, entry)).map((entry) => entry.id));
  const publicParent = (entry: PageRow): string | null => {
    let parentId = entry.parent_id;
    for (let hops = 0; parentId && hops < 64; hops++) {
      if (visible.has(parentId)) return parentId;
      parentId = byId.get(parentId)?.parent_id ?? null;
    }
    return null;
  };
  let lastModified: Date | null = null;
  const pages: PublicTreeRow[] = [];
  for (const entry of rows) {
    if (!visible.has(entry.id)) continue;
    const updated = new Date(entry.updated_at);
    if (!lastModified || updated > lastModified) lastModified = updated;
    pages.push({ id: entry.id, slug: entry.slug, title: entry.title, parentId: publicParent(entry) });
  }
  return { pond, pages, lastModified };
}
