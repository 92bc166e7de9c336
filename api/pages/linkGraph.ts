/**
 * What the wikilink index (`page_links`, kept by api/documents/derivedData.ts and
 * api/pages/linkResolution.ts) answers: a page's backlinks, a pond's phantom links (targets
 * no live page has) and a pond's link graph. Every answer is the caller's readable slice:
 * trashed pages never appear, a page the caller may not read appears nowhere (nor its
 * snippet), an edge needs both ends readable, and a phantom whose every readable referrer is
 * filtered out is not listed. Access is judged in memory with the pond's resolved access.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { backlinkCursor, phantomCursor, type BacklinkCursor } from '../http/cursorCodec.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { presentReferrer, type LinkGraphView, type PhantomLinkView, type ReferrerFields, type ReferrerView } from '../presenters/linkPresenter.ts';
import { presentPageReference } from '../presenters/pagePresenter.ts';
import { collectReadable, liveReadability } from './readableBatches.ts';
import { withLinkTexts } from './phantomLinkTexts.ts';

export const DEFAULT_LINK_LIST_LIMIT = 100;
export const MAX_LINK_LIST_LIMIT = 500;
// Later batches grow while many rows are unreadable, up to this many per query.
const MAX_BATCH = 2_000;

export interface LinkListing<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The live pages linking to `pageId` that the subject may read, by title, each with the
 * snippet around its link. A page linking to itself is its own backlink.
 */
export async function listBacklinks(
  sequelize: Sequelize,
  access: SubjectAccess,
  pageId: string,
  options: { limit?: number; cursor?: BacklinkCursor | null } = {},
): Promise<LinkListing<ReferrerView>> {
  const readable = liveReadability(access);
  const { items, nextKey } = await collectReadable({
    limit: options.limit ?? DEFAULT_LINK_LIST_LIMIT,
    after: options.cursor ?? null,
    maxBatch: MAX_BATCH,
    fetch: (after, size) =>
      sequelize.query<ReferrerFields>(
        // A source linking twice in different letter case is listed once.
        `SELECT DISTINCT ON (s.title, s.id) s.id, s.title, s.slug, pl.snippet
           FROM page_links pl JOIN pages s ON s.id = pl.source_page_id
          WHERE pl.target_page_id = :pageId AND pl.pond_id = :pondId AND s.trashed_at IS NULL
            ${after ? 'AND (s.title, s.id) > (:afterTitle, CAST(:afterId AS uuid))' : ''}
          ORDER BY s.title, s.id, pl.target_slug
          LIMIT :size`,
        {
          replacements: { pageId, pondId: access.data.pondId, afterTitle: after?.title ?? null, afterId: after?.id ?? null, size },
          type: QueryTypes.SELECT,
        },
      ),
    keyOf: (row): BacklinkCursor => ({ title: row.title, id: row.id }),
    keep: (row) => (readable(row.id) ? presentReferrer(row) : null),
  });
  return { items, nextCursor: nextKey ? backlinkCursor.encode(nextKey) : null };
}

interface PhantomRow extends ReferrerFields {
  target_key: string;
}

interface PhantomGroup {
  targetSlug: string;
  referrers: PhantomRow[];
}

/** `size` phantom targets after `after` with all their live referrers, grouped per target. */
async function fetchPhantomGroups(sequelize: Sequelize, pondId: string, after: string | null, size: number): Promise<PhantomGroup[]> {
  const rows = await sequelize.query<PhantomRow>(
    `WITH targets AS (
       SELECT DISTINCT lower(pl.target_slug) AS target_key
         FROM page_links pl JOIN pages s ON s.id = pl.source_page_id AND s.trashed_at IS NULL
        WHERE pl.pond_id = :pondId AND pl.target_page_id IS NULL ${after === null ? '' : 'AND lower(pl.target_slug) > :after'}
        ORDER BY 1
        LIMIT :size
     )
     SELECT DISTINCT ON (t.target_key, s.title, s.id) t.target_key, s.id, s.title, s.slug, pl.snippet
       FROM targets t
       JOIN page_links pl ON pl.pond_id = :pondId AND pl.target_page_id IS NULL AND lower(pl.target_slug) = t.target_key
       JOIN pages s ON s.id = pl.source_page_id AND s.trashed_at IS NULL
      ORDER BY t.target_key, s.title, s.id, pl.target_slug`,
    { replacements: { pondId, after, size }, type: QueryTypes.SELECT },
  );
  const groups: PhantomGroup[] = [];
  for (const row of rows) {
    const last = groups.at(-1);
    if (last && last.targetSlug === row.target_key) last.referrers.push(row);
    else groups.push({ targetSlug: row.target_key, referrers: [row] });
  }
  return groups;
}

/**
 * The pond's missing link targets, by slug, each with the live pages linking to it that the
 * subject may read (by title) and their snippets. A target without such a page is left out.
 */
export async function listPhantomLinks(
  sequelize: Sequelize,
  access: SubjectAccess,
  options: { limit?: number; cursor?: string | null } = {},
): Promise<LinkListing<PhantomLinkView>> {
  const readable = liveReadability(access);
  const { items, nextKey } = await collectReadable({
    limit: options.limit ?? DEFAULT_LINK_LIST_LIMIT,
    after: options.cursor ?? null,
    maxBatch: MAX_BATCH,
    fetch: (after, size) => fetchPhantomGroups(sequelize, access.data.pondId, after, size),
    keyOf: (group) => group.targetSlug,
    keep: (group): Omit<PhantomLinkView, 'linkText'> | null => {
      const referrers = group.referrers.filter((row) => readable(row.id));
      return referrers.length === 0 ? null : { targetSlug: group.targetSlug, referrers: referrers.map(presentReferrer) };
    },
  });
  return { items: await withLinkTexts(sequelize, items), nextCursor: nextKey === null ? null : phantomCursor.encode(nextKey) };
}

/**
 * One missing target of the pond (its slug, any case) with its readable live referrers, or
 * null when no page the subject may read links there: the missing-page screen's data.
 */
export async function findPhantomLink(sequelize: Sequelize, access: SubjectAccess, slug: string): Promise<PhantomLinkView | null> {
  const readable = liveReadability(access);
  const rows = await sequelize.query<ReferrerFields>(
    `SELECT DISTINCT ON (s.title, s.id) s.id, s.title, s.slug, pl.snippet
       FROM page_links pl JOIN pages s ON s.id = pl.source_page_id AND s.trashed_at IS NULL
      WHERE pl.pond_id = :pondId AND pl.target_page_id IS NULL AND lower(pl.target_slug) = lower(:slug)
      ORDER BY s.title, s.id, pl.target_slug`,
    { replacements: { pondId: access.data.pondId, slug }, type: QueryTypes.SELECT },
  );
  const referrers = rows.filter((row) => readable(row.id)).map(presentReferrer);
  if (referrers.length === 0) return null;
  const [found] = await withLinkTexts(sequelize, [{ targetSlug: slug.toLowerCase(), referrers }]);
  return found!;
}

/**
 * The pond's link graph as the subject may see it: its readable live pages (by title), the
 * resolved links between two of them (one edge per direction) and the phantom targets with
 * their readable referrers. Links resolve only within their pond, so no other pond shows.
 */
export async function loadLinkGraph(sequelize: Sequelize, access: SubjectAccess): Promise<LinkGraphView> {
  const pondId = access.data.pondId;
  const select = <T extends object>(sql: string) => sequelize.query<T>(sql, { replacements: { pondId }, type: QueryTypes.SELECT });
  const [pages, links, phantoms] = await Promise.all([
    select<{ id: string; title: string; slug: string }>(`SELECT id, title, slug FROM pages WHERE pond_id = :pondId AND trashed_at IS NULL ORDER BY title, id`),
    select<{ source: string; target: string }>(
      `SELECT DISTINCT pl.source_page_id AS source, pl.target_page_id AS target
         FROM page_links pl JOIN pages t ON t.id = pl.target_page_id
        WHERE pl.pond_id = :pondId AND t.pond_id = :pondId AND t.trashed_at IS NULL
        ORDER BY 1, 2`,
    ),
    select<{ target_slug: string; referrer_ids: string[] }>(
      `SELECT lower(target_slug) AS target_slug, array_agg(DISTINCT source_page_id::text ORDER BY source_page_id::text) AS referrer_ids
         FROM page_links WHERE pond_id = :pondId AND target_page_id IS NULL
        GROUP BY 1 ORDER BY 1`,
    ),
  ]);
  const readable = liveReadability(access);
  const visible = new Set<string>();
  const nodes: LinkGraphView['nodes'] = [];
  for (const page of pages) {
    if (!readable(page.id)) continue;
    visible.add(page.id);
    nodes.push({ ...presentPageReference(page), labelIds: [...(access.data.pageLabels.get(page.id) ?? [])].sort() });
  }
  return {
    nodes,
    // A link from a trashed page has no visible source: only live, readable ends count.
    edges: links.filter((link) => visible.has(link.source) && visible.has(link.target)).map((link) => ({ source: link.source, target: link.target })),
    phantoms: phantoms.flatMap((phantom) => {
      const referrerIds = phantom.referrer_ids.filter((id) => visible.has(id));
      return referrerIds.length === 0 ? [] : [{ targetSlug: phantom.target_slug, referrerIds }];
    }),
  };
}
