/**
 * Makes requests cross deterministically: the test holds some rows locked until every request
 * has passed authentication and waits for that lock, then lets them all go at once. Without
 * it, one request may finish before the other starts and the race is never run.
 */
import { QueryTypes } from 'sequelize';
import { waitFor } from './polling.ts';
import type { TestInstance } from './testInstance.ts';

/** Runs `requests` while `lockSql` (a `SELECT … FOR UPDATE`) holds its rows, until all of them wait for it. */
export async function crossingRequests<T>(instance: TestInstance, lockSql: string, requests: (() => Promise<T>)[]): Promise<T[]> {
  const sequelize = instance.services.sequelize;
  const hold = await sequelize.transaction();
  let pending: Promise<T[]> | null = null;
  try {
    await sequelize.query(lockSql, { transaction: hold, type: QueryTypes.SELECT });
    pending = Promise.all(requests.map((request) => request()));
    await waitFor(
      async () => {
        const [row] = await sequelize.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          { type: QueryTypes.SELECT },
        );
        return (row?.waiting ?? 0) >= requests.length;
      },
      10_000,
      'every request to wait for the held rows',
    );
  } finally {
    await hold.commit();
  }
  return pending;
}

/** The lock every Site Admin action that may remove one takes first (api/commands/managedAccounts.ts). */
export const SITE_ADMIN_ROWS = `SELECT id FROM users WHERE is_site_admin ORDER BY id FOR UPDATE`;
