import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { startVisiblePolling, type PollingEnvironment } from './visiblePolling.ts';

class FakeDocument extends EventTarget {
  hidden = false;

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

let fakeDocument: FakeDocument;
let fakeWindow: EventTarget;
let environment: PollingEnvironment;
let polls: number;
const poll = () => {
  polls++;
};

/** Moves the clock a second at a time, letting each finished poll settle as it would between real ticks. */
async function advance(ms: number): Promise<void> {
  for (let passed = 0; passed < ms; ) {
    const step = Math.min(1_000, ms - passed);
    mock.timers.tick(step);
    passed += step;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let round = 0; round < 3; round++) await Promise.resolve();
}

beforeEach(() => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  fakeDocument = new FakeDocument();
  fakeWindow = new EventTarget();
  environment = { document: fakeDocument, window: fakeWindow, now: () => Date.now() };
  polls = 0;
});

afterEach(() => mock.timers.reset());

test('polls every interval while visible, and right away when asked', async () => {
  const stop = startVisiblePolling(poll, { intervalMs: 30_000, immediately: true, environment });
  assert.equal(polls, 1);
  await advance(29_999);
  assert.equal(polls, 1);
  await advance(1);
  assert.equal(polls, 2);
  await advance(60_000);
  assert.equal(polls, 4);
  stop();
  await advance(60_000);
  assert.equal(polls, 4, 'stopped');
});

test('no polls while hidden; coming back polls at once and starts the interval again', async () => {
  startVisiblePolling(poll, { intervalMs: 30_000, environment });
  assert.equal(polls, 0);
  fakeDocument.setHidden(true);
  await advance(120_000);
  assert.equal(polls, 0, 'hidden: nothing');
  fakeDocument.setHidden(false);
  await settle();
  assert.equal(polls, 1, 'visible again: at once');
  await advance(30_000);
  assert.equal(polls, 2);
});

test('a hidden tab at start waits until it is shown', async () => {
  fakeDocument.hidden = true;
  startVisiblePolling(poll, { intervalMs: 30_000, immediately: true, environment });
  await advance(90_000);
  assert.equal(polls, 0);
  fakeDocument.setHidden(false);
  await settle();
  assert.equal(polls, 1);
});

test('focus polls, but not twice within the gap (a tab switch fires focus and visibilitychange)', async () => {
  startVisiblePolling(poll, { intervalMs: 30_000, minGapMs: 2_000, environment });
  await advance(10_000);
  fakeWindow.dispatchEvent(new Event('focus'));
  await settle();
  assert.equal(polls, 1);
  fakeDocument.setHidden(false);
  await settle();
  fakeWindow.dispatchEvent(new Event('focus'));
  await settle();
  assert.equal(polls, 1, 'within the gap');
  await advance(29_999);
  assert.equal(polls, 1, 'the interval restarted with the poll on focus');
  await advance(1);
  assert.equal(polls, 2);
});

test('focus bouncing within the gap does not postpone the next poll', async () => {
  startVisiblePolling(poll, { intervalMs: 30_000, minGapMs: 2_000, environment });
  fakeWindow.dispatchEvent(new Event('focus'));
  await settle();
  assert.equal(polls, 1);
  await advance(1_000);
  fakeWindow.dispatchEvent(new Event('focus'));
  await advance(29_000);
  assert.equal(polls, 2, '30 s after the poll, not after the second focus');
});

test('a poll still under way is not started again, and a failing poll does not stop polling', async () => {
  let release: () => void = () => {};
  let started = 0;
  const slow = () => {
    started++;
    if (started === 1) return new Promise<void>((resolve) => (release = resolve));
    return Promise.reject(new Error('offline'));
  };
  startVisiblePolling(slow, { intervalMs: 1_000, immediately: true, environment });
  await advance(3_000);
  assert.equal(started, 1, 'the first is still running');
  release();
  await settle();
  await advance(1_000);
  assert.equal(started, 2);
  await advance(1_000);
  assert.equal(started, 3, 'the rejected poll did not stop the next');
});
