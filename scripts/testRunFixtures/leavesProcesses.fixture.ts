/**
 * Run by scripts/runTests.test.ts through `npm test`'s runner, never by the suite itself (not a
 * `*.test.ts`): a test file that does what real ones do and leaves it all behind — a database
 * cloned from the run's template (never dropped), a temporary directory, and a process in a group of its own
 * (as Chromium and Postgres run) that nobody stops. Then it passes, fails or hangs, as
 * DT_FIXTURE_MODE says, after telling DT_FIXTURE_REPORT what it started.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../../api/testing/testDatabase.ts';

test(`a test file that leaves things behind, then ends: ${process.env.DT_FIXTURE_MODE}`, async () => {
  const database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const { rows } = await client.query<{ data_directory: string }>("SELECT current_setting('data_directory') AS data_directory");
  await client.end();
  const scratch = mkdtempSync(path.join(tmpdir(), 'dt-fixture-'));
  const stray = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  stray.unref();
  writeFileSync(process.env.DT_FIXTURE_REPORT!, JSON.stringify({ stray: stray.pid, scratch, postgresDataDir: rows[0]!.data_directory }));
  if (process.env.DT_FIXTURE_MODE === 'fail') assert.fail('this fixture fails as asked');
  if (process.env.DT_FIXTURE_MODE === 'hang') await new Promise(() => setInterval(() => undefined, 1_000));
});
