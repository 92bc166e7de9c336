/**
 * `npm start`: the supervisor. Starts embedded Postgres under DATA_DIR/pg (unless
 * DATABASE_URL is set), applies migrations, then runs each service process and restarts it
 * with backoff when it dies. Once the API answers it prints the one line a person needs:
 * the address to open.
 *
 * SIGTERM, SIGINT or SIGHUP (to this process, to `npm start`, or to the terminal's process
 * group) stop the services first, then Postgres, and exit 0 within 10 s. The services hold an
 * IPC channel to this process and stop themselves when it closes, so not even a `kill -9` of
 * the supervisor leaves them running (startChildLifeline.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfigOrExit } from '../api/config.ts';
import { createSequelize } from '../api/db/database.ts';
import { migrateToLatest } from '../api/db/migrator.ts';
import { createLogger, LOG_FORMAT_VARIABLE, logFormat } from '../api/logger.ts';
import { EmbeddedPostgresUnreachable, ensureDatabase, leaveSignalsToCaller, startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embeddedPostgres.ts';
import { serviceNodeFlags } from './serviceNodeFlags.ts';
import { announceWhenReady } from './startAnnouncement.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, 'supervisor');
/** Our terminal decides how every process logs (their stdout need not be one). */
const childEnv = { ...process.env, [LOG_FORMAT_VARIABLE]: logFormat() };

/** The backup sidecar joins later. */
const SERVICES = [
  { name: 'api', entry: 'api/server.ts' },
  { name: 'collab', entry: 'collab/main.ts' },
  { name: 'worker', entry: 'jobs/worker.ts' },
];
const MAX_BACKOFF_MS = 30_000;
/** A child that ran this long counts as healthy: its next crash restarts quickly again. */
const HEALTHY_RUN_MS = 60_000;
/** Services get this long to finish their work; Postgres then takes at most 5.5 s (embeddedPostgres.ts). */
const SERVICE_STOP_GRACE_MS = 4_000;
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
const LIFELINE = pathToFileURL(path.join(root, 'scripts/startChildLifeline.ts')).href;

let stopping = false;
const children = new Map<string, ChildProcess>();
let embedded: EmbeddedPostgresHandle | null = null;
/** Why the start failed, printed as the very last line. */
let refusal: string | null = null;

leaveSignalsToCaller();
for (const signal of STOP_SIGNALS) process.on(signal, () => void stopEverything(signal));
watchNpm();

mkdirSync(config.dataDir, { recursive: true });
const startup = startUp();
await startup.catch(refuseToStart);

/**
 * A start that cannot work ends with one sentence naming the cause and the fix, exit 1, never
 * a stack trace (that goes to the debug log for whoever digs deeper).
 */
async function refuseToStart(error: unknown): Promise<void> {
  if (stopping) return;
  const sentence = error instanceof EmbeddedPostgresUnreachable ? error.message : `Dorfteich could not start: ${error instanceof Error ? error.message : String(error)}`;
  logger.debug({ err: error }, 'start-up failed');
  refusal = sentence;
  process.exitCode = 1;
  await stopEverything('start-up failed');
}

async function startUp(): Promise<void> {
  const built = await runChild('build-site', 'scripts/build-site.ts');
  if (stopping) return;
  if (!built) {
    logger.fatal('building the site failed');
    process.exit(1);
  }

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const pgDir = path.join(config.dataDir, 'pg');
    logger.info({ dataDir: pgDir, port: config.embeddedPgPort }, 'starting embedded Postgres');
    embedded = await startEmbeddedPostgres({ dataDir: pgDir, port: config.embeddedPgPort, onLog: (line) => logger.debug({ postgres: line }) });
    // Running as root with the checkout where Postgres' user cannot go: where its things are instead.
    if (embedded.relocation) process.stdout.write(`${embedded.relocation}\n`);
    // Without its database nothing works: stop everything and exit non-zero, so a process
    // manager (systemd, Docker) restarts the whole service.
    embedded.onUnexpectedExit((code, signal) => {
      logger.fatal({ code, signal }, 'embedded Postgres exited; stopping');
      process.exitCode = 1;
      void stopEverything('postgres exited');
    });
    if (stopping) return;
    await ensureDatabase(embedded, 'dorfteich');
    databaseUrl = embedded.databaseUrl('dorfteich');
  }
  if (stopping) return;

  const sequelize = createSequelize(databaseUrl, { poolMax: 2 });
  const applied = await migrateToLatest(databaseUrl, sequelize);
  await sequelize.close();
  logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
  if (stopping) return;

  for (const service of SERVICES) startService(service, databaseUrl);
  logger.info({ url: config.baseUrl }, 'Dorfteich is starting');
  void announceWhenReady(config, () => stopping, (line) => process.stdout.write(`${line}\n`));
  // Keep the supervisor alive even when every child is between restarts.
  setInterval(() => undefined, 1 << 30);
}

/** Runs a one-off script to its end (stoppable like the services); resolves with its success. */
function runChild(name: string, entry: string): Promise<boolean> {
  const child = spawn(process.execPath, [path.join(root, entry)], { cwd: root, env: childEnv, stdio: 'inherit' });
  children.set(name, child);
  return new Promise((resolve) => {
    child.once('error', () => resolve(false));
    child.once('exit', (code) => {
      children.delete(name);
      resolve(code === 0);
    });
  });
}

function startService(service: (typeof SERVICES)[number], databaseUrl: string, attempt = 0): void {
  if (stopping) return;
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...serviceNodeFlags(), '--import', LIFELINE, path.join(root, service.entry)], {
    cwd: root,
    env: { ...childEnv, DATABASE_URL: databaseUrl },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  children.set(service.name, child);
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (stopping) return;
    const healthy = Date.now() - startedAt > HEALTHY_RUN_MS;
    const nextAttempt = healthy ? 0 : attempt + 1;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** nextAttempt);
    logger.error({ service: service.name, code, signal, restartInMs: delay }, 'service exited; restarting');
    setTimeout(() => startService(service, databaseUrl, nextAttempt), delay).unref();
  });
}

/** SIGTERM to every child; SIGKILL to those still running after the grace period. */
async function stopChildren(): Promise<void> {
  const running = [...children.entries()];
  if (running.length === 0) return;
  logger.info({ services: running.map(([name]) => name) }, 'stopping services');
  const killTimer = setTimeout(() => running.forEach(([, child]) => child.kill('SIGKILL')), SERVICE_STOP_GRACE_MS);
  await Promise.all(
    running.map(([, child]) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    }),
  );
  clearTimeout(killTimer);
}

/**
 * Services first (they finish their writes and close their connections), then Postgres, so
 * nothing logs a lost connection. Exits 0 when asked to stop: npm and systemd report any other
 * code as a failure.
 */
async function stopEverything(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ reason }, 'Dorfteich is stopping');
  await stopChildren();
  // A start-up step still under way (Postgres starting, migrations) finishes or fails first.
  await startup?.catch(() => undefined);
  await stopChildren();
  await embedded?.stop();
  logger.info('Dorfteich stopped');
  // After the log lines still on their way, so the cause is the last thing a person reads.
  if (refusal) await new Promise<void>((resolve) => logger.flush(() => resolve()));
  if (refusal) process.stderr.write(`${refusal}\n`);
  process.exit();
}

/**
 * Under `npm start` our parent is npm, which forwards SIGTERM and SIGINT. Should npm itself die
 * without forwarding (SIGKILL), nobody would stop us: we stop when our parent changes.
 */
function watchNpm(): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stopEverything('npm exited');
  }, 1_000).unref();
}
