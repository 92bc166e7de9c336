/**
 * The supervisor as a user runs it: `npm start` on an empty DATA_DIR, Ctrl-C, and again.
 */
import { freePort } from '../api/testing/freePort.ts';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-start-'));
const supervisors: ChildProcess[] = [];
after(() => {
  // A failed assertion must not leave a running instance behind.
  for (const child of supervisors) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Child processes of `parentPid` whose command line contains `match` (the API, Postgres…). */
async function childPids(parentPid: number, match = ''): Promise<number[]> {
  const ps = spawn('ps', ['-o', 'pid=,args=', '--ppid', String(parentPid)]);
  let output = '';
  ps.stdout.on('data', (chunk) => (output += chunk));
  await new Promise((resolve) => ps.on('close', resolve));
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes(match))
    .map((line) => Number(line.split(/\s+/)[0]))
    .filter((pid) => pid > 0);
}

const ports = { http: await freePort(), pg: await freePort(), collab: await freePort() };
const baseUrl = `http://127.0.0.1:${ports.http}`;

function startSupervisor(): ChildProcess {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [path.join(root, 'scripts/start.ts')], {
    cwd: root,
    env: { ...env, PORT: String(ports.http), HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(ports.pg), COLLAB_PORT: String(ports.collab), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    detached: true, // its own process group, so a group signal behaves like Ctrl-C in a terminal
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  supervisors.push(child);
  return child;
}

async function readyz(): Promise<number | undefined> {
  const response = await fetch(`${baseUrl}/api/v1/readyz`);
  return response.status === 200 ? 200 : undefined;
}

/** Whether a WebSocket to `/collab` on the public port opens (Hocuspocus accepts, then waits for auth). */
async function collabSocketOpens(): Promise<true | undefined> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/collab`);
  const opened = await new Promise<boolean>((resolve) => {
    socket.addEventListener('open', () => resolve(true));
    socket.addEventListener('error', () => resolve(false));
  });
  socket.close();
  return opened ? true : undefined;
}

/** Ctrl-C: SIGINT to the whole process group; resolves with the supervisor's exit. */
async function pressCtrlC(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid!, 'SIGINT');
  await exited;
}

test('npm start serves a fresh instance, restarts a dead API, stops cleanly and reuses its data', { timeout: 180_000 }, async () => {
  const first = startSupervisor();
  await waitFor(readyz, 90_000, 'the first start');

  const pending = await fetch(`${baseUrl}/api/v1/users/me`);
  assert.equal(pending.status, 503);
  assert.equal(((await pending.json()) as { error: { code: string } }).error.code, 'setup_required');
  const wizard = await fetch(`${baseUrl}/`, { redirect: 'manual' });
  assert.equal(wizard.status, 302);
  assert.equal(wizard.headers.get('location'), '/setup');

  const created = await fetch(`${baseUrl}/api/v1/setup/admin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'keeper', email: 'keeper@example.org', password: 'a long enough password', displayName: 'Keeper' }),
  });
  assert.equal(created.status, 201);

  // The collab process runs too, reached through the public port's /collab upgrade.
  assert.equal((await childPids(first.pid!, 'collab/main.ts')).length, 1, 'the supervisor runs a collab child');
  await waitFor(collabSocketOpens, 30_000, 'a WebSocket on /collab');

  // A crashed API process is restarted by the supervisor.
  const [apiPid] = await childPids(first.pid!, 'api/server.ts');
  assert.ok(apiPid, 'the supervisor runs an API child');
  process.kill(apiPid, 'SIGKILL');
  await waitFor(async () => ((await childPids(first.pid!, 'api/server.ts')).some((pid) => pid !== apiPid) ? true : undefined), 20_000, 'the API restart');
  await waitFor(readyz, 30_000, 'the restarted API');

  const postmasterPid = path.join(dataDir, 'pg', 'postmaster.pid');
  assert.ok(existsSync(postmasterPid), 'embedded Postgres runs under DATA_DIR/pg');
  const children = await childPids(first.pid!);
  await pressCtrlC(first);
  for (const pid of children) await waitFor(async () => (isAlive(pid) ? undefined : true), 10_000, `child ${pid} to exit`);
  await waitFor(async () => (existsSync(postmasterPid) ? undefined : true), 10_000, 'Postgres to stop');

  const second = startSupervisor();
  try {
    await waitFor(readyz, 90_000, 'the second start');
    const state = (await (await fetch(`${baseUrl}/api/v1/setup`)).json()) as { steps: { admin: boolean } };
    assert.equal(state.steps.admin, true, 'the second start sees the data of the first');
  } finally {
    await pressCtrlC(second);
  }
  await waitFor(async () => (existsSync(postmasterPid) ? undefined : true), 10_000, 'Postgres to stop again');
});
