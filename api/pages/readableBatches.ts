/**
 * Keyset pagination over rows filtered in memory by the caller's access: fetch a batch, keep
 * the readable rows, and fetch more until `limit` rows are kept. Used by the page list and
 * the favorites list, which both page by (timestamp, id).
 */
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { encodePageCursor, type PageCursor } from './pageCursor.ts';

export interface ReadableBatchesOptions<Row> {
  limit: number;
  after: PageCursor | null;
  /** Rows after `after` in key order, at most `limit` (null: no limit). */
  fetch: (after: PageCursor | null, limit: number) => Promise<Row[]>;
  keyOf: (row: Row) => PageCursor;
  keep: (row: Row) => boolean;
  /** Most rows one query may fetch. */
  maxBatch: number;
  /** The share of rows kept by an earlier listing of the same caller, to size the first batch. */
  expectedShare?: number | undefined;
}

export interface ReadableBatch<Row> {
  rows: Row[];
  nextCursor: string | null;
  /** Kept rows ÷ fetched rows (1 when nothing was fetched). */
  keptShare: number;
}

/** The batch that should hold `wanted` kept rows when `share` of the rows are kept, with some slack. */
function batchFor(wanted: number, share: number, maxBatch: number): number {
  return Math.min(Math.ceil((wanted / Math.max(share, 0.01)) * 1.25) + 8, Math.max(maxBatch, wanted));
}

/** Up to `limit` kept rows and the cursor after the last of them when more may follow. */
export async function collectReadable<Row>(options: ReadableBatchesOptions<Row>): Promise<ReadableBatch<Row>> {
  const { limit } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  const kept: Row[] = [];
  let after = options.after;
  // One row more than asked tells whether another page of results exists.
  let batchSize = options.expectedShare === undefined || options.expectedShare >= 1 ? limit + 1 : batchFor(limit + 1, options.expectedShare, options.maxBatch);
  let seenCount = 0;
  let keptCount = 0;
  for (;;) {
    const rows = await options.fetch(after, batchSize);
    for (const row of rows) {
      seenCount += 1;
      if (!options.keep(row)) continue;
      keptCount += 1;
      if (kept.length === limit) return { rows: kept, nextCursor: encodePageCursor(options.keyOf(kept.at(-1)!)), keptShare: keptCount / seenCount };
      kept.push(row);
    }
    const last = rows.at(-1);
    if (rows.length < batchSize || !last) return { rows: kept, nextCursor: null, keptShare: seenCount === 0 ? 1 : keptCount / seenCount };
    after = options.keyOf(last);
    // Size the next batch from the share of rows kept so far, not by doubling: doubling read
    // ~3 rows per row handed out when a tenth of the pond is hidden.
    batchSize = batchFor(limit + 1 - kept.length, keptCount / seenCount, options.maxBatch);
  }
}

/** `access.page(id, 'read')` for live pages, each verdict resolved once (parents are shared). */
export function liveReadability(access: SubjectAccess): (pageId: string) => boolean {
  const verdicts = new Map<string, boolean>();
  return (pageId) => {
    let verdict = verdicts.get(pageId);
    if (verdict === undefined) {
      verdict = access.page({ id: pageId, trashedAt: null }, 'read').allowed;
      verdicts.set(pageId, verdict);
    }
    return verdict;
  };
}
