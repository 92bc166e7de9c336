/**
 * The worker process: Graphile Worker running our task list and crontab. Started by the
 * supervisor (`npm start`) or alone (`npm run start:worker`) against a shared
 * `DATABASE_URL`; any number of workers may share one database.
 */
import { Logger as GraphileLogger, run, type LogLevel, type Runner } from 'graphile-worker';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { loadConfigOrExit } from '../api/config.ts';
import { createSequelize } from '../api/db/database.ts';
import { createLogger, type Logger } from '../api/logger.ts';
import { Mailer } from '../api/mail/mailer.ts';
import { initModels } from '../api/models/index.ts';
import { CRONTAB } from './crontab.ts';
import { createTaskList } from './taskList.ts';

export interface WorkerDependencies {
  databaseUrl: string;
  /** Bound to the models (`initModels`) by the caller. */
  sequelize: Sequelize;
  dataDir: string;
  logger: Logger;
  /** Delivers account mail (the relay saved by setup, else the `SMTP_*` fallback). */
  mailer: Mailer;
  /** `BASE_URL`: the origin of mailed links when setup saved none. */
  baseUrl: string;
  /** The instance's session secret (signed links in mails). */
  sessionSecret: string;
}

const PINO_LEVELS = { error: 'error', warning: 'warn', info: 'info', debug: 'debug' } as const satisfies Record<LogLevel, string>;

/** Graphile's log lines as our JSON log lines; its scope (worker, task, job id) becomes fields. */
export function graphileLoggerFor(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => {
    const scoped = logger.child(Object.fromEntries(Object.entries(scope).filter(([, value]) => value !== undefined)));
    return (level, message, meta) => {
      // pino serializes errors (message, stack) only under `err`.
      const { error, ...fields } = meta ?? {};
      scoped[PINO_LEVELS[level]](error === undefined ? fields : { ...fields, err: error }, message);
    };
  });
}

export interface RunningWorker {
  runner: Runner;
  /** Lets a running job finish (Graphile aborts it after its grace period), then closes the pool. */
  stop: () => Promise<void>;
}

/**
 * Starts the runner: installs or upgrades Graphile's own schema (`graphile_worker`), schedules
 * the crontab and polls for jobs at the default interval. Rejects when the database is
 * unreachable. Signals are the caller's business.
 */
export async function startWorker(dependencies: WorkerDependencies): Promise<RunningWorker> {
  const pool = jobQueuePool(dependencies.databaseUrl, dependencies.logger);
  try {
    const runner = await run({
      pgPool: pool,
      taskList: createTaskList(dependencies),
      crontab: CRONTAB,
      logger: graphileLoggerFor(dependencies.logger),
      noHandleSignals: true,
    });
    return {
      runner,
      stop: async () => {
        await runner.stop();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/**
 * Graphile's connections. Our own pool, not Graphile's `connectionString` one: Graphile takes
 * its error listeners off its pool before that pool has ended, so a Postgres that goes down
 * together with us (Ctrl-C reaches the whole process group) would kill the process with an
 * unhandled `error` event instead of letting it exit cleanly.
 */
function jobQueuePool(databaseUrl: string, logger: Logger): pg.Pool {
  // api/db/database.ts parses bigint as a number for the whole process; Graphile's job ids
  // are bigints it expects as strings.
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => value);
  const pool = new pg.Pool({ connectionString: databaseUrl, types });
  // The failed query (if any) reports the error; the pool replaces the connection.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle job queue connection failed'));
  pool.on('connect', (client) => client.on('error', (error) => logger.warn({ err: error }, 'job queue connection failed')));
  return pool;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, 'worker');
  const databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    logger.fatal('DATABASE_URL is not set: start the whole service with `npm start`, or set DATABASE_URL');
    process.exit(78);
  }

  const sequelize = createSequelize(databaseUrl);
  initModels(sequelize);
  let worker: RunningWorker | null = null;
  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping');
    await worker?.stop().catch((error: unknown) => logger.error({ err: error }, 'stopping the runner failed'));
    await sequelize.close().catch(() => undefined);
    process.exit(0);
  }
  // Before anything starts: a stop signal at any moment (also while starting) ends the process cleanly.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  try {
    const mailer = new Mailer({ fallback: config.smtpFallback, logger });
    worker = await startWorker({ databaseUrl, sequelize, dataDir: config.dataDir, logger, mailer, baseUrl: config.baseUrl, sessionSecret: config.sessionSecret });
  } catch (error) {
    // Non-zero, so the supervisor (or systemd, Docker) restarts it with backoff.
    logger.fatal({ err: error }, 'worker could not start');
    await sequelize.close().catch(() => undefined);
    process.exit(1);
  }
  if (stopping) {
    // Stopped while starting: shutdown() ran before the runner existed.
    await worker.stop().catch(() => undefined);
    process.exit(0);
  }
  logger.info('worker running');

  // The runner only ends on its own when something broke (e.g. its database went away).
  worker.runner.promise.then(
    async () => {
      if (stopping) return;
      logger.fatal('worker runner ended unexpectedly');
      await sequelize.close().catch(() => undefined);
      process.exit(1);
    },
    async (error: unknown) => {
      if (stopping) return;
      logger.fatal({ err: error }, 'worker runner failed');
      await sequelize.close().catch(() => undefined);
      process.exit(1);
    },
  );
}

if (import.meta.main) await main();
