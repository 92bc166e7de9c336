import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cookieValueFor, openFromCookie } from './openBranches.ts';

const POND = '5d1c0a2e-0000-4000-8000-000000000000';
const pages = ['aaaaaaaa-1111-4000-8000-000000000001', 'bbbbbbbb-2222-4000-8000-000000000002', 'cccccccc-3333-4000-8000-000000000003'];

test('the cookie round-trips the opened pages of its pond by their id prefixes', () => {
  const value = cookieValueFor(POND, [pages[0]!, pages[2]!]);
  assert.equal(value, `${POND}:aaaaaaaa.cccccccc`);
  assert.deepEqual(openFromCookie(value, POND, pages), [pages[0], pages[2]]);
  assert.deepEqual(openFromCookie(value, POND.toUpperCase(), pages), [pages[0], pages[2]]);
});

test('a cookie of another pond, a missing or a garbled one says nothing', () => {
  assert.equal(openFromCookie(cookieValueFor(POND, [pages[0]!]), '6d1c0a2e-0000-4000-8000-000000000000', pages), null);
  assert.equal(openFromCookie('', POND, pages), null);
  assert.deepEqual(openFromCookie(`${POND}:zz.<script>.aaaaaaaa`, POND, pages), [pages[0]]);
  assert.deepEqual(openFromCookie(`${POND}:`, POND, pages), []);
});

test('at most the newest 100 branches go into the cookie', () => {
  const many = Array.from({ length: 150 }, (_, index) => `${index.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`);
  const kept = cookieValueFor(POND, many).split(':')[1]!.split('.');
  assert.equal(kept.length, 100);
  assert.equal(kept[0], (50).toString(16).padStart(8, '0'));
});
