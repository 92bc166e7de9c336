/** The poll helper every test waits with: answers, timeouts, probe errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from './polling.ts';

test('resolves with the first answer that is not undefined, null or false', async () => {
  let calls = 0;
  const answers = [undefined, null, false, 0, 'late'];
  const value = await waitFor(() => answers[calls++], 1_000, 'an answer', { intervalMs: 1 });
  assert.equal(value, 0, 'zero is an answer');
  assert.equal(calls, 4);
  assert.equal(await waitFor(async () => 'async', 100), 'async');
});

test('rejects naming what was awaited once the time is up, after probing at least once', async () => {
  let calls = 0;
  const started = Date.now();
  await assert.rejects(
    waitFor(() => ((calls += 1), false), 60, 'the pond to fill', { intervalMs: 5 }),
    /timed out after 60 ms waiting for the pond to fill/,
  );
  assert.ok(Date.now() - started >= 60);
  assert.ok(calls >= 2);
  let once = 0;
  await assert.rejects(waitFor(() => ((once += 1), undefined), 0, 'nothing'));
  assert.equal(once, 1);
});

test('a probe that throws fails the wait, unless errors mean "not yet"', async () => {
  await assert.rejects(
    waitFor(() => {
      throw new Error('broken probe');
    }, 1_000),
    /broken probe/,
  );
  let calls = 0;
  const value = await waitFor(
    () => {
      calls += 1;
      if (calls < 3) throw new Error('connection refused');
      return 'serving';
    },
    1_000,
    'the server',
    { intervalMs: 1, retryOnError: true },
  );
  assert.equal(value, 'serving');
});
