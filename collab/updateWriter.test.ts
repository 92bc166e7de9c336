/**
 * The update writer on a real database: group commit merges a burst into one row per page,
 * a write that fails is retried and its promise (the client's ack) settles only once it is
 * committed, and updates for a purged page are dropped instead of retried forever.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import * as Y from 'yjs';
import { loadDocumentState, type Queryable } from '../api/documents/documentLog.ts';
import { createLogger } from '../api/logger.ts';
import { createTestDatabase } from '../api/testing/testDatabase.ts';
import { MaintenanceGate } from './maintenanceGate.ts';
import { seedLogPage } from './testing/logFixtures.ts';
import { UpdateWriter } from './updateWriter.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const logger = createLogger('silent', 'collab');

before(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 3 });
});
after(async () => {
  await pool.end();
  await database.drop();
});

const seedPage = () => seedLogPage(pool);

/** One keystroke each: the updates a typing client sends. */
function keystrokes(count: number): { updates: Uint8Array[]; expected: string } {
  const ydoc = new Y.Doc();
  const updates: Uint8Array[] = [];
  ydoc.on('update', (update: Uint8Array) => updates.push(update));
  const text = ydoc.getText('t');
  for (let index = 0; index < count; index += 1) text.insert(index, String(index % 10));
  return { updates, expected: text.toString() };
}

async function storedText(pageId: string): Promise<string> {
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, (await loadDocumentState(pool, pageId)).state);
  return ydoc.getText('t').toString();
}

test('a burst of keystrokes is committed as one merged row, with its author as contributor', async () => {
  const { pageId, userId } = await seedPage();
  const writer = new UpdateWriter(pool, logger);
  const { updates, expected } = keystrokes(200);
  await Promise.all(updates.map((update) => writer.enqueue(pageId, update, userId)));
  assert.equal(writer.stats.flushes, 1);
  assert.equal(writer.stats.rowsWritten, 1);
  assert.equal(await storedText(pageId), expected);
  const { rows } = await pool.query(`SELECT user_id FROM page_contributors WHERE page_id = $1`, [pageId]);
  assert.deepEqual(rows, [{ user_id: userId }]);
});

test('a failed write is retried; nothing resolves (nothing is acknowledged) before the commit', async () => {
  const { pageId } = await seedPage();
  let failures = 2;
  const flaky: Queryable = {
    query: async (text, values) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('connection reset');
      }
      return pool.query(text, values as unknown[]);
    },
  };
  const writer = new UpdateWriter(flaky, logger);
  const { updates, expected } = keystrokes(5);
  let acknowledged = false;
  const written = Promise.all(updates.map((update) => writer.enqueue(pageId, update, null))).then(() => {
    acknowledged = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(acknowledged, false, 'acknowledged while the write was failing');
  assert.equal(await storedText(pageId), '');
  await written;
  assert.equal(failures, 0);
  assert.equal(await storedText(pageId), expected);
});

test('updates for a page purged while it was open are dropped, not retried forever', async () => {
  const { pageId } = await seedPage();
  await pool.query(`DELETE FROM pages WHERE id = $1`, [pageId]);
  const writer = new UpdateWriter(pool, logger);
  await writer.enqueue(pageId, keystrokes(1).updates[0]!, null);
  assert.equal(writer.stats.flushes, 1);
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM page_updates WHERE page_id = $1`, [pageId]);
  assert.equal(rows[0].n, 0);
});

test('maintenance: start and end by payload; the failsafe ends a maintenance whose end never comes', async () => {
  const gate = new MaintenanceGate(40, logger);
  let started = 0;
  gate.onStart = () => {
    started += 1;
  };
  gate.handle('start');
  assert.equal(gate.active, true);
  gate.handle('{"state":"end"}');
  assert.equal(gate.active, false);
  gate.handle('{"state":"start"}');
  gate.handle('nonsense');
  assert.equal(gate.active, true);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(gate.active, false, 'failsafe did not end maintenance');
  assert.equal(started, 2);
  gate.stop();
});
