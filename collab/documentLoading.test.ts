/**
 * Loading a cold page: the log read started during the access check, catch-up reads for rows
 * the API appended meanwhile, and no `update` event for the load itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Document } from '@hocuspocus/server';
import pg from 'pg';
import * as Y from 'yjs';
import { appendUpdates } from '../api/documents/documentLog.ts';
import { createTestDatabase } from '../api/testing/testDatabase.ts';
import { DocumentLoader } from './documentLoading.ts';
import { seedLogPage } from './testing/logFixtures.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const documents: Document[] = [];
/** A Hocuspocus document (its awareness runs a timer until destroyed). */
function newDocument(name: string): Document {
  const document = new Document(name);
  documents.push(document);
  return document;
}

before(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 3 });
});
after(async () => {
  for (const document of documents) document.destroy();
  await pool.end();
  await database.drop();
});

/** An editor typing into a shared text; each call returns the updates of the words typed. */
function typist() {
  const ydoc = new Y.Doc();
  const text = ydoc.getText('t');
  return {
    type(word: string): Uint8Array {
      const before = Y.encodeStateVector(ydoc);
      text.insert(text.length, word);
      return Y.encodeStateAsUpdate(ydoc, before);
    },
    text: () => text.toString(),
  };
}

test('a read started before rows were appended catches up on them when a notice came meanwhile', async () => {
  const { pageId } = await seedLogPage(pool);
  const editor = typist();
  await appendUpdates(pool, [{ pageId, update: editor.type('before ') }]);
  const loader = new DocumentLoader(pool);
  const read = loader.startRead(pageId);
  assert.equal((await read.rows).length, 1, 'the read is complete before the append');
  // The API appends (a version restore) and announces it on page_updates_appended.
  await appendUpdates(pool, [{ pageId, update: editor.type('after') }]);
  loader.noticeAppended();
  const document = newDocument(pageId);
  const lastId = await loader.load(document, pageId, read, 'log');
  assert.equal(document.getText('t').toString(), 'before after');
  const { rows } = await pool.query<{ id: string }>(`SELECT max(id) AS id FROM page_updates WHERE page_id = $1`, [pageId]);
  assert.equal(lastId, Number(rows[0]!.id));
});

test('without a notice the read is used as it is (no second query)', async () => {
  const { pageId } = await seedLogPage(pool);
  const editor = typist();
  await appendUpdates(pool, [{ pageId, update: editor.type('one') }]);
  const loader = new DocumentLoader(pool);
  const read = loader.startRead(pageId);
  await read.rows;
  // Appended without a notice: a load must not go looking (that is what the notice is for).
  await appendUpdates(pool, [{ pageId, update: editor.type(' two') }]);
  const document = newDocument(pageId);
  await loader.load(document, pageId, read, 'log');
  assert.equal(document.getText('t').toString(), 'one');
});

test('the load fires no update event, and the listeners hear every later change', async () => {
  const { pageId } = await seedLogPage(pool);
  const editor = typist();
  await appendUpdates(pool, ['Dorf', 'teich'].map((word) => ({ pageId, update: editor.type(word) })));
  const loader = new DocumentLoader(pool);
  const document = newDocument(pageId);
  const heard: Uint8Array[] = [];
  document.on('update', (update: Uint8Array) => heard.push(update));
  await loader.load(document, pageId, undefined, 'log');
  assert.equal(document.getText('t').toString(), 'Dorfteich');
  assert.equal(heard.length, 0);
  Y.applyUpdate(document, editor.type('!'));
  assert.equal(heard.length, 1);
  assert.equal(editor.text(), document.getText('t').toString());
});

test('a read nobody takes up fails quietly (no unhandled rejection)', async () => {
  const loader = new DocumentLoader(pool);
  const read = loader.startRead('not-a-uuid');
  await assert.rejects(read.rows);
});
