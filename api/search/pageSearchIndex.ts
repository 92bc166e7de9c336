/**
 * Page search vectors: the one definition of what a page's vector holds, and the hooks that
 * keep vectors in step with the trash. A trashed page or a page of a trashed pond has no
 * vector; restoring rebuilds the vectors of the pages that are live.
 *
 * The vector weighs the title most (A), then the names of the page's labels (B), then the
 * body's plain text from the last save (C). Every part goes through lower() and dt_unaccent()
 * before the `simple` configuration, so a search folds case and diacritics ('Baume' finds
 * 'Bäume') by folding its query the same way. The save path (api/documents/derivedData.ts)
 * builds the vector with the same expression, handing the fresh plain text in directly.
 */
import type { Sequelize, Transaction } from 'sequelize';

/**
 * A tsvector must stay under 1 MB, or building it fails. Each distinct lexeme costs its bytes
 * plus about 8 bytes of header and position: text of two-character words of four-byte
 * characters costs up to ~5.4 bytes per input character, so 100,000 characters stay below
 * ~550 kB whatever the text. The rest of a longer body is not indexed; the save never fails.
 */
export const SEARCH_BODY_MAX_CHARS = 100_000;

function foldedVector(text: string, weight: 'A' | 'B' | 'C'): string {
  return `setweight(to_tsvector('simple', dt_unaccent(lower(${text}))), '${weight}')`;
}

/**
 * The search vector of the `pages` row aliased `page`, as an SQL expression, with `body`
 * (an SQL expression yielding text or null) as the body text.
 */
export function pageSearchVectorSql(page: string, body: string): string {
  const labelNames = `(SELECT string_agg(l.name, ' ') FROM page_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.page_id = ${page}.id)`;
  return [
    foldedVector(`coalesce(${page}.title, '')`, 'A'),
    foldedVector(`coalesce(${labelNames}, '')`, 'B'),
    foldedVector(`left(coalesce(${body}, ''), ${SEARCH_BODY_MAX_CHARS})`, 'C'),
  ].join(' || ');
}

/** The vector from what is stored: the plain text of the page's last save. */
const STORED_VECTOR_SQL = pageSearchVectorSql('p', `(SELECT c.plain_text FROM page_contents c WHERE c.page_id = p.id)`);

function sequelizeOf(transaction: Transaction): Sequelize {
  return (transaction as unknown as { sequelize: Sequelize }).sequelize;
}

/** Trashing a pond: no page of it may be found any more. */
export async function clearPondSearchVectors(pondId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(`UPDATE pages SET search_vector = NULL WHERE pond_id = :pondId`, { replacements: { pondId }, transaction });
}

/** Restoring a pond: only the pages that were live (not in the page trash) are indexed again. */
export async function reindexLivePondPages(pondId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(`UPDATE pages p SET search_vector = ${STORED_VECTOR_SQL} WHERE p.pond_id = :pondId AND p.trashed_at IS NULL`, {
    replacements: { pondId },
    transaction,
  });
}

/** Trashing pages (promote: the page; subtree: all of it): a trashed page cannot be found. */
export async function clearPageSearchVectors(pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelizeOf(transaction).query(`UPDATE pages SET search_vector = NULL WHERE id IN (:pageIds)`, { replacements: { pageIds: [...pageIds] }, transaction });
}

/** After a page is created, restored, its title or its labels change (live pages only). */
export async function reindexPages(pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelizeOf(transaction).query(`UPDATE pages p SET search_vector = ${STORED_VECTOR_SQL} WHERE p.id IN (:pageIds) AND p.trashed_at IS NULL`, {
    replacements: { pageIds: [...pageIds] },
    transaction,
  });
}
