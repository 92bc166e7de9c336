/**
 * One `collab_sessions` row per live connection, refreshed by a heartbeat every 30 s. A crashed
 * collab process stops beating, so its rows age out: compaction and "last participant left"
 * treat a page as idle once no row is younger than `SESSION_STALE_SECONDS`. Rows of crashed
 * processes are deleted after a while, by whichever instance beats next.
 */
import type { Queryable } from '../api/documents/documentLog.ts';
import type { Logger } from '../api/logger.ts';

export const HEARTBEAT_INTERVAL_MS = 30_000;
/** Three missed heartbeats. api/documents/logCompaction.ts uses the same window. */
export const SESSION_STALE_SECONDS = 90;
const STALE_ROW_RETENTION = `interval '1 hour'`;

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

  async beat(): Promise<void> {
    try {
      await this.db.query(`UPDATE collab_sessions SET heartbeat_at = now() WHERE instance_id = $1`, [this.instanceId]);
      await this.db.query(`DELETE FROM collab_sessions WHERE heartbeat_at < now() - ${STALE_ROW_RETENTION}`);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'collab session heartbeat failed');
    }
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
