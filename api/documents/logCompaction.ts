/**
 * The hourly update-log compaction (spec, Limits): a page with more than 500 log rows and no
 * live collaboration session gets its log merged into one row (`compactPageLog`). Pages
 * being edited are left to a later run, so compaction never competes with the collaboration
 * server on a hot log; rows appended while a page is compacted survive anyway.
 *
 * One page at a time, each in its own transaction on one connection: a long run holds no
 * lock on more than the page at hand.
 */
import { compactPageLog, type Queryable } from './documentLog.ts';

export const COMPACTION_MIN_ROWS = 500;
/** A session is live while its heartbeat (every 30 s) is younger than this. */
export const LIVE_SESSION_SECONDS = 90;

/** Runs `work` on one connection of a pool and releases it (Graphile's `helpers.withPgClient` is one). */
export type WithClient = <T>(work: (client: Queryable) => Promise<T>) => Promise<T>;

export interface CompactedLog {
  pageId: string;
  mergedRows: number;
  bytesBefore: number;
  bytesAfter: number;
}

const NO_LIVE_SESSION = `NOT EXISTS (
  SELECT 1 FROM collab_sessions s
   WHERE s.page_id = u.page_id AND s.heartbeat_at > now() - make_interval(secs => $1)
)`;

/** The pages whose log has more than `minRows` rows and that nobody is editing, biggest log first. */
export async function idleLogsToCompact(db: Queryable, minRows = COMPACTION_MIN_ROWS): Promise<string[]> {
  const { rows } = await db.query<{ page_id: string }>(
    `SELECT u.page_id FROM page_updates u
      WHERE ${NO_LIVE_SESSION}
      GROUP BY u.page_id
     HAVING count(*) > $2
      ORDER BY count(*) DESC, u.page_id`,
    [LIVE_SESSION_SECONDS, minRows],
  );
  return rows.map((row) => row.page_id);
}

async function stillIdle(db: Queryable, pageId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM (SELECT $2::uuid AS page_id) u WHERE ${NO_LIVE_SESSION}`, [LIVE_SESSION_SECONDS, pageId]);
  return rows.length > 0;
}

/**
 * Compacts every idle page log over the threshold, one page after the other. A page whose
 * session started since the selection is skipped.
 */
export async function compactIdleLogs(withClient: WithClient, options: { minRows?: number } = {}): Promise<CompactedLog[]> {
  const pageIds = await withClient((client) => idleLogsToCompact(client, options.minRows));
  const compacted: CompactedLog[] = [];
  for (const pageId of pageIds) {
    const result = await withClient(async (client) => ((await stillIdle(client, pageId)) ? compactPageLog(client, pageId) : null));
    if (result && result.mergedRows > 0) compacted.push({ pageId, ...result });
  }
  return compacted;
}
