/**
 * Manual versions and version restore. Both read the document from the update log (every
 * acknowledged edit is a row there), never from a render cache.
 *
 * A restore does not rewind the log: it appends one update that replaces the document's
 * content with the old version's, made through a Y.Doc holding the current state, so history
 * stays append-only and the collaboration server can apply the row to the live document
 * (`page_updates_appended`, delivered at commit): open editors converge on the old content.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import * as Y from 'yjs';
import { replaceYDocContent, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../documents/derivedData.ts';
import { appendUpdates, loadDocumentState, loadYDoc, transactionClient, UPDATES_APPENDED_CHANNEL } from '../documents/documentLog.ts';
import { createVersion, loadVersion } from '../documents/versions.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { Page } from '../models/index.ts';
import { notifyPageEvent } from '../notifications/notificationFanOut.ts';

/**
 * Restore: the pond row FOR SHARE, then the page row FOR NO KEY UPDATE — the order and modes
 * the save path (derivedData.ts) takes, which the restore calls later; in the other order a
 * tree change holding the pond row could deadlock with us. Restores and saves of one page run
 * one after the other, a trash waits; appends to the log (a foreign key share lock) do not.
 * A manual version takes only the page row, in the same mode: it waits for a restore to
 * commit, and the first load of a page that still has only its initial Markdown (which
 * writes the page row) cannot deadlock with a second snapshot.
 */
const LOCK_FOR_RESTORE = `
  SELECT p.trashed_at FROM pages p
   WHERE p.id = :pageId AND EXISTS (SELECT 1 FROM ponds po WHERE po.id = p.pond_id FOR SHARE)
     FOR NO KEY UPDATE OF p`;
const LOCK_FOR_SNAPSHOT = `SELECT trashed_at FROM pages WHERE id = :pageId FOR NO KEY UPDATE`;

/** Locks the page row for the rest of the transaction; refuses a missing or trashed page. */
async function lockLivePage(sequelize: Sequelize, pageId: string, transaction: Transaction, lockSql: string): Promise<void> {
  const rows = await sequelize.query<{ trashed_at: Date | null }>(lockSql, { replacements: { pageId }, type: QueryTypes.SELECT, transaction });
  const row = rows[0];
  if (!row) throw notFound();
  if (row.trashed_at) throw new ApiError('page_trashed', 404, { trashedAt: row.trashed_at.toISOString() });
}

export interface CreateManualVersionProps {
  page: Pick<Page, 'id'>;
  userId: string;
  /** Trimmed by the route; null or empty: an unnamed version. */
  label: string | null;
}

/**
 * Snapshots the page's current document as a `MANUAL` version created by the user. Its
 * contributors are those who edited since the previous version (consumed here), not the user.
 * A named one notifies the page's watchers in the same transaction, the user as the actor.
 */
export async function createManualVersion(sequelize: Sequelize, props: CreateManualVersionProps): Promise<{ id: string }> {
  return sequelize.transaction(async (transaction) => {
    await lockLivePage(sequelize, props.page.id, transaction, LOCK_FOR_SNAPSHOT);
    const db = transactionClient(transaction);
    const { state } = await loadDocumentState(db, props.page.id);
    const label = props.label || null;
    const version = await createVersion(db, { pageId: props.page.id, trigger: 'MANUAL', label, createdBy: props.userId, state });
    // A named version tells the page's watchers (an unnamed one is a private checkpoint).
    if (label) await notifyPageEvent(sequelize, { type: 'page_changed', pageId: props.page.id, actorIds: [props.userId], versionLabel: label }, transaction);
    return version;
  });
}

export interface RestoreVersionProps {
  versionId: string;
  userId: string;
}

export interface RestoredVersion {
  /** The page as it is after the restore (reloaded). */
  page: Page;
  /** The snapshot of the content the restore replaced. */
  preRestoreVersionId: string;
  restoredVersionId: string;
}

/**
 * Restores a version's content in one transaction: the current state is kept first as a
 * `pre_restore` version, then one update replacing the content is appended to the log, the
 * derived data is rebuilt from the restored document and the collaboration server is told.
 * The caller has checked write access on the version's page.
 */
export async function restoreVersion(sequelize: Sequelize, props: RestoreVersionProps): Promise<RestoredVersion> {
  const result = await sequelize.transaction(async (transaction) => {
    const version = await loadVersion(sequelize, props.versionId, transaction);
    if (!version) throw notFound();
    const pageId = version.pageId;
    await lockLivePage(sequelize, pageId, transaction, LOCK_FOR_RESTORE);
    const db = transactionClient(transaction);

    const { ydoc } = await loadYDoc(db, pageId);
    try {
      const preRestore = await createVersion(db, { pageId, trigger: 'pre_restore', createdBy: props.userId, state: Y.encodeStateAsUpdate(ydoc) });

      const oldDocument = yjsUpdateToDocument(version.state);
      const emitted: Uint8Array[] = [];
      const capture = (update: Uint8Array) => emitted.push(update);
      ydoc.on('update', capture);
      replaceYDocContent(ydoc, oldDocument);
      ydoc.off('update', capture);
      // replaceYDocContent makes one Yjs transaction: one update; merged should that ever change.
      if (emitted.length > 0) {
        await appendUpdates(db, [{ pageId, update: emitted.length === 1 ? emitted[0]! : Y.mergeUpdates(emitted) }]);
      }

      // The restore is an edit by the user: they are a contributor of the next version.
      await sequelize.query(
        `INSERT INTO page_contributors (page_id, user_id) VALUES (:pageId, :userId)
           ON CONFLICT (page_id, user_id) DO UPDATE SET last_edit_at = now()`,
        { replacements: { pageId, userId: props.userId }, transaction },
      );
      // Also sets updated_at / updated_by (the user) when the content changed.
      await saveDerivedData(sequelize, { pageId, document: oldDocument, authorIds: [props.userId] }, transaction);
      // Delivered at commit, so the collaboration server never reads a row that is not there yet.
      await sequelize.query(`SELECT pg_notify(:channel, :pageId)`, { replacements: { channel: UPDATES_APPENDED_CHANNEL, pageId }, transaction });
      return { pageId, preRestoreVersionId: preRestore.id, restoredVersionId: version.id };
    } finally {
      ydoc.destroy();
    }
  });
  const page = await Page.findByPk(result.pageId);
  if (!page) throw notFound();
  return { page, preRestoreVersionId: result.preRestoreVersionId, restoredVersionId: result.restoredVersionId };
}
