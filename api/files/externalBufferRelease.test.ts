import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bufferRelease, youngGenerationCollector } from './externalBufferRelease.ts';

test('one young-generation collection each time the bytes passed cross a multiple of the interval', () => {
  const calls: unknown[] = [];
  const release = bufferRelease((options) => calls.push(options), 1000);
  release.passed(600);
  assert.equal(calls.length, 0);
  release.passed(600);
  assert.deepEqual(calls, [{ type: 'minor' }], 'crossed 1000');
  release.passed(700);
  assert.equal(calls.length, 1, '1900 received: not yet 2000');
  release.passed(100);
  assert.equal(calls.length, 2, '2000');
  release.passed(5000);
  assert.equal(calls.length, 3, 'one chunk larger than the interval collects once');
});

test('without a collector nothing happens', () => {
  const release = bufferRelease(null, 1);
  assert.doesNotThrow(() => release.passed(10_000_000));
});

test('the collector is V8\'s own, taken from a context of its own: the global scope gets no gc', () => {
  const collect = youngGenerationCollector();
  assert.equal(typeof collect, 'function');
  assert.doesNotThrow(() => collect!({ type: 'minor' }));
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
