/**
 * Asking for public documents to be regenerated: rows in `public_document_queue`, written in
 * the transaction of the change, and one Graphile job (`public-documents`, one job key, so a
 * burst of changes coalesces) that drains them (publicDocumentJob.ts). The job is picked up at
 * once (Graphile is woken on insert); it debounces by waiting briefly before it drains.
 *
 * Only ponds that have stored documents, or a `public` grant (the landing page lists their
 * public pages), are queued for content changes: a public page nobody has requested yet is
 * generated on its first request (publicDocumentService.ts).
 */
import type { Transaction } from 'sequelize';
import { transactionClient, type Queryable } from '../documents/documentLog.ts';
import { pondHasPublicGrantSql } from '../policies/accessPolicy.ts';

export const PUBLIC_DOCUMENTS_JOB = 'public-documents';

export interface QueuedChange {
  pondId: string | null;
  /** null: every document of the pond (or, with pondId null too, the site's own documents). */
  pageId: string | null;
  /** Title, slug or tree position changed: the pond index is regenerated as well. */
  treeChanged?: boolean;
}

const ADD_JOB_SQL = `SELECT graphile_worker.add_job('${PUBLIC_DOCUMENTS_JOB}', '{}'::json, job_key := '${PUBLIC_DOCUMENTS_JOB}', max_attempts := 5)`;

/** Wakes the generation job; call after inserting queue rows in the same transaction. */
export async function wakeGenerationJob(db: Queryable): Promise<void> {
  await db.query(ADD_JOB_SQL);
}

/**
 * Queues changes of pages or ponds, only where the pond already has stored documents or a
 * `public` grant (site documents are always queued). Returns how many rows were queued.
 */
export async function queuePublicChanges(db: Queryable, changes: readonly QueuedChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const { rows } = await db.query<{ queued: number }>(
    `WITH queued AS (
       INSERT INTO public_document_queue (pond_id, page_id, tree_changed)
       SELECT c.pond_id, c.page_id, c.tree_changed
         FROM unnest($1::uuid[], $2::uuid[], $3::boolean[]) AS c (pond_id, page_id, tree_changed)
        WHERE c.pond_id IS NULL OR EXISTS (SELECT 1 FROM public_documents d WHERE d.pond_id = c.pond_id)
           OR ${pondHasPublicGrantSql('c.pond_id')}
       RETURNING 1
     )
     SELECT count(*)::int AS queued FROM queued`,
    [changes.map((change) => change.pondId), changes.map((change) => change.pageId), changes.map((change) => change.treeChanged ?? false)],
  );
  const queued = rows[0]?.queued ?? 0;
  if (queued > 0) await wakeGenerationJob(db);
  return queued;
}

/** Every pond with documents, and the site's documents: instance name, base URL or locale changed. */
export async function queueEverything(db: Queryable): Promise<void> {
  await db.query(
    `INSERT INTO public_document_queue (pond_id, page_id, tree_changed)
     SELECT NULL, NULL, false
     UNION ALL SELECT DISTINCT pond_id, NULL::uuid, true FROM public_documents WHERE pond_id IS NOT NULL`,
  );
  await wakeGenerationJob(db);
}

/** The common case from a command: pages of one pond changed (inside the command's transaction). */
export async function queuePageChanges(transaction: Transaction, pondId: string, pageIds: readonly string[], options: { treeChanged: boolean }): Promise<void> {
  await queuePublicChanges(
    transactionClient(transaction),
    pageIds.map((pageId) => ({ pondId, pageId, treeChanged: options.treeChanged })),
  );
}

/** A pond's name, slug or fonts changed: all of its documents. */
export async function queuePondChange(transaction: Transaction, pondId: string): Promise<void> {
  await queuePublicChanges(transactionClient(transaction), [{ pondId, pageId: null, treeChanged: true }]);
}
