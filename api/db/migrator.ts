/**
 * Schema migrations (umzug, up and down), tracked in `schema_migrations`, followed by the job
 * queue's own schema (`graphile_worker`, versioned by Graphile Worker itself).
 * Running them takes a Postgres advisory lock on a dedicated connection, so two processes
 * starting at once wait for each other instead of racing.
 */
import { Logger as GraphileLogger, runMigrations as runJobQueueMigrations } from 'graphile-worker';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { migrations } from './migrations/index.ts';

/** Arbitrary, fixed key: "dt" "mig" in ASCII. */
const MIGRATION_LOCK_KEY = 0x6474_6d69;

export interface MigrationContext {
  sequelize: Sequelize;
}

export function createMigrator(sequelize: Sequelize): Umzug<MigrationContext> {
  return new Umzug<MigrationContext>({
    migrations: migrations.map((migration) => ({
      name: migration.name,
      up: ({ context }) => migration.up(context),
      down: ({ context }) => migration.down(context),
    })),
    context: { sequelize },
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

/** Graphile's migration lines are debug chatter; failures reach the caller as errors. */
const quietJobQueueLogger = new GraphileLogger(() => () => undefined);

/**
 * Applies every pending migration under the advisory lock; returns the names applied (ours
 * only). The job queue's schema is installed here too, not only when a worker starts: the
 * API enqueues jobs inside its own transactions (`graphile_worker.add_job`, e.g. mail), which
 * must work before any worker has ever run.
 */
export async function migrateToLatest(databaseUrl: string, sequelize: Sequelize): Promise<string[]> {
  const lockClient = new pg.Client({ connectionString: databaseUrl });
  await lockClient.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await createMigrator(sequelize).up();
    await runJobQueueMigrations({ connectionString: databaseUrl, logger: quietJobQueueLogger });
    return applied.map((migration) => migration.name);
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lockClient.end();
  }
}

/**
 * Names of migrations not yet applied; the readiness check fails while this is non-empty.
 * Read-only (umzug's own `pending()` would create its table), so probes change nothing.
 */
export async function pendingMigrations(sequelize: Sequelize): Promise<string[]> {
  const [table] = await sequelize.query<{ exists: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`, { type: QueryTypes.SELECT });
  const applied = table?.exists
    ? new Set((await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', { type: QueryTypes.SELECT })).map((row) => row.name))
    : new Set<string>();
  return migrations.map((migration) => migration.name).filter((name) => !applied.has(name));
}
