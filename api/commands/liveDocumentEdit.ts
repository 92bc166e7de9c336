/**
 * An edit of a page's collaborative document made outside the collaboration server: a version
 * restore (versionCommands.ts), an API content replacement or append (pageContentCommands.ts).
 *
 * The log is never rewound: the page's document is loaded from the update log into a Y.Doc,
 * the edit is made there, and the one Yjs update it produces is appended to the log. The
 * collaboration server hears `page_updates_appended` at commit and applies the new row to the
 * live document, so open editors converge on it, and whatever they typed concurrently is
 * merged by Yjs instead of being overwritten. History stays append-only.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import * as Y from 'yjs';
import { yDocToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../documents/derivedData.ts';
import { appendUpdates, loadYDoc, transactionClient, UPDATES_APPENDED_CHANNEL, type Queryable } from '../documents/documentLog.ts';
import { ApiError, notFound } from '../http/apiError.ts';

/**
 * An edit: the pond row FOR SHARE, then the page row FOR NO KEY UPDATE — the order and modes
 * the save path (derivedData.ts) takes, which the edit calls later; in the other order a
 * tree change holding the pond row could deadlock with us. Edits and saves of one page run
 * one after the other, a trash waits; appends to the log (a foreign key share lock) do not.
 * A manual version takes only the page row, in the same mode: it waits for an edit to
 * commit, and the first load of a page that still has only its initial Markdown (which
 * writes the page row) cannot deadlock with a second snapshot.
 */
export const LOCK_FOR_EDIT = `
  SELECT p.trashed_at FROM pages p
   WHERE p.id = :pageId AND EXISTS (SELECT 1 FROM ponds po WHERE po.id = p.pond_id FOR SHARE)
     FOR NO KEY UPDATE OF p`;
export const LOCK_FOR_SNAPSHOT = `SELECT trashed_at FROM pages WHERE id = :pageId FOR NO KEY UPDATE`;

/** Locks the page row for the rest of the transaction; refuses a missing or trashed page. */
export async function lockLivePage(sequelize: Sequelize, pageId: string, transaction: Transaction, lockSql: string): Promise<void> {
  const rows = await sequelize.query<{ trashed_at: Date | null }>(lockSql, { replacements: { pageId }, type: QueryTypes.SELECT, transaction });
  const row = rows[0];
  if (!row) throw notFound();
  if (row.trashed_at) throw new ApiError('page_trashed', 404, { trashedAt: row.trashed_at.toISOString() });
}

export interface LiveDocumentEdit {
  pageId: string;
  /** Who edits: recorded as a contributor of the next version and as `updated_by`. */
  userId: string;
  /** Runs before the edit with the document's current state (a restore keeps it as a version). */
  beforeEdit?: (db: Queryable, state: Uint8Array) => Promise<void>;
  /** Changes the Y.Doc; must do so in one Yjs transaction (replaceYDocContent, appendYDocContent). */
  edit: (ydoc: Y.Doc) => void;
  /**
   * Runs after the update is in the log and the user is recorded as a contributor, with the
   * new state (an API update stores it as a version, so the user is among its contributors).
   */
  afterEdit?: (db: Queryable, state: Uint8Array) => Promise<void>;
}

/**
 * Makes `edit` inside `transaction`: locks the live page (404 / `page_trashed`), appends the
 * edit's update to the log, records the contributor, rebuilds the derived data from the new
 * document and tells the collaboration server (delivered at commit, so it never reads a row
 * that is not there yet). The caller has checked write access.
 */
export async function editLiveDocument(sequelize: Sequelize, transaction: Transaction, props: LiveDocumentEdit): Promise<void> {
  const { pageId, userId } = props;
  await lockLivePage(sequelize, pageId, transaction, LOCK_FOR_EDIT);
  const db = transactionClient(transaction);
  const { ydoc } = await loadYDoc(db, pageId);
  try {
    await props.beforeEdit?.(db, Y.encodeStateAsUpdate(ydoc));

    const emitted: Uint8Array[] = [];
    const capture = (update: Uint8Array) => emitted.push(update);
    ydoc.on('update', capture);
    try {
      props.edit(ydoc);
    } finally {
      ydoc.off('update', capture);
    }
    // The edits make one Yjs transaction: one update; merged should that ever change.
    if (emitted.length > 0) {
      await appendUpdates(db, [{ pageId, update: emitted.length === 1 ? emitted[0]! : Y.mergeUpdates(emitted) }]);
    }

    // The edit is the user's: they are a contributor of the next version.
    await sequelize.query(
      `INSERT INTO page_contributors (page_id, user_id) VALUES (:pageId, :userId)
         ON CONFLICT (page_id, user_id) DO UPDATE SET last_edit_at = now()`,
      { replacements: { pageId, userId }, transaction },
    );
    await props.afterEdit?.(db, Y.encodeStateAsUpdate(ydoc));
    // From the Y.Doc, not from the input: after an append (or concurrent rows) it holds more.
    // Also sets updated_at / updated_by (the user) when the content changed.
    await saveDerivedData(sequelize, { pageId, document: yDocToDocument(ydoc), authorIds: [userId] }, transaction);
    await sequelize.query(`SELECT pg_notify(:channel, :pageId)`, { replacements: { channel: UPDATES_APPENDED_CHANNEL, pageId }, transaction });
  } finally {
    ydoc.destroy();
  }
}
