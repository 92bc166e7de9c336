/**
 * The stored public documents (`public_documents`) and their dependency index. A write that
 * changes a document's bytes or path sends `NOTIFY public_documents_changed` (delivered at
 * commit) so every API process drops its in-memory copy; a regeneration that produces the
 * same bytes writes nothing and notifies nobody.
 *
 * Concurrency with access changes: every generation runs in a transaction holding the pond's
 * advisory lock in shared mode, and reads the access rules fresh inside it; an access change
 * takes the same lock exclusively before it deletes the documents the public lost
 * (publicAccessRevocation.ts). So a generation that started before a revocation either
 * commits before the revocation's delete sees its row, or waits and then sees the new rules:
 * a revoked page is never stored again.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { transactionClient, type Queryable } from '../documents/documentLog.ts';
import type { GeneratedDocument } from './publicDocumentGenerator.ts';

export const PUBLIC_DOCUMENTS_CHANNEL = 'public_documents_changed';

/**
 * A notification payload: a path, `<path> <etag>` when the path now holds exactly those bytes,
 * `pond:<id>` for every document of a pond, or `*`.
 */
export type DocumentChange = string;

export interface StoredDocument {
  path: string;
  kind: GeneratedDocument['kind'];
  pondId: string | null;
  pageId: string | null;
  html: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
  markdown: string | null;
  /** JSON text, served as stored. */
  content: string | null;
  lastModified: Date;
}

interface StoredRow {
  path: string;
  kind: GeneratedDocument['kind'];
  pond_id: string | null;
  page_id: string | null;
  html: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
  markdown: string | null;
  content: string | null;
  last_modified: Date;
}

function fromRow(row: StoredRow): StoredDocument {
  return {
    path: row.path,
    kind: row.kind,
    pondId: row.pond_id,
    pageId: row.page_id,
    html: row.html,
    gzip: row.gzip,
    brotli: row.brotli,
    etag: row.etag,
    markdown: row.markdown,
    content: row.content,
    lastModified: new Date(row.last_modified),
  };
}

const COLUMNS = 'path, kind, pond_id, page_id, html, gzip, brotli, etag, markdown, content, last_modified';

export async function loadStoredDocumentAt(sequelize: Sequelize, path: string): Promise<StoredDocument | null> {
  const rows = await sequelize.query<StoredRow>(`SELECT ${COLUMNS} FROM public_documents WHERE path = $1`, { bind: [path], type: QueryTypes.SELECT });
  return rows[0] ? fromRow(rows[0]) : null;
}

type LocalListener = (changes: readonly DocumentChange[]) => void;
const localListeners = new Set<LocalListener>();

/** This process's cache subscribes here, to drop entries at commit without waiting for the notification. */
export function onLocalDocumentChanges(listener: LocalListener): () => void {
  localListeners.add(listener);
  return () => localListeners.delete(listener);
}

export function announceDocumentChangesLocally(changes: readonly DocumentChange[]): void {
  if (changes.length === 0) return;
  for (const listener of localListeners) listener(changes);
}

export async function notifyDocumentChanges(db: Queryable, changes: readonly DocumentChange[]): Promise<void> {
  // One notification per change; Postgres folds identical ones within a transaction.
  for (const change of new Set(changes)) await db.query(`SELECT pg_notify($1, $2)`, [PUBLIC_DOCUMENTS_CHANNEL, change]);
}

/** Runs `work` in a transaction holding the pond's generation lock (shared, or exclusive for revocations). */
export async function withPondLock<T>(sequelize: Sequelize, pondId: string | null, mode: 'shared' | 'exclusive', work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return sequelize.transaction(async (transaction) => {
    if (pondId) await lockPondDocuments(transactionClient(transaction), pondId, mode);
    return work(transaction);
  });
}

export async function lockPondDocuments(db: Queryable, pondId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await db.query(`SELECT ${lock}(hashtextextended('dt-public-documents:' || $1::text, 0))`, [pondId]);
}

/**
 * The landing documents' lock: they show every public pond, so a landing generation holds it
 * shared and an access change in any pond takes it exclusively before it drops the landing
 * documents (publicAccessRevocation.ts), as the pond lock does for a pond's documents.
 */
export async function lockLandingDocuments(db: Queryable, mode: 'shared' | 'exclusive'): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await db.query(`SELECT ${lock}(hashtextextended('dt-public-documents:landing', 0))`);
}

/** The row standing for the same document as `doc` (a page keeps its row when its slug changes). */
function identityWhere(doc: Pick<GeneratedDocument, 'kind' | 'pageId' | 'pondId' | 'path'>): { sql: string; value: string } {
  if (doc.kind === 'page') return { sql: 'page_id = $1', value: doc.pageId! };
  if (doc.kind === 'pond') return { sql: "kind = 'pond' AND pond_id = $1", value: doc.pondId! };
  return { sql: 'path = $1', value: doc.path };
}

/**
 * Stores a generated document (and, for pages, its dependencies). Returns whether the stored
 * bytes or path changed (only then are other processes told) and the document as stored now,
 * so a caller that generated it has no need to read its bytes back.
 */
export async function storeDocument(db: Queryable, doc: GeneratedDocument): Promise<{ changed: boolean; stored: StoredDocument }> {
  const identity = identityWhere(doc);
  const { rows: previous } = await db.query<{ path: string; etag: string; last_modified: Date }>(`SELECT path, etag, last_modified FROM public_documents WHERE ${identity.sql}`, [identity.value]);
  const unchanged = previous.length === 1 && previous[0]!.path === doc.path && previous[0]!.etag === doc.etag;
  if (doc.pageId) {
    await db.query(
      `WITH dropped AS (DELETE FROM public_document_dependencies WHERE page_id = $1 AND depends_on <> ALL ($2::uuid[]))
       INSERT INTO public_document_dependencies (page_id, depends_on, shown) SELECT $1, d.id, d.shown FROM unnest($2::uuid[], $3::boolean[]) AS d (id, shown)
       ON CONFLICT (page_id, depends_on) DO UPDATE SET shown = EXCLUDED.shown WHERE public_document_dependencies.shown <> EXCLUDED.shown`,
      [doc.pageId, doc.dependsOn.map((entry) => entry.pageId), doc.dependsOn.map((entry) => entry.shown)],
    );
  }
  const stored = (lastModified: Date): StoredDocument => ({
    path: doc.path,
    kind: doc.kind,
    pondId: doc.pondId,
    pageId: doc.pageId,
    html: doc.html,
    gzip: doc.gzip,
    brotli: doc.brotli,
    etag: doc.etag,
    markdown: doc.markdown,
    content: doc.content,
    lastModified: new Date(lastModified),
  });
  if (unchanged) return { changed: false, stored: stored(previous[0]!.last_modified) };
  await db.query(`DELETE FROM public_documents WHERE path = $1 OR ${identity.sql.replace('$1', '$2')}`, [doc.path, identity.value]);
  const { rows: inserted } = await db.query<{ last_modified: Date }>(
    `INSERT INTO public_documents (${COLUMNS}, generated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, date_trunc('second', clock_timestamp()), clock_timestamp())
     RETURNING last_modified`,
    [doc.path, doc.kind, doc.pondId, doc.pageId, doc.html, doc.gzip, doc.brotli, doc.etag, doc.markdown, doc.content],
  );
  // The new path names its bytes: a cache that just loaded exactly these may keep them.
  await notifyDocumentChanges(db, [`${doc.path} ${doc.etag}`, ...previous.map((row) => row.path).filter((path) => path !== doc.path)]);
  return { changed: true, stored: stored(inserted[0]!.last_modified) };
}

/** Deletes the document standing for `doc`'s identity, if any (the public lost it). */
export async function deleteDocument(db: Queryable, doc: Pick<GeneratedDocument, 'kind' | 'pageId' | 'pondId' | 'path'>): Promise<boolean> {
  const identity = identityWhere(doc);
  const { rows } = await db.query<{ path: string }>(`DELETE FROM public_documents WHERE ${identity.sql} RETURNING path`, [identity.value]);
  if (doc.pageId) await db.query(`DELETE FROM public_document_dependencies WHERE page_id = $1`, [doc.pageId]);
  await notifyDocumentChanges(db, rows.map((row) => row.path));
  return rows.length > 0;
}

/**
 * Keeps a variant the hot path compressed at its first request (generation leaves them empty,
 * see encodeDocument in publicDocumentGenerator.ts), so later loads of the row, in any process,
 * serve it without compressing again. Only into the row still holding exactly the bytes it was
 * made from (same path and ETag) and only while that variant is still empty: the row's bytes
 * do not change, so nobody is notified.
 */
export async function storeCompressedVariant(sequelize: Sequelize, document: { path: string; etag: string }, encoding: 'br' | 'gzip', bytes: Buffer): Promise<void> {
  const column = encoding === 'br' ? 'brotli' : 'gzip';
  await sequelize.query(`UPDATE public_documents SET ${column} = $1 WHERE path = $2 AND etag = $3 AND length(${column}) = 0`, {
    bind: [bytes, document.path, document.etag],
    type: QueryTypes.UPDATE,
  });
}
