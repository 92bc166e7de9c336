/**
 * The pond row lock. Every change to a pond's page tree (create, move, trash, restore,
 * purge) and every rename takes it first (`FOR UPDATE`), so tree changes of one pond run one
 * after another: two concurrent moves cannot both pass the cycle check, two creations cannot
 * pick the same position, and a pond trashed meanwhile refuses the write.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ApiError, notFound } from '../http/apiError.ts';

/** Locks the pond row for this transaction; refuses a pond in the trash unless `allowTrashed`. */
export async function lockPondTree(sequelize: Sequelize, pondId: string, transaction: Transaction, options: { allowTrashed?: boolean } = {}): Promise<void> {
  const rows = await sequelize.query<{ trashed_at: Date | null }>(`SELECT trashed_at FROM ponds WHERE id = :pondId FOR UPDATE`, {
    replacements: { pondId },
    type: QueryTypes.SELECT,
    transaction,
  });
  const pond = rows[0];
  if (!pond) throw notFound();
  if (pond.trashed_at && !options.allowTrashed) throw new ApiError('pond_trashed', 409);
}
