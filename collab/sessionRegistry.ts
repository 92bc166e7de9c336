/**
 * One `collab_sessions` row per live connection, refreshed by a heartbeat every 30 s. A crashed
 * collab process stops beating, so its rows age out: compaction treats a page as idle once no
 * row is younger than `SESSION_STALE_SECONDS`, and whichever instance beats next reaps the
 * stale rows and reports the pages left without a live session, so their "last participant
 * left" version is still taken.
 */
import type { Queryable } from '../api/documents/documentLog.ts';
import type { Logger } from '../api/logger.ts';

export const HEARTBEAT_INTERVAL_MS = 30_000;
/** Three missed heartbeats. api/documents/logCompaction.ts uses the same window. */
export const SESSION_STALE_SECONDS = 90;

export interface SessionRow {
  id: string;
  pageId: string;
  userId: string | null;
  mode: 'rw' | 'ro';
}

export class SessionRegistry {
  private readonly db: Queryable;
  private readonly logger: Logger;
  readonly instanceId: string;
  private timer: NodeJS.Timeout | null = null;

  constructor(db: Queryable, instanceId: string, logger: Logger) {
    this.db = db;
    this.instanceId = instanceId;
    this.logger = logger;
  }

  start(intervalMs = HEARTBEAT_INTERVAL_MS): void {
    this.timer = setInterval(() => void this.beat(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.db.query(`DELETE FROM collab_sessions WHERE instance_id = $1`, [this.instanceId]).catch(() => undefined);
  }

  async open(session: SessionRow): Promise<void> {
    await this.db.query(
      `INSERT INTO collab_sessions (id, page_id, user_id, instance_id, mode)
         SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM pages WHERE id = $2)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), mode = excluded.mode`,
      [session.id, session.pageId, session.userId, this.instanceId, session.mode],
    );
  }

  async close(sessionId: string): Promise<void> {
    await this.db.query(`DELETE FROM collab_sessions WHERE id = $1`, [sessionId]);
  }

  /** Called with the pages whose last sessions this instance reaped (their holders crashed). */
  onAbandoned: ((pageIds: string[]) => Promise<void>) | null = null;

  async beat(): Promise<void> {
    try {
      await this.db.query(`UPDATE collab_sessions SET heartbeat_at = now() WHERE instance_id = $1`, [this.instanceId]);
      const abandoned = await this.reapStaleSessions();
      if (abandoned.length > 0) await this.onAbandoned?.(abandoned);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'collab session heartbeat failed');
    }
  }

  /**
   * Deletes sessions that stopped beating; returns the pages they leave without any live
   * session. The DELETE is the claim: of two instances beating at once, only one gets the rows.
   */
  async reapStaleSessions(): Promise<string[]> {
    const { rows } = await this.db.query<{ page_id: string }>(
      `WITH reaped AS (
         DELETE FROM collab_sessions WHERE heartbeat_at < now() - make_interval(secs => $1) RETURNING page_id
       )
       SELECT DISTINCT r.page_id FROM reaped r
        WHERE NOT EXISTS (SELECT 1 FROM collab_sessions s WHERE s.page_id = r.page_id AND s.heartbeat_at >= now() - make_interval(secs => $1))`,
      [SESSION_STALE_SECONDS],
    );
    return rows.map((row) => row.page_id);
  }
}

/** Whether any live (non-stale) session holds the page, on any instance. */
export async function pageHasLiveSession(db: Queryable, pageId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM collab_sessions WHERE page_id = $1 AND heartbeat_at > now() - make_interval(secs => $2) LIMIT 1`,
    [pageId, SESSION_STALE_SECONDS],
  );
  return rows.length > 0;
}
