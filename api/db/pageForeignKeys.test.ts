/**
 * Purging a page is one DELETE after its children moved up (api/commands/pageTrashCommands.ts).
 * That holds only while everything that references a page cascades with it or is set null:
 * this test fails on a new table that would block a purge (or keep data of a purged page).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../testing/testDatabase.ts';

test('every foreign key to pages cascades or sets null, except the tree itself', async () => {
  const database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; table: string; on_delete: string }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS table, c.confdeltype AS on_delete
         FROM pg_constraint c WHERE c.contype = 'f' AND c.confrelid = 'pages'::regclass ORDER BY 1`,
    );
    // The sanity check: the known references are there.
    const tables = new Set(rows.map((row) => row.table));
    for (const table of ['favorites', 'watches', 'files', 'page_labels', 'grants']) assert.ok(tables.has(table), `${table} references pages`);
    // `a` = no action: only the parent key, which the purge empties by promoting the children first.
    const blocking = rows.filter((row) => !['c', 'n'].includes(row.on_delete)).map((row) => `${row.table}.${row.name}`);
    assert.deepEqual(blocking, ['pages.pages_parent_id_pond_id_fkey']);
  } finally {
    await client.end();
    await database.drop();
  }
});
