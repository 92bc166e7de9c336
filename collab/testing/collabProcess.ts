/**
 * The collab server as a real child process (`node collab/main.ts`), for tests and scripts
 * that kill it the hard way: `SIGKILL` gives the process no chance to flush or close
 * anything, which is what a crash or an OOM kill does. A restart binds the same port, so
 * clients (and the API's proxy) reconnect to the same address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../api/testing/polling.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(REPO_ROOT, 'collab/main.ts');
/** How much of the child's output is kept for the error message when it does not come up. */
const KEPT_OUTPUT_CHARS = 4000;

export interface CollabProcessOptions {
  databaseUrl: string;
  sessionSecret: string;
  port: number;
  host?: string;
  storeDebounceMs?: number;
  logLevel?: string;
  /** Give up when the server does not answer /healthz within this long. */
  startTimeoutMs?: number;
}

export interface CollabProcess {
  readonly port: number;
  /** Direct `ws://host:port/collab` URL (without the API's proxy). */
  readonly url: string;
  /** The pid of the current child (changes on every restart). */
  readonly pid: number;
  /** How often the process was started. */
  readonly starts: number;
  /** SIGKILL, then wait until the process is gone. */
  kill9(): Promise<void>;
  /** Start it again on the same port and wait until it serves. */
  restart(): Promise<void>;
  /** SIGTERM (the graceful path: pending writes and stores finish), then wait. */
  stop(): Promise<void>;
  /** What the current child wrote to stdout/stderr (the tail), for failure messages. */
  output(): string;
}

/** Resolves once `GET /healthz` answers 200, polling every 25 ms. */
export async function waitUntilServing(host: string, port: number, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const serving = async () => {
    if (!alive()) throw new Error('the collab process exited before it served');
    const status = await new Promise<number>((resolve) => {
      const probe = request({ host, port, path: '/healthz', method: 'GET', timeout: 500 }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      probe.on('error', () => resolve(0));
      probe.on('timeout', () => probe.destroy());
      probe.end();
    });
    return status === 200;
  };
  await waitFor(serving, timeoutMs, `the collab server on ${host}:${port} to serve`, { intervalMs: 25 });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function spawnCollabProcess(options: CollabProcessOptions): Promise<CollabProcess> {
  const host = options.host ?? '127.0.0.1';
  let child: ChildProcess | null = null;
  let output = '';
  let starts = 0;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) throw new Error('the collab process is still running: kill or stop it before a restart');
    output = '';
    starts += 1;
    // A clean environment: only what the collab process reads, so the parent's settings
    // (PORT, DATA_DIR, a developer's .env values) cannot leak into it.
    const current = spawn(process.execPath, [MAIN], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: options.databaseUrl,
        SESSION_SECRET: options.sessionSecret,
        COLLAB_HOST: host,
        COLLAB_PORT: String(options.port),
        COLLAB_STORE_DEBOUNCE_MS: String(options.storeDebounceMs ?? 50),
        LOG_LEVEL: options.logLevel ?? 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = current;
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-KEPT_OUTPUT_CHARS);
    };
    current.stdout?.on('data', keep);
    current.stderr?.on('data', keep);
    try {
      await waitUntilServing(host, options.port, options.startTimeoutMs ?? 20_000, () => current.exitCode === null && current.signalCode === null);
    } catch (error) {
      current.kill('SIGKILL');
      throw new Error(`${(error as Error).message}\n--- collab output ---\n${output}`);
    }
  };

  const signal = async (name: NodeJS.Signals) => {
    const current = child;
    if (!current) return;
    current.kill(name);
    await exited(current);
  };

  // A parent that dies (a failed assertion ending the run) must not leave the server behind.
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  await start();
  return {
    port: options.port,
    url: `ws://${host}:${options.port}/collab`,
    get pid() {
      return child?.pid ?? 0;
    },
    get starts() {
      return starts;
    },
    kill9: () => signal('SIGKILL'),
    restart: start,
    stop: async () => {
      await signal('SIGTERM');
      process.off('exit', killOnExit);
    },
    output: () => output,
  };
}
