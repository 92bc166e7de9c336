import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entityTagOf, ifNoneMatchHits, requestedByteRange } from './byteRange.ts';

const ETAG = entityTagOf('ab'.repeat(32));

describe('requestedByteRange', () => {
  const range = (header: string | undefined, size = 100, ifRange?: string) => requestedByteRange(header, ifRange, ETAG, size);

  test('one range in each form, clamped to the file', () => {
    assert.deepEqual(range('bytes=0-9'), { kind: 'partial', start: 0, end: 9 });
    assert.deepEqual(range('bytes=90-'), { kind: 'partial', start: 90, end: 99 });
    assert.deepEqual(range('bytes=-10'), { kind: 'partial', start: 90, end: 99 });
    assert.deepEqual(range('bytes=-500'), { kind: 'partial', start: 0, end: 99 });
    assert.deepEqual(range('bytes=50-5000'), { kind: 'partial', start: 50, end: 99 });
    assert.deepEqual(range('Bytes = 1 - 2 '), { kind: 'partial', start: 1, end: 2 });
  });

  test('nothing of the file selected: unsatisfiable', () => {
    assert.deepEqual(range('bytes=100-'), { kind: 'unsatisfiable' });
    assert.deepEqual(range('bytes=100-200'), { kind: 'unsatisfiable' });
    assert.deepEqual(range('bytes=-0'), { kind: 'unsatisfiable' });
    assert.deepEqual(range('bytes=0-', 0), { kind: 'unsatisfiable' });
    assert.deepEqual(range('bytes=-5', 0), { kind: 'unsatisfiable' });
    assert.deepEqual(range('bytes=99999999999999999999-'), { kind: 'unsatisfiable' });
  });

  test('several ranges, malformed headers and other units are ignored: the whole file', () => {
    for (const header of [undefined, 'bytes=0-1,5-6', 'bytes=0-1, 5-6', 'bytes=abc', 'bytes=-', 'bytes=5-2', 'items=0-1', 'bytes 0-1', 'bytes=0x1-2', '']) {
      assert.deepEqual(range(header), { kind: 'whole' }, String(header));
    }
  });

  test('If-Range: the same strong tag keeps the range; another tag, a weak one or a date gives the whole file', () => {
    assert.deepEqual(range('bytes=0-1', 100, ETAG), { kind: 'partial', start: 0, end: 1 });
    assert.deepEqual(range('bytes=0-1', 100, ` ${ETAG} `), { kind: 'partial', start: 0, end: 1 });
    assert.deepEqual(range('bytes=0-1', 100, `"${'cd'.repeat(32)}"`), { kind: 'whole' });
    assert.deepEqual(range('bytes=0-1', 100, `W/${ETAG}`), { kind: 'whole' });
    assert.deepEqual(range('bytes=0-1', 100, 'Wed, 21 Oct 2015 07:28:00 GMT'), { kind: 'whole' });
  });
});

describe('ifNoneMatchHits', () => {
  test('the tag, in a list, weak or as *', () => {
    assert.equal(ifNoneMatchHits(ETAG, ETAG), true);
    assert.equal(ifNoneMatchHits(`"other", ${ETAG}`, ETAG), true);
    assert.equal(ifNoneMatchHits(`W/${ETAG}`, ETAG), true);
    assert.equal(ifNoneMatchHits('*', ETAG), true);
  });

  test('absent or other tags miss', () => {
    assert.equal(ifNoneMatchHits(undefined, ETAG), false);
    assert.equal(ifNoneMatchHits('"other"', ETAG), false);
    assert.equal(ifNoneMatchHits(ETAG.slice(1, -1), ETAG), false, 'an unquoted tag is not the tag');
  });
});
