/**
 * A scratch database for a benchmark: a throw-away embedded Postgres (fsync off, like the
 * test cluster), migrated, with the models bound. `BENCH_DATABASE_URL` points a benchmark
 * at an existing server instead (a scratch database is created there and dropped after).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { createSequelize } from '../../api/db/database.ts';
import { migrateToLatest } from '../../api/db/migrator.ts';
import { initModels } from '../../api/models/index.ts';
import { freePort } from '../../api/testing/freePort.ts';
import { startEmbeddedPostgres } from '../embeddedPostgres.ts';

export interface BenchDatabase {
  url: string;
  sequelize: Sequelize;
  /** Whether commits reach the disk (fsync on) or not (the test cluster's settings). */
  durable: boolean;
  close: () => Promise<void>;
}

/** `BENCH_DATABASE_URL` points at an existing server instead; its durability is then its own. */
export async function openBenchDatabase(options: { durable?: boolean } = {}): Promise<BenchDatabase> {
  const durable = options.durable ?? false;
  let serverUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => undefined as void;
  if (!serverUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-pg-'));
    const handle = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort(), durable });
    serverUrl = handle.databaseUrl('postgres');
    stopServer = async () => {
      await handle.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const sequelize = createSequelize(url.toString(), { poolMax: 4 });
  initModels(sequelize);
  await migrateToLatest(url.toString(), sequelize);
  return {
    url: url.toString(),
    sequelize,
    durable,
    close: async () => {
      await sequelize.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
      await stopServer();
    },
  };
}
