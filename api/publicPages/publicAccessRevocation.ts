/**
 * An access change (grants, labels, label assignments, trash) in the transaction that makes
 * it: the documents the public can no longer be shown are deleted before the change commits,
 * and the rest of the pond is queued for regeneration.
 *
 * Deleted: every page document whose page the public may no longer read; every document
 * that shows (breadcrumb, child, backlink, transclusion) a page the public may no longer
 * read; the pond index. All of it under the pond's exclusive generation lock, so no
 * generation that read the old rules can store after it (publicDocumentStore.ts). This
 * process drops its cached copies when the transaction commits, so its next request already
 * answers 404; other processes drop theirs on the notification.
 *
 * The landing documents list every public pond and the public pages changed lately, so they
 * are dropped too when the pond has a `public` grant now or the landing links to it (it may
 * name what the public just lost), under the landing lock held exclusively; the worker then
 * generates them afresh (or the next visitor does, on demand).
 */
import type { Sequelize, Transaction } from 'sequelize';
import { transactionClient } from '../documents/documentLog.ts';
import { pondHasPublicGrantSql } from '../policies/accessPolicy.ts';
import { ANONYMOUS, SubjectAccess } from '../policies/grantResolution.ts';
import { loadPondAccess } from '../policies/pondAccessCache.ts';
import { queuePublicChanges } from './publicDocumentQueue.ts';
import { announceDocumentChangesLocally, lockLandingDocuments, lockPondDocuments, notifyDocumentChanges } from './publicDocumentStore.ts';

interface DocumentRow {
  path: string;
  page_id: string | null;
}

interface PageStateRow {
  id: string;
  trashed_at: Date | null;
}

/**
 * Drops the landing documents when this pond's change may show on them. The lock comes first,
 * so a landing generation that read the old rules has stored by now and is looked at here.
 */
async function revokeLandingDocuments(pondId: string, transaction: Transaction): Promise<void> {
  const db = transactionClient(transaction);
  await lockLandingDocuments(db, 'exclusive');
  const { rows } = await db.query<{ path: string }>(
    `DELETE FROM public_documents d WHERE d.kind = 'home' AND (
       ${pondHasPublicGrantSql('$1::uuid')}
       OR position(convert_to('href="/' || (SELECT slug FROM ponds WHERE id = $1), 'UTF8') IN d.html) > 0)
     RETURNING d.path`,
    [pondId],
  );
  if (rows.length === 0) return;
  const paths = rows.map((row) => row.path);
  await notifyDocumentChanges(db, paths);
  transaction.afterCommit(() => announceDocumentChangesLocally(paths));
  await queuePublicChanges(db, [{ pondId: null, pageId: null }]);
}

export async function revokeLostPublicDocuments(pondId: string, transaction: Transaction): Promise<void> {
  await revokeLandingDocuments(pondId, transaction);
  const db = transactionClient(transaction);
  const { rows: documents } = await db.query<DocumentRow>(`SELECT path, page_id FROM public_documents WHERE pond_id = $1`, [pondId]);
  if (documents.length === 0) return;
  await lockPondDocuments(db, pondId, 'exclusive');

  const sequelize = (transaction as unknown as { sequelize: Sequelize }).sequelize;
  const data = await loadPondAccess(sequelize, pondId, transaction);
  const access = data && !data.trashedAt ? new SubjectAccess(data, ANONYMOUS) : null;
  const pageIds = documents.flatMap((document) => (document.page_id ? [document.page_id] : []));
  const { rows: shownDependencies } = await db.query<{ page_id: string; depends_on: string }>(
    `SELECT page_id, depends_on FROM public_document_dependencies WHERE page_id = ANY ($1::uuid[]) AND shown`,
    [pageIds],
  );
  const { rows: states } = await db.query<PageStateRow>(`SELECT id, trashed_at FROM pages WHERE id = ANY ($1::uuid[])`, [
    [...new Set([...pageIds, ...shownDependencies.map((row) => row.depends_on)])],
  ]);
  const stateById = new Map(states.map((state) => [state.id, state]));
  const readable = (pageId: string): boolean => {
    const state = stateById.get(pageId);
    return access !== null && state !== undefined && access.page({ id: state.id, trashedAt: state.trashed_at }, 'read').allowed;
  };
  const lost = new Set(pageIds.filter((pageId) => !readable(pageId)));
  for (const row of shownDependencies) if (!readable(row.depends_on)) lost.add(row.page_id);

  const deletedPaths = documents.filter((document) => document.page_id === null || lost.has(document.page_id)).map((document) => document.path);
  await db.query(`DELETE FROM public_documents WHERE path = ANY ($1::text[])`, [deletedPaths]);
  await db.query(`DELETE FROM public_document_dependencies WHERE page_id = ANY ($1::uuid[])`, [[...lost]]);
  await notifyDocumentChanges(db, deletedPaths);
  transaction.afterCommit(() => announceDocumentChangesLocally(deletedPaths));
  // The remaining documents may show pages that just became public (children, backlinks).
  await queuePublicChanges(db, [{ pondId, pageId: null, treeChanged: true }]);
}
