/**
 * Opening a page nobody has open: the part of a cold open the server can shorten.
 *
 * - The log is read while the access check runs: a valid token names the page, and nothing
 *   read is sent anywhere before the check passes. A connection that does not end up loading
 *   the document (someone else's load got there first, or access is refused) drops its read.
 * - Rows the API appends meanwhile (a version restore) announce themselves on
 *   `page_updates_appended`; a read that started before such a notice is followed by a
 *   catch-up read of the rows after it, so a load never misses one.
 * - The log is applied without the document's `update` event: nobody is connected yet, and
 *   Yjs would encode the whole document once more just to announce it.
 */
import type { Document } from '@hocuspocus/server';
import type pg from 'pg';
import type * as Y from 'yjs';
import { applyLogRows, loadPageUpdates, readPageLog, type LoggedUpdate } from '../api/documents/documentLog.ts';

export interface LogRead {
  rows: Promise<LoggedUpdate[]>;
  /** `appendNotices` when the read started. */
  noticesAtStart: number;
}

export class DocumentLoader {
  private readonly pool: pg.Pool;
  /** `page_updates_appended` notices received so far, for any page. */
  private appendNotices = 0;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Call for every `page_updates_appended` notice, before anything else handles it. */
  noticeAppended(): void {
    this.appendNotices += 1;
  }

  /** Starts reading a page's log; a read nobody takes up is dropped without complaint. */
  startRead(pageId: string): LogRead {
    const rows = readPageLog(this.pool, pageId);
    rows.catch(() => undefined);
    return { rows, noticesAtStart: this.appendNotices };
  }

  /**
   * Loads `read` (or a fresh read) into `document` and returns the highest log id applied.
   * Rows appended after a notice that came while the read was under way are read and applied too.
   */
  async load(document: Document, pageId: string, read: LogRead | undefined, origin: unknown): Promise<number> {
    const started = read ?? this.startRead(pageId);
    const rows = await started.rows;
    let lastId = applyQuietly(document, rows, origin);
    if (this.appendNotices !== started.noticesAtStart) {
      const later = await loadPageUpdates(this.pool, pageId, lastId);
      if (later.length > 0) lastId = applyQuietly(document, later, origin);
    }
    return lastId;
  }
}

/** Applies log rows with the document's `update` listeners set aside (see the header). */
function applyQuietly(document: Y.Doc, rows: readonly LoggedUpdate[], origin: unknown): number {
  // lib0's Observable keeps its listeners in `_observers`; Yjs only encodes an update event when one is registered.
  const observers = (document as unknown as { _observers: Map<string, unknown> })._observers;
  const listeners = observers.get('update');
  observers.delete('update');
  try {
    return applyLogRows(document, rows, origin);
  } finally {
    if (listeners !== undefined) observers.set('update', listeners);
  }
}
