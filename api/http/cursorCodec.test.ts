/**
 * The one cursor codec: every kind round-trips what the lists hand out, and refuses what they
 * never could — above all values the statement behind it cannot take (years Postgres does not
 * read, ranks outside a `real`, text with NUL or lone surrogates), which reached the database
 * as a 500 before.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { auditCursor, backlinkCursor, phantomCursor, searchCursor, timelineCursor, trashCursor } from './cursorCodec.ts';

const ID = '0b5e6c1a-3f2d-4c8e-9a7b-1d2e3f405162';
const wire = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('cursor codec', () => {
  test('every kind reads back what it wrote', () => {
    const timeline = { createdKey: '2024-06-15 12:00:00.123456', id: ID };
    assert.deepEqual(timelineCursor.decode(timelineCursor.encode(timeline)), timeline);
    const search = { tier: 2 as const, rank: 0.0607927, id: ID };
    assert.deepEqual(searchCursor.decode(searchCursor.encode(search)), search);
    assert.deepEqual(backlinkCursor.decode(backlinkCursor.encode({ title: 'Bäume 🌳', id: ID })), { title: 'Bäume 🌳', id: ID });
    assert.equal(phantomCursor.decode(phantomCursor.encode('fehlende-seite')), 'fehlende-seite');
    assert.equal(trashCursor.decode(trashCursor.encode('2024-06-15 12:00:00')), '2024-06-15 12:00:00');
    assert.equal(timelineCursor.decode(wire(['2024-06-15 12:00:00', ID.toUpperCase()]))?.id, ID, 'ids in lower case, as Postgres answers them');
  });

  test('timestamps: only real dates in the years Postgres reads, in its UTC text form', () => {
    for (const key of ['0000-01-01 00:00:00', '0000-12-31 23:59:59.999999', '2024-02-30 00:00:00', '2024-01-01 24:00:00', '2024-01-01T00:00:00Z', '2024-01-01', '10000-01-01 00:00:00', '']) {
      assert.equal(timelineCursor.decode(wire([key, ID])), null, key);
      assert.equal(trashCursor.decode(wire(key)), null, key);
    }
    assert.ok(timelineCursor.decode(wire(['0001-01-01 00:00:00', ID])));
    assert.ok(trashCursor.decode(wire('9999-12-31 23:59:59.999999')));
  });

  test('search ranks: what a real holds, never negative', () => {
    for (const rank of [1e308, -1e308, 3.5e38, -0.5, 1e-40, '0.5', null]) assert.equal(searchCursor.decode(wire([0, rank, ID])), null, String(rank));
    for (const rank of [0, 1e-30, 0.5, 1, 3.4e38]) assert.ok(searchCursor.decode(wire([1, rank, ID])), String(rank));
    for (const tier of [4, -1, '0', 0.5]) assert.equal(searchCursor.decode(wire([tier, 0.5, ID])), null, String(tier));
  });

  test('text without NUL or lone surrogates, ids that are uuids, and exactly the shape handed out', () => {
    for (const title of ['a\u0000', '\ud800', 'x\udc00']) assert.equal(backlinkCursor.decode(wire([title, ID])), null, JSON.stringify(title));
    for (const slug of ['', '\u0000', '\ud800']) assert.equal(phantomCursor.decode(wire(slug)), null, JSON.stringify(slug));
    assert.equal(backlinkCursor.decode(wire(['Title', 'not-a-uuid'])), null);
    assert.equal(backlinkCursor.decode(wire(['Title', `${ID}\u0000`])), null);
    assert.equal(searchCursor.decode(wire([0, 0.5, ID, 'extra'])), null);
    assert.equal(searchCursor.decode(wire({ tier: 0, rank: 0.5, id: ID })), null);
    for (const text of ['garbage', '', '%%%', Buffer.from('2024-01-01 00:00:00|' + ID).toString('base64url')]) assert.equal(timelineCursor.decode(text), null, text);
  });

  test('audit ids: positive bigints as decimal text, nothing a bigint cannot hold', () => {
    const cursor = { createdKey: '2024-06-15 12:00:00.123456', id: '9223372036854775807' };
    assert.deepEqual(auditCursor.decode(auditCursor.encode(cursor)), cursor);
    for (const entryId of ['9223372036854775808', '0', '-1', '01', '1.5', '1e3', '', 7, null, ID]) assert.equal(auditCursor.decode(wire([cursor.createdKey, entryId])), null, String(entryId));
    assert.equal(auditCursor.decode(wire(['2024-02-30 00:00:00', '1'])), null);
  });

  test('the query field decodes a cursor, or fails on the field', () => {
    const query = z.object({ cursor: searchCursor.field });
    assert.deepEqual(query.parse({ cursor: searchCursor.encode({ tier: 0, rank: 0.25, id: ID }) }), { cursor: { tier: 0, rank: 0.25, id: ID } });
    assert.deepEqual(query.parse({}), {});
    const refused = query.safeParse({ cursor: wire([0, 1e308, ID]) });
    assert.equal(refused.success, false);
    assert.deepEqual(refused.error?.issues.map((issue) => issue.path), [['cursor']]);
  });
});
