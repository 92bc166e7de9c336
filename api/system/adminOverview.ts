/**
 * The admin overview's counts (`GET /admin/overview`, docs/administration.md): accounts by
 * status, live ponds and pages (the trash not counted), and the storage the files take
 * (every stored file, also those of trashed pages and ponds: they take space until purged).
 */
import { QueryTypes, type Sequelize } from 'sequelize';

export const USER_STATUSES = ['ACTIVE', 'unconfirmed', 'disabled', 'deleted'] as const;

export interface AdminOverviewView {
  users: Record<(typeof USER_STATUSES)[number], number>;
  ponds: number;
  pages: number;
  storage: { bytes: number; files: number };
}

export async function adminOverview(sequelize: Sequelize): Promise<AdminOverviewView> {
  const [byStatus, [counts]] = await Promise.all([
    sequelize.query<{ status: string; count: string }>('SELECT status, count(*) AS count FROM users GROUP BY status', { type: QueryTypes.SELECT }),
    sequelize.query<{ ponds: string; pages: string; bytes: string; files: string }>(
      `SELECT (SELECT count(*) FROM ponds WHERE trashed_at IS NULL) AS ponds,
              (SELECT count(*) FROM pages pg JOIN ponds p ON p.id = pg.pond_id WHERE pg.trashed_at IS NULL AND p.trashed_at IS NULL) AS pages,
              (SELECT coalesce(sum(size_bytes), 0) FROM files) AS bytes,
              (SELECT count(*) FROM files) AS files`,
      { type: QueryTypes.SELECT },
    ),
  ]);
  const users = Object.fromEntries(USER_STATUSES.map((status) => [status, 0])) as AdminOverviewView['users'];
  for (const row of byStatus) if ((USER_STATUSES as readonly string[]).includes(row.status)) users[row.status as keyof typeof users] = Number(row.count);
  return { users, ponds: Number(counts!.ponds), pages: Number(counts!.pages), storage: { bytes: Number(counts!.bytes), files: Number(counts!.files) } };
}
