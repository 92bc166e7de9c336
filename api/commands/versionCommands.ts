/**
 * Manual versions and version restore. Both read the document from the update log (every
 * acknowledged edit is a row there), never from a render cache.
 *
 * A restore does not rewind the log: it appends one update that replaces the document's
 * content with the old version's, made through a Y.Doc holding the current state, so history
 * stays append-only and the collaboration server can apply the row to the live document
 * (`page_updates_appended`, delivered at commit): open editors converge on the old content.
 */
import type { Sequelize } from 'sequelize';
import { replaceYDocContent, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { loadDocumentState, transactionClient } from '../documents/documentLog.ts';
import { createVersion, loadVersion } from '../documents/versions.ts';
import { notFound } from '../http/apiError.ts';
import { Page } from '../models/index.ts';
import { notifyPageEvent } from '../notifications/notificationFanOut.ts';
import { editLiveDocument, LOCK_FOR_SNAPSHOT, lockLivePage } from './liveDocumentEdit.ts';

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
 * Restores a version's content in one transaction (liveDocumentEdit.ts): the current state is
 * kept first as a `pre_restore` version, then one update replacing the content is appended to
 * the log, the derived data is rebuilt from the restored document and the collaboration
 * server is told. The caller has checked write access on the version's page.
 */
export async function restoreVersion(sequelize: Sequelize, props: RestoreVersionProps): Promise<RestoredVersion> {
  const result = await sequelize.transaction(async (transaction) => {
    const version = await loadVersion(sequelize, props.versionId, transaction);
    if (!version) throw notFound();
    const pageId = version.pageId;
    const oldDocument = yjsUpdateToDocument(version.state);
    let preRestoreVersionId = '';
    await editLiveDocument(sequelize, transaction, {
      pageId,
      userId: props.userId,
      beforeEdit: async (db, state) => {
        preRestoreVersionId = (await createVersion(db, { pageId, trigger: 'pre_restore', createdBy: props.userId, state })).id;
      },
      edit: (ydoc) => replaceYDocContent(ydoc, oldDocument),
    });
    return { pageId, preRestoreVersionId, restoredVersionId: version.id };
  });
  const page = await Page.findByPk(result.pageId);
  if (!page) throw notFound();
  return { page, preRestoreVersionId: result.preRestoreVersionId, restoredVersionId: result.restoredVersionId };
}
