/**
 * Who a feed names: contributors by display name only (never a username or an e-mail
 * address), deleted accounts left out as everywhere contributors are listed
 * (api/documents/versions.ts), and the software as the generator.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { isUuid } from '../policies/accessPolicy.ts';

export const FEED_GENERATOR = { name: 'Dorfteich' } as const;

/**
 * Looks the display names of `ids` up in one query; the returned function maps a list of ids to
 * their names, in order, without repeats or unknown and deleted accounts.
 */
export async function displayNamesOf(sequelize: Sequelize, ids: readonly (string | null)[]): Promise<(ids: readonly (string | null)[]) => string[]> {
  const wanted = [...new Set(ids.filter(isUuid))];
  const rows =
    wanted.length === 0
      ? []
      : await sequelize.query<{ id: string; display_name: string }>(`SELECT id, display_name FROM users WHERE id = ANY ($1::uuid[]) AND status <> 'deleted'`, {
          bind: [wanted],
          type: QueryTypes.SELECT,
        });
  const byId = new Map(rows.map((row) => [row.id, row.display_name]));
  return (list) => [...new Set(list.flatMap((id) => (id && byId.has(id) ? [byId.get(id)!] : [])))];
}
