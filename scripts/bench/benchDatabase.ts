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
  sequelize: Sequelize;
  close: () => Promise<void>;
}

export async function openBenchDatabase(): Promise<BenchDatabase> {
  let serverUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => undefined as void;
  if (!serverUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-pg-'));
    const handle = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort(), durable: false });
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
    sequelize,
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

export interface Timing {
  median: number;
  p95: number;
}

/**
 * Times several tasks in alternation (a, b, c, a, b, c, …) after a warm-up, so drift in the
 * machine's load and garbage left by one task weigh on all of them alike. Milliseconds.
 */
export async function measureAlternating<K extends string>(tasks: Record<K, () => Promise<unknown>>, options: { warmup?: number; runs?: number } = {}): Promise<Record<K, Timing>> {
  const names = Object.keys(tasks) as K[];
  for (let i = 0; i < (options.warmup ?? 5); i += 1) for (const name of names) await tasks[name]();
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < (options.runs ?? 40); i += 1) {
    for (const name of names) {
      const started = process.hrtime.bigint();
      await tasks[name]();
      samples[name].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const sorted = samples[name].sort((a, b) => a - b);
      return [name, { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]! }];
    }),
  ) as Record<K, Timing>;
}
