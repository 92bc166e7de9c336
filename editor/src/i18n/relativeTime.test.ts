import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relativeTime } from './relativeTime.ts';

test('relative times: now, then whole units, in both languages', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const ago = (seconds: number, locale = 'en') => relativeTime(new Date(now.getTime() - seconds * 1000), now, locale);
  assert.equal(ago(20), 'now');
  assert.equal(ago(20, 'de'), 'jetzt');
  assert.equal(ago(-5), 'now', 'a clock slightly ahead is not the future');
  assert.equal(ago(5 * 60 + 30), '5 minutes ago');
  assert.equal(ago(2 * 3600, 'de'), 'vor 2 Stunden');
  assert.equal(ago(26 * 3600), 'yesterday');
  assert.equal(ago(26 * 3600, 'de'), 'gestern');
  assert.equal(ago(15 * 24 * 3600), '2 weeks ago');
  assert.equal(relativeTime('2025-03-01T12:00:00Z', now, 'en'), 'last year');
});
