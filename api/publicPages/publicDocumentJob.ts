/**
 * The regeneration the worker runs (`public-documents`): drains the queue and regenerates
 * the documents each change affects, found through the dependency index:
 *
 * - a page change: the page itself; its parent (children list); every document recorded as
 *   depending on it (breadcrumbs of descendants, children lists, backlinks, transclusions at
 *   any level); the pages it links to (their backlinks); the pages transcluding or linking to
 *   its slug (a target that just appeared: the link becomes a live one) and those depending on
 *   them; the pond index when its title,
 *   slug or place changed;
 * - a pond change (name, fonts, access): every stored document of the pond and its index;
 * - a site change: the landing and legal pages;
 * - any change in a pond with a `public` grant: the landing pages too (their lists of public
 *   ponds and recently changed public pages), once per batch however many saves it holds.
 *
 * Besides the changed page itself only documents already in storage are regenerated (the rest
 * is generated on first request), and a regeneration that yields the same bytes writes
 * nothing (publicDocumentStore.ts), so unaffected documents keep their bytes and ETags.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../logger.ts';
import { pondHasPublicGrantSql } from '../policies/accessPolicy.ts';
import type { QueuedChange } from './publicDocumentQueue.ts';
import { LANDING_DOCUMENT_KEYS, regeneratePage, regeneratePondIndex, regenerateSiteDocument, SITE_DOCUMENT_KEYS, type GenerationContext } from './publicDocumentService.ts';

/** Changes arriving together are handled together: a save burst costs one generation. */
export const GENERATION_DEBOUNCE_MS = 150;
const DRAIN_BATCH = 500;

interface QueueRow {
  pond_id: string | null;
  page_id: string | null;
  tree_changed: boolean;
}

const CANDIDATES_SQL = `
  WITH changed AS (SELECT unnest($1::uuid[]) AS id),
  x AS (SELECT p.id, p.pond_id, p.parent_id, lower(p.slug) AS slug FROM pages p JOIN changed ON changed.id = p.id),
  slug_sources AS (
    SELECT t.source_page_id AS id FROM page_transclusions t JOIN x ON t.pond_id = x.pond_id AND t.target_slug = x.slug
    UNION SELECT l.source_page_id FROM page_links l JOIN x ON l.pond_id = x.pond_id AND lower(l.target_slug) = x.slug
  ),
  related AS (
    SELECT parent_id AS id FROM x WHERE parent_id IS NOT NULL
    UNION SELECT d.page_id FROM public_document_dependencies d JOIN changed ON d.depends_on = changed.id
    UNION SELECT l.target_page_id FROM page_links l JOIN changed ON l.source_page_id = changed.id WHERE l.target_page_id IS NOT NULL
    UNION SELECT id FROM slug_sources
    UNION SELECT d.page_id FROM public_document_dependencies d JOIN slug_sources s ON d.depends_on = s.id
  )
  SELECT DISTINCT d.page_id AS id FROM public_documents d JOIN related r ON r.id = d.page_id`;

async function drain(sequelize: Sequelize): Promise<QueueRow[]> {
  return sequelize.query<QueueRow>(
    `DELETE FROM public_document_queue WHERE id IN (
       SELECT id FROM public_document_queue ORDER BY id LIMIT ${DRAIN_BATCH} FOR UPDATE SKIP LOCKED)
     RETURNING pond_id, page_id, tree_changed`,
    { type: QueryTypes.SELECT },
  );
}

export interface RegenerationReport {
  generated: number;
  changed: number;
}

/** Every page whose document the changed pages affect (stored ones; the changed pages always). */
export async function affectedPages(sequelize: Sequelize, pageIds: readonly string[]): Promise<string[]> {
  if (pageIds.length === 0) return [];
  const rows = await sequelize.query<{ id: string }>(CANDIDATES_SQL, { bind: [pageIds], type: QueryTypes.SELECT });
  return [...new Set([...pageIds, ...rows.map((row) => row.id)])];
}

async function storedPagesOf(sequelize: Sequelize, pondIds: readonly string[]): Promise<string[]> {
  if (pondIds.length === 0) return [];
  const rows = await sequelize.query<{ page_id: string }>(`SELECT page_id FROM public_documents WHERE pond_id IN (:pondIds) AND page_id IS NOT NULL`, {
    replacements: { pondIds },
    type: QueryTypes.SELECT,
  });
  return rows.map((row) => row.page_id);
}

/** Whether any of the ponds has a `public` grant: its changes may show on the landing page. */
async function anyPublicPond(sequelize: Sequelize, pondIds: readonly string[]): Promise<boolean> {
  if (pondIds.length === 0) return false;
  const rows = await sequelize.query(`SELECT 1 FROM unnest($1::uuid[]) AS c (pond_id) WHERE ${pondHasPublicGrantSql('c.pond_id')} LIMIT 1`, { bind: [pondIds], type: QueryTypes.SELECT });
  return rows.length > 0;
}

async function pondsWithDocuments(sequelize: Sequelize, pondIds: readonly string[]): Promise<Set<string>> {
  if (pondIds.length === 0) return new Set();
  const rows = await sequelize.query<{ pond_id: string }>(`SELECT DISTINCT pond_id FROM public_documents WHERE pond_id = ANY ($1::uuid[])`, { bind: [pondIds], type: QueryTypes.SELECT });
  return new Set(rows.map((row) => row.pond_id));
}

/** Drains the queue until it is empty; each batch's work is regenerated once. */
export async function runQueuedRegeneration(context: GenerationContext, logger: Logger): Promise<RegenerationReport> {
  await new Promise((resolve) => setTimeout(resolve, GENERATION_DEBOUNCE_MS));
  const report: RegenerationReport = { generated: 0, changed: 0 };
  for (;;) {
    const drained = await drain(context.sequelize);
    if (drained.length === 0) return report;
    const pondIds = [...new Set(drained.flatMap((row) => (row.pond_id ? [row.pond_id] : [])))];
    const landing = drained.some((row) => row.pond_id === null && row.page_id === null) || (await anyPublicPond(context.sequelize, pondIds));
    // A pond without stored documents was queued for the landing page alone: its documents are
    // generated on their first request.
    const storedPonds = await pondsWithDocuments(context.sequelize, pondIds);
    const rows = drained.filter((row) => row.pond_id === null || storedPonds.has(row.pond_id));
    const site = rows.some((row) => row.pond_id === null && row.page_id === null);
    const wholePonds = new Set(rows.filter((row) => row.pond_id && !row.page_id).map((row) => row.pond_id!));
    const indexPonds = new Set([...wholePonds, ...rows.filter((row) => row.pond_id && row.tree_changed).map((row) => row.pond_id!)]);
    const changedPages = [...new Set(rows.filter((row) => row.page_id && !wholePonds.has(row.pond_id!)).map((row) => row.page_id!))];

    const pages = new Set([...(await storedPagesOf(context.sequelize, [...wholePonds])), ...(await affectedPages(context.sequelize, changedPages))]);
    // One failing document must not leave the rest of the batch stale: it goes back on the
    // queue, the others are done, and the job fails so Graphile retries it with backoff.
    const failed: QueuedChange[] = [];
    const count = async (work: () => Promise<{ changed: boolean }>, retry: QueuedChange) => {
      try {
        const { changed } = await work();
        report.generated += 1;
        if (changed) report.changed += 1;
      } catch (error) {
        logger.error({ err: error, ...retry }, 'public document generation failed');
        failed.push(retry);
      }
    };
    for (const pageId of pages) await count(() => regeneratePage(context, pageId), { pondId: null, pageId });
    for (const pondId of indexPonds) await count(() => regeneratePondIndex(context, pondId), { pondId, pageId: null, treeChanged: true });
    const siteKeys = site ? SITE_DOCUMENT_KEYS : landing ? LANDING_DOCUMENT_KEYS : [];
    for (const key of siteKeys) await count(() => regenerateSiteDocument(context, key), { pondId: null, pageId: null });
    logger.debug({ ...report, queued: drained.length }, 'public documents regenerated');
    if (failed.length > 0) {
      await requeue(context.sequelize, failed);
      throw new Error(`${failed.length} public document(s) failed to generate; queued again`);
    }
  }
}

/** Puts failed work back on the queue (a page under its current pond; a purged page is dropped). */
async function requeue(sequelize: Sequelize, changes: readonly QueuedChange[]): Promise<void> {
  const pageIds = changes.flatMap((change) => (change.pageId ? [change.pageId] : []));
  const others = changes.filter((change) => !change.pageId);
  await sequelize.query(
    `INSERT INTO public_document_queue (pond_id, page_id, tree_changed)
     SELECT p.pond_id, p.id, false FROM pages p WHERE p.id = ANY ($1::uuid[])
     UNION ALL SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::boolean[])`,
    { bind: [pageIds, others.map((change) => change.pondId), others.map(() => null), others.map((change) => change.treeChanged ?? false)] },
  );
}
