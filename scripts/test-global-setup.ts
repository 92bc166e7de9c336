/**
 * `node --test --test-global-setup`: starts one embedded Postgres for the whole run and
 * builds a migrated template database; each test file clones it (see api/testing).
 */
import { freePort } from '../api/testing/freePort.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createSequelize } from '../api/db/database.ts';
import { migrateToLatest } from '../api/db/migrator.ts';
import { EmbeddedPostgresUnreachable, startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embeddedPostgres.ts';

export const TEMPLATE_DATABASE = 'dt_template';

let handle: EmbeddedPostgresHandle | null = null;
let dataDir: string | null = null;

export async function globalSetup(): Promise<void> {
  if (process.env.DT_TEST_DATABASE_URL) return; // an external Postgres was given
  dataDir = mkdtempSync(path.join(tmpdir(), 'dt-test-pg-'));
  handle = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort(), durable: false }).catch(refuseToRun);
  const admin = new pg.Client({ connectionString: handle.databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const templateUrl = handle.databaseUrl(TEMPLATE_DATABASE);
  const sequelize = createSequelize(templateUrl, { poolMax: 2 });
  await migrateToLatest(templateUrl, sequelize);
  await sequelize.close();
  // Test files run in child processes, which inherit this environment.
  process.env.DT_TEST_DATABASE_URL = handle.databaseUrl('postgres');
}

export async function globalTeardown(): Promise<void> {
  await handle?.stop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

/** Where Postgres cannot run at all (root, a private home, nowhere to put it): its one sentence, no stack trace. */
function refuseToRun(error: unknown): never {
  if (!(error instanceof EmbeddedPostgresUnreachable)) throw error;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
