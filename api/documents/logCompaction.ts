/**
 * Merging a page's update log into one row (`compactPageLog`), at two moments:
 *
 * - **hourly** (spec, Limits): every page with more than 500 log rows and no live collaboration
 *   session;
 * - **after a session** (the `page-log-compaction` job, queued by the collaboration server
 *   when a page's last participant has left): that page, once its log holds more than 50 rows.
 *   A page's next cold open then reads one row and applies one update instead of hundreds
 *   (bench:collab (d): a 160 KB page with 300 rows applies in 2.5 ms, merged in 1 ms, and its
 *   read is one row instead of 301). This is the "snapshot kept current": the log stays the
 *   only store, so every durability guarantee of the log holds for it.
 *
 * Pages being edited are left alone, so compaction never competes with the collaboration
 * server on a hot log; rows appended while a page is compacted survive anyway. One page at a
 * time, each in its own transaction on one connection: a long run holds no lock on more than
 * the page at hand.
 */
import { compactPageLog, type Queryable } from './documentLog.ts';

export const COMPACTION_MIN_ROWS = 500;
/** After a session, a shorter log is left as it is: its rows cost a cold open little, rewriting the page costs a write of its whole state. */
export const SESSION_END_COMPACTION_MIN_ROWS = 50;
/** The job the collaboration server queues when a page's last participant has left (jobs/tasks/logCompactionTask.ts). */
export const PAGE_LOG_COMPACTION_JOB = 'page-log-compaction';
/**
 * The job waits this long: someone who closes a page and opens it again at once finds their
 * session live and the job skips the page; every leave within the wait is one job (its key).
 */
export const SESSION_END_COMPACTION_DELAY_SECONDS = 10;
/** A session is live while its heartbeat (every 30 s) is younger than this. */
export const LIVE_SESSION_SECONDS = 90;

/** Runs `work` on one connection of a pool and releases it (Graphile's `helpers.withPgClient` is one). */
export type WithClient = <T>(work: (client: Queryable) => Promise<T>) => Promise<T>;

/** A `WithClient` over a pg pool (what the worker's `helpers.withPgClient` is for jobs), for benches, the soak and tests. */
export function withClientOf(pool: { connect(): Promise<Queryable & { release(): void }> }): WithClient {
  return async (work) => {
    const client = await pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  };
}

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

/**
 * The `page-log-compaction` job: compacts `pageId`'s log if nobody edits the page (again) and
 * its log holds more than `minRows` rows; null when it left the log as it was.
 */
export async function compactLogAfterSession(withClient: WithClient, pageId: string, minRows = SESSION_END_COMPACTION_MIN_ROWS): Promise<CompactedLog | null> {
  return withClient(async (client) => {
    if (!(await stillIdle(client, pageId))) return null;
    const { rows } = await client.query<{ count: number }>(`SELECT count(*)::int AS count FROM page_updates WHERE page_id = $1`, [pageId]);
    if ((rows[0]?.count ?? 0) <= minRows) return null;
    const result = await compactPageLog(client, pageId);
    return result.mergedRows > 0 ? { pageId, ...result } : null;
  });
}

/**
 * Queues the `page-log-compaction` job for a page whose last participant has left; returns the
 * job's id. One pending job per page (its job key): a later leave moves it to wait from then on.
 */
export async function queueCompactionAfterSession(db: Queryable, pageId: string, delaySeconds = SESSION_END_COMPACTION_DELAY_SECONDS): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text FROM graphile_worker.add_job($1, json_build_object('pageId', $2::text), job_key := $1 || ':' || $2, run_at := now() + make_interval(secs => $3), max_attempts := 3)`,
    [PAGE_LOG_COMPACTION_JOB, pageId, delaySeconds],
  );
  return rows[0]!.id;
}
