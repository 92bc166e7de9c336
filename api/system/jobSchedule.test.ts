/**
 * The next fire time of a crontab line, read by Graphile's own parser: the first whole minute
 * after now that matches (never now itself), in UTC, across hour, day, month and year ends;
 * our crontab's lines each get theirs; a line that never fires within a year gives null.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextScheduledRuns } from './jobSchedule.ts';

const at = (iso: string) => new Date(iso);
const next = (line: string, now: string) => nextScheduledRuns(at(now), `${line} some-task`).get('some-task')?.toISOString() ?? null;

test('the first whole minute after now that matches, in UTC', () => {
  assert.equal(next('0 * * * *', '2026-12-03T10:00:00.000Z'), '2026-12-03T11:00:00.000Z', 'not the minute it is now');
  assert.equal(next('0 * * * *', '2026-12-03T10:59:59.999Z'), '2026-12-03T11:00:00.000Z');
  assert.equal(next('*/15 * * * *', '2026-12-03T10:14:30.000Z'), '2026-12-03T10:15:00.000Z');
  assert.equal(next('30 2 * * *', '2026-12-31T02:30:00.000Z'), '2027-01-01T02:30:00.000Z', 'over the year end');
  assert.equal(next('0 9 * * 1', '2026-12-03T10:00:00.000Z'), '2026-12-07T09:00:00.000Z', 'the next Monday');
  assert.equal(next('0 0 29 2 *', '2026-03-01T00:00:00.000Z'), null, 'no 29 February within a year');
});

test('every line of our crontab has its next run', () => {
  const runs = nextScheduledRuns(at('2026-12-03T10:05:00.000Z'));
  assert.deepEqual(Object.fromEntries([...runs].map(([task, when]) => [task, when?.toISOString()])), {
    'trash-purge': '2026-12-03T11:00:00.000Z',
    'log-compaction': '2026-12-03T10:20:00.000Z',
    'orphan-file-sweep': '2026-12-04T02:30:00.000Z',
    'version-thinning': '2026-12-04T03:40:00.000Z',
    'search-lexicon-refresh': '2026-12-04T04:10:00.000Z',
    'notification-digest': '2026-12-03T10:15:00.000Z',
  });
});
