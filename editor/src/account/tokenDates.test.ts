import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endOfLocalDay, formatMoment, localDayOf } from './tokenDates.ts';

test('a chosen day ends at its last local second', () => {
  const end = endOfLocalDay('2031-03-09')!;
  assert.deepEqual([end.getFullYear(), end.getMonth(), end.getDate(), end.getHours(), end.getMinutes(), end.getSeconds()], [2031, 2, 9, 23, 59, 59]);
});

test('no day, a malformed one or one that does not exist gives null', () => {
  for (const day of ['', '2031-3-9', 'tomorrow', '2031-02-30', '2031-13-01']) assert.equal(endOfLocalDay(day), null, day);
});

test('today for a date input is the local calendar day, zero-padded', () => {
  assert.equal(localDayOf(new Date(2031, 0, 5, 0, 30)), '2031-01-05');
  assert.equal(localDayOf(new Date(2031, 11, 31, 23, 59)), '2031-12-31');
});

test('the server render names UTC; the browser uses its own zone', () => {
  assert.match(formatMoment('2031-03-09T12:00:00.000Z', 'en', false), /UTC$/);
  assert.doesNotMatch(formatMoment('2031-03-09T12:00:00.000Z', 'en', true), /UTC$/);
});
