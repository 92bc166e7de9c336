/**
 * The update log of collaborative pages (`page_updates`): append, load, compact. Used by the
 * collaboration server (hot path, plain pg pool) and by the API (creation, version restore;
 * inside a Sequelize transaction through `transactionClient`). Parameters go as bind values,
 * so update bytes travel as binary, never as escaped SQL text.
 *
 * A page's document is the merge of all its rows. Yjs updates commute, so the row order does
 * not matter for the result and applying a row twice changes nothing.
 */
import type { Transaction } from 'sequelize';
import * as Y from 'yjs';
import { documentToYjsUpdate, markdownToDocument } from '../../content-pipeline/index.ts';

/**
 * Announced (payload: the page id) when a process other than the collaboration server appended
 * rows to a page's log (a version restore): the collaboration server applies them to the live
 * document, so open editors converge on them.
 */
export const UPDATES_APPENDED_CHANNEL = 'page_updates_appended';

/** What both a pg Pool / PoolClient and a Sequelize transaction's connection offer. */
export interface Queryable {
  query<R extends object = any>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** The pg client behind a Sequelize transaction, so log writes join that transaction. */
export function transactionClient(transaction: Transaction): Queryable {
  return (transaction as unknown as { connection: Queryable }).connection;
}

export interface LoggedUpdate {
  id: number;
  update: Uint8Array;
}

export interface AppendedUpdate {
  pageId: string;
  update: Uint8Array;
}

/**
 * Y.mergeUpdates re-sorts all its inputs for every struct it writes: quadratic (1 s for 10,000
 * keystrokes, minutes for 100,000). Merging groups of 32, then the results, gives the same
 * bytes in linear time.
 */
const MERGE_GROUP = 32;

export function mergeUpdatesInGroups(updates: readonly Uint8Array[]): Uint8Array {
  if (updates.length === 0) return Y.encodeStateAsUpdate(new Y.Doc());
  let level = updates;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let start = 0; start < level.length; start += MERGE_GROUP) {
      const group = level.slice(start, start + MERGE_GROUP);
      next.push(group.length === 1 ? group[0]! : Y.mergeUpdates(group));
    }
    level = next;
  }
  return level[0]!;
}

/** One multi-row INSERT for any number of pages; returns the new row ids in input order. */
export async function appendUpdates(db: Queryable, updates: readonly AppendedUpdate[]): Promise<number[]> {
  if (updates.length === 0) return [];
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO page_updates (page_id, update)
       SELECT * FROM unnest($1::uuid[], $2::bytea[]) RETURNING id`,
    [updates.map((entry) => entry.pageId), updates.map((entry) => Buffer.from(entry.update.buffer, entry.update.byteOffset, entry.update.byteLength))],
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Every row of a page's log in id order (the first row is the last compaction's snapshot).
 * The bytes come as base64, not as bytea's hex text: a third less to send and to decode on
 * the path of every cold open (bench:collab (d)).
 */
export async function loadPageUpdates(db: Queryable, pageId: string, afterId = 0): Promise<LoggedUpdate[]> {
  const { rows } = await db.query<{ id: number; update: string }>(
    `SELECT id, encode(update, 'base64') AS update FROM page_updates WHERE page_id = $1 AND id > $2 ORDER BY id`,
    [pageId, afterId],
  );
  return rows.map((row) => {
    const bytes = Buffer.from(row.update, 'base64');
    return { id: Number(row.id), update: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  });
}

export interface LoadedDocument {
  /** The page's whole state as one update (empty document: a valid empty update). */
  state: Uint8Array;
  /** The highest log id applied, 0 for an empty log. */
  lastId: number;
}

/**
 * The page's state from the log. A page created before the log existed has only
 * `pages.initial_markdown`: its first load turns that into the first row.
 */
export async function loadDocumentState(db: Queryable, pageId: string): Promise<LoadedDocument> {
  const updates = await readPageLog(db, pageId);
  if (updates.length === 0) return { state: Y.encodeStateAsUpdate(new Y.Doc()), lastId: 0 };
  const state = mergeUpdatesInGroups(updates.map((entry) => entry.update));
  return { state, lastId: updates[updates.length - 1]!.id };
}

async function seedFromInitialMarkdown(db: Queryable, pageId: string): Promise<LoggedUpdate[]> {
  const { rows } = await db.query<{ initial_markdown: string | null }>(`SELECT initial_markdown FROM pages WHERE id = $1`, [pageId]);
  const markdown = rows[0]?.initial_markdown;
  if (!markdown) return [];
  const update = documentToYjsUpdate(markdownToDocument(markdown));
  // One statement: of two concurrent first loads, only one claims the Markdown and writes the row.
  await db.query(
    `WITH claimed AS (UPDATE pages SET initial_markdown = NULL WHERE id = $1 AND initial_markdown IS NOT NULL RETURNING id)
     INSERT INTO page_updates (page_id, update) SELECT id, $2 FROM claimed`,
    [pageId, Buffer.from(update)],
  );
  return loadPageUpdates(db, pageId);
}

/**
 * The page's log rows in id order; a page that has only `initial_markdown` gets its first row
 * from it here.
 */
export async function readPageLog(db: Queryable, pageId: string): Promise<LoggedUpdate[]> {
  const updates = await loadPageUpdates(db, pageId);
  return updates.length > 0 ? updates : seedFromInitialMarkdown(db, pageId);
}

/** Applies log rows to `ydoc` in one transaction (cheaper than merging them first); returns the highest id. */
export function applyLogRows(ydoc: Y.Doc, rows: readonly LoggedUpdate[], origin: unknown): number {
  ydoc.transact(() => {
    for (const entry of rows) Y.applyUpdate(ydoc, entry.update, origin);
  }, origin);
  return rows.length === 0 ? 0 : rows[rows.length - 1]!.id;
}

/** The page's document as a fresh Y.Doc (the caller destroys it). */
export async function loadYDoc(db: Queryable, pageId: string): Promise<{ ydoc: Y.Doc; lastId: number }> {
  const { state, lastId } = await loadDocumentState(db, pageId);
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, state);
  return { ydoc, lastId };
}

/**
 * Merges a page's log into one row. Rows appended while this runs are not among the rows
 * read (and locked) here, so they survive untouched: no concurrent edit is lost. The merge
 * goes through a Y.Doc, which drops the content of deleted items (Yjs garbage collection):
 * the log does not grow without bound with text that was typed and deleted again.
 * `db` must be a single connection (a PoolClient), not a pool: it runs a transaction.
 */
export async function compactPageLog(db: Queryable, pageId: string): Promise<{ mergedRows: number; bytesBefore: number; bytesAfter: number }> {
  await db.query('BEGIN');
  try {
    const { rows } = await db.query<{ id: number; update: Buffer }>(
      `SELECT id, update FROM page_updates WHERE page_id = $1 ORDER BY id FOR UPDATE`,
      [pageId],
    );
    if (rows.length <= 1) {
      await db.query('COMMIT');
      return { mergedRows: 0, bytesBefore: rows[0]?.update.byteLength ?? 0, bytesAfter: rows[0]?.update.byteLength ?? 0 };
    }
    const ydoc = new Y.Doc();
    let bytesBefore = 0;
    for (const row of rows) {
      bytesBefore += row.update.byteLength;
      Y.applyUpdate(ydoc, row.update);
    }
    const merged = Y.encodeStateAsUpdate(ydoc);
    ydoc.destroy();
    const ids = rows.map((row) => Number(row.id));
    const keep = ids[ids.length - 1]!;
    await db.query(`UPDATE page_updates SET update = $2 WHERE id = $1`, [keep, Buffer.from(merged)]);
    await db.query(`DELETE FROM page_updates WHERE id = ANY($1::bigint[])`, [ids.slice(0, -1)]);
    await db.query('COMMIT');
    return { mergedRows: rows.length, bytesBefore, bytesAfter: merged.byteLength };
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}
