/**
 * The readable-batch collector over an in-memory "table": pages of kept items, the key to
 * continue after, batches sized by the share kept, and no row handed out twice or skipped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectReadable } from './readableBatches.ts';

interface Row {
  key: number;
  readable: boolean;
}

/** Rows 1..count; `hidden(key)` marks the unreadable ones. Records every fetch's size. */
function table(count: number, hidden: (key: number) => boolean) {
  const rows: Row[] = Array.from({ length: count }, (_, index) => ({ key: index + 1, readable: !hidden(index + 1) }));
  const fetches: number[] = [];
  return {
    fetches,
    fetch: async (after: number | null, size: number) => {
      fetches.push(size);
      return rows.filter((row) => row.key > (after ?? 0)).slice(0, size);
    },
  };
}

function collect(source: ReturnType<typeof table>, limit: number, after: number | null, maxBatch = 1_000) {
  return collectReadable({
    limit,
    after,
    fetch: source.fetch,
    keyOf: (row: Row) => row.key,
    keep: (row) => (row.readable ? `item ${row.key}` : null),
    maxBatch,
  });
}

test('pages through every readable row exactly once, continuing after the last item handed out', async () => {
  const source = table(100, (key) => key % 3 === 0);
  const seen: string[] = [];
  let after: number | null = null;
  for (let page = 0; page < 20; page += 1) {
    const batch = await collect(source, 7, after);
    seen.push(...batch.items);
    if (batch.nextKey === null) break;
    assert.equal(batch.items.length, 7);
    assert.equal(batch.items.at(-1), `item ${batch.nextKey}`, 'the key is the last kept row, not the last fetched');
    after = batch.nextKey;
  }
  const expected = Array.from({ length: 100 }, (_, index) => index + 1)
    .filter((key) => key % 3 !== 0)
    .map((key) => `item ${key}`);
  assert.deepEqual(seen, expected);
});

test('no next key when nothing readable follows, even if hidden rows do', async () => {
  const source = table(30, (key) => key > 5);
  const batch = await collect(source, 5, null);
  assert.deepEqual(batch.items, ['item 1', 'item 2', 'item 3', 'item 4', 'item 5']);
  assert.equal(batch.nextKey, null);
});

test('a mostly hidden table is read in few batches sized by the share kept, never above maxBatch', async () => {
  const source = table(5_000, (key) => key % 50 !== 0);
  const batch = await collect(source, 20, null, 600);
  assert.equal(batch.items.length, 20);
  assert.equal(batch.items[0], 'item 50');
  assert.ok(source.fetches.length <= 6, `fetches: ${source.fetches.join(', ')}`);
  assert.ok(source.fetches.every((size) => size <= 600));
  assert.ok(batch.keptShare > 0.015 && batch.keptShare < 0.03, String(batch.keptShare));
});

test('an empty table keeps a share of 1; a bad limit is refused', async () => {
  const batch = await collect(table(0, () => false), 10, null);
  assert.deepEqual(batch, { items: [], nextKey: null, keptShare: 1 });
  await assert.rejects(collect(table(3, () => false), 0, null), RangeError);
});
