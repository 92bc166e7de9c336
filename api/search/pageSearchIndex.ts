/**
 * The hooks that keep page search vectors in step with the trash: a trashed page or pond
 * has no vector, and restoring rebuilds the vectors of the pages that are live. For now the
 * vector holds the title; the search issue extends `VECTOR_SQL` with the page text.
 */
import type { Sequelize, Transaction } from 'sequelize';

const VECTOR_SQL = `setweight(to_tsvector('simple', coalesce(title, '')), 'A')`;

function sequelizeOf(transaction: Transaction): Sequelize {
  return (transaction as unknown as { sequelize: Sequelize }).sequelize;
}

/** Trashing a pond: no page of it may be found any more. */
export async function clearPondSearchVectors(pondId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(`UPDATE pages SET search_vector = NULL WHERE pond_id = :pondId`, { replacements: { pondId }, transaction });
}

/** Restoring a pond: only the pages that were live (not in the page trash) are indexed again. */
export async function reindexLivePondPages(pondId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(`UPDATE pages SET search_vector = ${VECTOR_SQL} WHERE pond_id = :pondId AND trashed_at IS NULL`, {
    replacements: { pondId },
    transaction,
  });
}

/** Trashing pages (promote: the page; subtree: all of it): a trashed page cannot be found. */
export async function clearPageSearchVectors(pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelizeOf(transaction).query(`UPDATE pages SET search_vector = NULL WHERE id IN (:pageIds)`, { replacements: { pageIds: [...pageIds] }, transaction });
}

/** After a page is created, restored or its title changes (live pages only). */
export async function reindexPages(pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelizeOf(transaction).query(`UPDATE pages SET search_vector = ${VECTOR_SQL} WHERE id IN (:pageIds) AND trashed_at IS NULL`, {
    replacements: { pageIds: [...pageIds] },
    transaction,
  });
}
