/**
 * Reads what a page's public document shows, as the `public` subject may see it: the page,
 * its public ancestors and children, backlinks from public pages, transcluded public targets
 * (same pond, depth ≤ 2) and the pond's name and fonts. Everything is decided by the policy
 * module (`SubjectAccess` for the anonymous subject); this module never reads grants.
 *
 * A wikilink (in the body or a transcluded one) to a page the public may not read, or to no page
 * at all, is shown as its text without an href: a visitor never meets a dead link.
 *
 * Also answers which pages the document depends on (the dependency index): every ancestor,
 * child, backlink source, transcluded target and existing link target it looked at, so a
 * change to any of them regenerates it (a link target that turns private deletes it at once,
 * publicAccessRevocation.ts; a phantom target that comes into being is found by its slug,
 * publicDocumentJob.ts).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { expandPlaceholders, MAX_TRANSCLUSION_DEPTH, unlinkWikilinks, wikilinkTargets, type TransclusionTarget } from '../../content-pipeline/index.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import { OPEN_THREADS_COLUMN, type OpenThreadJson } from '../comments/publicCommentThreads.ts';
import { queryPrepared, type PreparedStatement } from '../db/preparedStatement.ts';
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
  /** The open comment threads, oldest first. */
  comments: OpenThreadJson[];
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

/**
 * Whether the public may read a live page, from the per-process access cache (no query once
 * the pond's access data is cached; dropped with it on every `pond_access_changed`).
 */
export async function isPagePubliclyReadable(sequelize: Sequelize, pondId: string, pageId: string): Promise<boolean> {
  const access = await publicAccessTo(sequelize, pondId);
  return access !== null && publiclyReadable(access, { id: pageId, trashed_at: null });
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

/**
 * Everything a page's document shows, in one statement (generation runs on every change of
 * anything a document shows, and on demand; one round trip instead of seven): the page and its
 * content, its pond, its ancestors (root first), children, backlink sources, the slugs it
 * transcludes, every page those slugs reach within the nesting limit, the live page (if any)
 * behind every wikilink and transclusion target of the page and of those it may transclude
 * (`link_targets`: an unresolved transclusion shows as a link, so the dead-link pass needs no
 * second round trip), and its open comment threads. Which of the pages the public may see is decided afterwards, by the policy module.
 */
const PAGE_DATA: PreparedStatement = {
  name: 'dt-public-page-data-3',
  text: `
  WITH RECURSIVE
  page AS (
    SELECT p.id, p.pond_id, p.slug, p.title, p.parent_id, p.trashed_at, p.updated_at,
           c.html, c.markdown, c.outline, c.plain_text
      FROM pages p LEFT JOIN page_contents c ON c.page_id = p.id
     WHERE p.id = $1
  ),
  chain AS (
    SELECT a.id, a.slug, a.title, a.parent_id, a.trashed_at, 1 AS distance FROM pages a JOIN page ON a.id = page.parent_id
    UNION ALL
    SELECT a.id, a.slug, a.title, a.parent_id, a.trashed_at, chain.distance + 1
      FROM pages a JOIN chain ON a.id = chain.parent_id WHERE chain.distance < 64
  ),
  reached AS (
    SELECT t.target_slug AS slug, 1 AS depth FROM page_transclusions t JOIN page ON t.source_page_id = page.id
    UNION
    SELECT t.target_slug, reached.depth + 1
      FROM reached
      JOIN page ON true
      JOIN pages p ON p.pond_id = page.pond_id AND lower(p.slug) = reached.slug AND p.trashed_at IS NULL
      JOIN page_transclusions t ON t.source_page_id = p.id
     WHERE reached.depth < $2
  )
  SELECT page.*, po.slug AS pond_slug, po.name AS pond_name, po.fonts AS pond_fonts,
    (SELECT COALESCE(json_agg(json_build_object('id', id, 'slug', slug, 'title', title, 'trashed_at', trashed_at) ORDER BY distance DESC), '[]')
       FROM chain) AS ancestors,
    (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'slug', c.slug, 'title', c.title) ORDER BY c.position, c.id), '[]')
       FROM pages c WHERE c.parent_id = page.id AND c.trashed_at IS NULL) AS children,
    (SELECT COALESCE(json_agg(json_build_object('id', s.id, 'slug', s.slug, 'title', s.title)), '[]')
       FROM pages s
      WHERE s.pond_id = page.pond_id AND s.trashed_at IS NULL AND s.id <> page.id
        AND EXISTS (SELECT 1 FROM page_links l WHERE l.source_page_id = s.id AND l.target_page_id = page.id)) AS backlinks,
    ARRAY(SELECT t.target_slug FROM page_transclusions t WHERE t.source_page_id = page.id) AS transclusion_slugs,
    (SELECT COALESCE(json_agg(json_build_object('id', p.id, 'slug', p.slug, 'title', p.title, 'html', c.html,
              'targets', ARRAY(SELECT t.target_slug FROM page_transclusions t WHERE t.source_page_id = p.id))), '[]')
       FROM pages p JOIN page_contents c ON c.page_id = p.id
      WHERE p.pond_id = page.pond_id AND p.trashed_at IS NULL AND lower(p.slug) IN (SELECT slug FROM reached)) AS transcluded,
    (SELECT COALESCE(json_agg(json_build_object('slug', l.slug, 'id', t.id)), '[]')
       FROM (SELECT DISTINCT lower(l.target_slug) AS slug FROM page_links l
              WHERE l.source_page_id = page.id
                 OR l.source_page_id IN (SELECT p.id FROM pages p
                                          WHERE p.pond_id = page.pond_id AND p.trashed_at IS NULL AND lower(p.slug) IN (SELECT slug FROM reached))
             UNION SELECT lower(slug) FROM reached) l
       LEFT JOIN pages t ON t.pond_id = page.pond_id AND lower(t.slug) = l.slug AND t.trashed_at IS NULL) AS link_targets,
    ${OPEN_THREADS_COLUMN} AS comments
  FROM page JOIN ponds po ON po.id = page.pond_id AND po.trashed_at IS NULL`,
};

interface LinkedPage {
  id: string;
  slug: string;
  title: string;
  /** Ancestors only: the others are never trashed. */
  trashed_at?: string | null;
}

interface PageDataRow extends PageRow {
  updated_at: Date;
  html: string | null;
  markdown: string | null;
  outline: PublicPageData['outline'] | null;
  plain_text: string | null;
  pond_slug: string;
  pond_name: string;
  pond_fonts: Record<string, unknown> | null;
  ancestors: LinkedPage[];
  children: LinkedPage[];
  backlinks: LinkedPage[];
  transclusion_slugs: string[];
  transcluded: (LinkedPage & { html: string; targets: string[] })[];
  /** Every lowercased wikilink and transclusion target of the page and of the pages it may transclude, with the live page of that slug (null: none). */
  link_targets: { slug: string; id: string | null }[];
  comments: OpenThreadJson[];
}

/**
 * The transclusion targets the body may expand, level by level up to the nesting limit, from
 * readable targets only: every target looked at is a dependency (readable or not — becoming
 * readable changes the document).
 */
function resolveTransclusions(row: PageDataRow, access: SubjectAccess, dependsOn: Map<string, boolean>): Map<string, TransclusionTarget> {
  const bySlug = new Map(row.transcluded.map((entry) => [entry.slug.toLowerCase(), entry]));
  const targets = new Map<string, TransclusionTarget>();
  const seen = new Set<string>();
  let slugs = row.transclusion_slugs.map((slug) => slug.toLowerCase());
  for (let depth = 1; depth <= MAX_TRANSCLUSION_DEPTH && slugs.length > 0; depth++) {
    const next: string[] = [];
    for (const slug of slugs) {
      if (seen.has(slug)) continue;
      seen.add(slug);
      const entry = bySlug.get(slug);
      if (!entry) continue;
      const readable = publiclyReadable(access, { id: entry.id, trashed_at: null });
      dependsOn.set(entry.id, dependsOn.get(entry.id) === true || readable);
      if (!readable) continue;
      targets.set(slug, { html: entry.html, title: entry.title });
      next.push(...entry.targets);
    }
    slugs = next;
  }
  return targets;
}

/**
 * The body with the wikilinks the public cannot follow turned into text; every existing target
 * is a dependency, shown while the public may read it (its link is then a live one). The
 * targets come from the page data's `link_targets` (the saved links of the page and of what it
 * may transclude); a wikilink in the body that no saved link names (a plugin block's static
 * form, say) is looked up here as before.
 */
async function withoutDeadLinks(
  sequelize: Sequelize,
  html: string,
  access: SubjectAccess,
  row: Pick<PageDataRow, 'pond_id' | 'link_targets'>,
  dependsOn: Map<string, boolean>,
  transaction?: Transaction,
): Promise<string> {
  const slugs = wikilinkTargets(html);
  if (slugs.length === 0) return html;
  const known = new Map(row.link_targets.map((target) => [target.slug, target.id]));
  const pages: { id: string; slug: string }[] = [];
  const unknown: string[] = [];
  for (const slug of slugs) {
    const id = known.get(slug);
    if (id === undefined) unknown.push(slug);
    else if (id !== null) pages.push({ id, slug });
  }
  if (unknown.length > 0) {
    pages.push(
      ...(await sequelize.query<{ id: string; slug: string }>(
        `SELECT id, lower(slug) AS slug FROM pages WHERE pond_id = :pondId AND lower(slug) IN (:slugs) AND trashed_at IS NULL`,
        { replacements: { pondId: row.pond_id, slugs: unknown }, type: QueryTypes.SELECT, transaction },
      )),
    );
  }
  const linkable = new Set<string>();
  for (const page of pages) {
    const readable = publiclyReadable(access, { id: page.id, trashed_at: null });
    dependsOn.set(page.id, dependsOn.get(page.id) === true || readable);
    if (readable) linkable.add(page.slug);
  }
  return unlinkWikilinks(html, (slug) => linkable.has(slug));
}

/** Everything the page's public document shows, or null when the public may not read it. */
export async function loadPublicPageData(sequelize: Sequelize, pageId: string, transaction?: Transaction, locale: Locale = 'en'): Promise<PublicPageData | null> {
  const [row] = await queryPrepared<PageDataRow>(sequelize, PAGE_DATA, [pageId, MAX_TRANSCLUSION_DEPTH], transaction);
  if (!row || row.trashed_at) return null;
  const access = await publicAccessTo(sequelize, row.pond_id, transaction);
  if (!access || !publiclyReadable(access, row)) return null;
  const pond: PublicPondRow = { id: row.pond_id, slug: row.pond_slug, name: row.pond_name, fonts: withFontDefaults(row.pond_fonts ?? {}) };

  const dependsOn = new Map<string, boolean>();
  const shown = (entries: LinkedPage[]) => {
    const readable = entries.filter((entry) => publiclyReadable(access, { id: entry.id, trashed_at: entry.trashed_at ? new Date(entry.trashed_at) : null }));
    entries.forEach((entry) => dependsOn.set(entry.id, dependsOn.get(entry.id) === true || readable.includes(entry)));
    return readable.map((entry) => ({ slug: entry.slug, title: entry.title }));
  };
  const ancestors = shown(row.ancestors);
  const children = shown(row.children);
  const backlinks = shown(row.backlinks).sort((a, b) => a.title.localeCompare(b.title, 'en') || a.slug.localeCompare(b.slug, 'en'));

  const targets = resolveTransclusions(row, access, dependsOn);
  const expanded = expandPlaceholders(row.html ?? '', {
    selfSlug: row.slug.toLowerCase(),
    resolveTransclusion: (slug) => targets.get(slug.toLowerCase()) ?? null,
    resolvePluginBlock: (block) => pluginBlockStaticForm(row.id, block),
    emptyNote: apiText('transclusion.empty', locale),
  });
  // The page itself is public (checked above): a link to it stays a link.
  const bodyHtml = await withoutDeadLinks(sequelize, expanded, access, row, dependsOn, transaction);
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
    comments: row.comments,
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
