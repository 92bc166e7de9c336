/**
 * Keyset pagination over rows filtered in memory by the caller's access: fetch a batch, keep
 * what the caller may read, and fetch more until `limit` items are kept. The one loop behind
 * every such list (pages, favorites, backlinks, phantom links); each names its own key.
 */
import type { SubjectAccess } from '../policies/accessPolicy.ts';

export interface ReadableBatchesOptions<Row, Key, Item> {
  limit: number;
  after: Key | null;
  /** Rows after `after` in key order, at most `size`. */
  fetch: (after: Key | null, size: number) => Promise<Row[]>;
  keyOf: (row: Row) => Key;
  /** The row as handed out, or null when the caller may read none of it. */
  keep: (row: Row) => Item | null;
  /** Most rows one query may fetch. */
  maxBatch: number;
  /** The share of rows kept by an earlier listing of the same caller, to size the first batch. */
  expectedShare?: number | undefined;
}

export interface ReadableBatch<Item, Key> {
  items: Item[];
  /** The key of the last item handed out when another kept item follows, else null. */
  nextKey: Key | null;
  /** Kept rows ÷ fetched rows (1 when nothing was fetched). */
  keptShare: number;
}

/** The batch that should hold `wanted` kept rows when `share` of the rows are kept, with some slack. */
function batchFor(wanted: number, share: number, maxBatch: number): number {
  return Math.min(Math.ceil((wanted / Math.max(share, 0.01)) * 1.25) + 8, Math.max(maxBatch, wanted));
}

/** Up to `limit` kept items and the key after which the next page starts. */
export async function collectReadable<Row, Key, Item>(options: ReadableBatchesOptions<Row, Key, Item>): Promise<ReadableBatch<Item, Key>> {
  const { limit } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  const items: Item[] = [];
  let lastKey: Key | null = null;
  let after = options.after;
  // One row more than asked tells whether another page of results exists.
  let batchSize = options.expectedShare === undefined || options.expectedShare >= 1 ? limit + 1 : batchFor(limit + 1, options.expectedShare, options.maxBatch);
  let seenCount = 0;
  let keptCount = 0;
  for (;;) {
    const rows = await options.fetch(after, batchSize);
    for (const row of rows) {
      seenCount += 1;
      const item = options.keep(row);
      if (item === null) continue;
      keptCount += 1;
      if (items.length === limit) return { items, nextKey: lastKey, keptShare: keptCount / seenCount };
      items.push(item);
      lastKey = options.keyOf(row);
    }
    const last = rows.at(-1);
    if (rows.length < batchSize || last === undefined) return { items, nextKey: null, keptShare: seenCount === 0 ? 1 : keptCount / seenCount };
    after = options.keyOf(last);
    // Size the next batch from the share of rows kept so far, not by doubling: doubling read
    // ~3 rows per row handed out when a tenth of the pond is hidden.
    batchSize = batchFor(limit + 1 - items.length, keptCount / seenCount, options.maxBatch);
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
