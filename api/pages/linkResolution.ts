/**
 * Keeps the resolution of wikilinks (`page_links.target_page_id`) in step with the pages they
 * point at. A link resolves to the live page of its pond whose slug equals the link's target,
 * compared case-insensitively as slugs are; without one it is a phantom (null target).
 *
 * - created or restored page: phantoms naming its slug resolve to it;
 * - slug changed: links resolved to it under the old slug become phantoms, phantoms naming the
 *   new slug resolve to it;
 * - trashed page (promote: the page, subtree: all of them): links to it become phantoms;
 * - purged page: the foreign key sets the target null.
 * The save path (api/documents/derivedData.ts) resolves a page's own links when it writes them.
 * Callers hold the pond tree lock, which the save path respects (see there).
 */
import type { Sequelize, Transaction } from 'sequelize';

/*
 * One statement for every case: each link that points at one of the pages, or is a phantom
 * naming a live one's slug, is set to what the page's current slug and state say. Slugs are
 * unique per pond, so a phantom matches at most one page.
 */
const SYNC_SQL = `
  WITH target AS (
    SELECT id, pond_id, lower(slug) AS slug_key, trashed_at IS NULL AS live FROM pages WHERE id IN (:pageIds)
  )
  UPDATE page_links pl
     SET target_page_id = CASE WHEN target.live AND lower(pl.target_slug) = target.slug_key THEN target.id END
    FROM target
   WHERE pl.pond_id = target.pond_id
     AND (pl.target_page_id = target.id OR (pl.target_page_id IS NULL AND target.live AND lower(pl.target_slug) = target.slug_key))`;

/**
 * Re-resolves the links pointing at `pageIds` (by id or by slug) after those pages were
 * created, restored, trashed or had their slug changed, inside the caller's transaction.
 */
export async function syncLinksToPages(sequelize: Sequelize, pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelize.query(SYNC_SQL, { replacements: { pageIds: [...pageIds] }, transaction });
}
