/**
 * Writes incoming Yjs updates to the page update log with group commit: while one write is
 * in flight, new updates queue up and go out together in the next one, merged into one row
 * per page. A single client typing fast therefore costs one INSERT per database round trip,
 * not one per keystroke, and many clients share the same INSERTs.
 *
 * The promise `enqueue` returns settles only when the update is committed; the ack gate
 * (durableAcks.ts) holds the client's acknowledgement until then. A failed write is retried
 * with backoff, never dropped: the server's in-memory document already holds the update, so a
 * client resending it after a reconnect would not be persisted again.
 */
import { mergeUpdatesInGroups, type Queryable } from '../api/documents/documentLog.ts';
import type { Logger } from '../api/logger.ts';

interface Pending {
  pageId: string;
  update: Uint8Array;
  userId: string | null;
  resolve: () => void;
}

export interface WriteStats {
  flushes: number;
  updatesReceived: number;
  bytesReceived: number;
  rowsWritten: number;
  bytesWritten: number;
}

export interface LogRowsWritten {
  pageId: string;
  id: number;
}

export class UpdateWriter {
  private readonly db: Queryable;
  private readonly logger: Logger;
  private queue: Pending[] = [];
  private inFlight: Promise<void> | null = null;
  private scheduled = false;
  private closed = false;
  readonly stats: WriteStats = { flushes: 0, updatesReceived: 0, bytesReceived: 0, rowsWritten: 0, bytesWritten: 0 };
  /** Called after each commit with the ids of the rows written (a page's last written id). */
  onWritten: ((rows: LogRowsWritten[]) => void) | null = null;

  constructor(db: Queryable, logger: Logger) {
    this.db = db;
    this.logger = logger;
  }

  /** Resolves once the update is in Postgres. `userId` is recorded as a contributor of the page. */
  enqueue(pageId: string, update: Uint8Array, userId: string | null): Promise<void> {
    this.stats.updatesReceived += 1;
    this.stats.bytesReceived += update.byteLength;
    return new Promise<void>((resolve) => {
      this.queue.push({ pageId, update, userId, resolve });
      this.schedule();
    });
  }

  /** Resolves when everything enqueued so far is committed. */
  async drain(): Promise<void> {
    while (this.inFlight || this.queue.length > 0) {
      if (this.inFlight) await this.inFlight;
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  close(): void {
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    // Let every message already read from the sockets in this turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.inFlight) this.inFlight = this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        await this.writeWithRetry(batch);
        for (const entry of batch) entry.resolve();
      }
    } finally {
      this.inFlight = null;
    }
  }

  private async writeWithRetry(batch: Pending[]): Promise<void> {
    let delay = 50;
    for (;;) {
      try {
        await this.write(batch);
        return;
      } catch (error) {
        if (this.closed) throw error;
        this.logger.error({ err: (error as Error).message, updates: batch.length }, 'could not write updates to the log; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    const byPage = new Map<string, Uint8Array[]>();
    const contributors = new Map<string, Set<string>>();
    for (const entry of batch) {
      let updates = byPage.get(entry.pageId);
      if (!updates) byPage.set(entry.pageId, (updates = []));
      updates.push(entry.update);
      if (entry.userId) {
        let users = contributors.get(entry.pageId);
        if (!users) contributors.set(entry.pageId, (users = new Set()));
        users.add(entry.userId);
      }
    }
    const pageIds: string[] = [];
    const rows: Buffer[] = [];
    for (const [pageId, updates] of byPage) {
      const merged = mergeUpdatesInGroups(updates);
      pageIds.push(pageId);
      rows.push(Buffer.from(merged.buffer, merged.byteOffset, merged.byteLength));
    }
    const contributorPages: string[] = [];
    const contributorUsers: string[] = [];
    for (const [pageId, users] of contributors) {
      for (const userId of users) {
        contributorPages.push(pageId);
        contributorUsers.push(userId);
      }
    }
    // One statement, so the log rows and the contributor marks commit together.
    const { rows: written } = await this.db.query<{ page_id: string; id: number }>(
      `WITH contributed AS (
         INSERT INTO page_contributors (page_id, user_id, last_edit_at)
           SELECT c.page_id, c.user_id, now() FROM unnest($3::uuid[], $4::uuid[]) AS c (page_id, user_id)
             WHERE EXISTS (SELECT 1 FROM users WHERE id = c.user_id) AND EXISTS (SELECT 1 FROM pages WHERE id = c.page_id)
           ON CONFLICT (page_id, user_id) DO UPDATE SET last_edit_at = excluded.last_edit_at
       )
       INSERT INTO page_updates (page_id, update)
         SELECT u.page_id, u.update FROM unnest($1::uuid[], $2::bytea[]) AS u (page_id, update)
           -- A page purged while it was open has nothing left to write to.
           WHERE EXISTS (SELECT 1 FROM pages WHERE id = u.page_id)
         RETURNING page_id, id`,
      [pageIds, rows, contributorPages, contributorUsers],
    );
    this.stats.flushes += 1;
    this.stats.rowsWritten += rows.length;
    for (const row of rows) this.stats.bytesWritten += row.byteLength;
    this.onWritten?.(written.map((row) => ({ pageId: row.page_id, id: Number(row.id) })));
  }
}
