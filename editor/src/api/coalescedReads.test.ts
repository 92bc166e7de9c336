import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedReads } from './coalescedReads.ts';

/** A read that waits until released, counting how often it started. */
function gatedReader() {
  const gates: Array<() => void> = [];
  let started = 0;
  const reads = new CoalescedReads(async () => {
    started++;
    await new Promise<void>((release) => gates.push(release));
  });
  return { reads, started: () => started, releaseNext: () => gates.shift()!() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('requests during a read are answered by exactly one more read after it', async () => {
  const { reads, started, releaseNext } = gatedReader();
  const first = reads.request();
  assert.equal(reads.running, true);
  const second = reads.request();
  const third = reads.request();
  assert.equal(started(), 1, 'no second read while the first runs');
  releaseNext();
  await settle();
  assert.equal(started(), 2, 'one more read for the two requests made meanwhile');
  releaseNext();
  await Promise.all([first, second, third]);
  assert.equal(started(), 2);
  assert.equal(reads.running, false);
});

test('a request after the reads have finished starts a new read', async () => {
  const { reads, started, releaseNext } = gatedReader();
  const first = reads.request();
  releaseNext();
  await first;
  const next = reads.request();
  assert.equal(started(), 2);
  releaseNext();
  await next;
});

test('a failed read ends the run and rejects its callers; the next request reads again', async () => {
  let calls = 0;
  const reads = new CoalescedReads(async () => {
    calls++;
    if (calls === 1) throw new Error('offline');
  });
  await assert.rejects(reads.request(), /offline/);
  assert.equal(reads.running, false);
  await reads.request();
  assert.equal(calls, 2);
});
