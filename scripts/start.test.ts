/**
 * The supervisor as people run it: `npm start` on an empty DATA_DIR, the line that says where
 * to go, Ctrl-C, and again; stopped the way docker and systemd stop it (SIGTERM to the PID
 * they started), leaving no process behind and no error in the output.
 */
import { freePort } from '../api/testing/freePort.ts';
import { waitFor } from '../api/testing/polling.ts';
import { TestClient } from '../api/testing/testClient.ts';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-start-'));
const postmasterPidFile = path.join(dataDir, 'pg', 'postmaster.pid');
const launched: Launched[] = [];
after(() => {
  // A failed assertion must not leave a running instance behind (Postgres has a group of its own).
  for (const instance of launched) for (const pid of instance.treeAtStart) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  for (const instance of launched) if (isRunning(instance.process.pid!)) process.kill(-instance.process.pid!, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const ports = { http: await freePort(), pg: await freePort(), collab: await freePort() };
const baseUrl = `http://127.0.0.1:${ports.http}`;
/** What BASE_URL defaults to, and so what the ready line names. */
const publicUrl = `http://localhost:${ports.http}`;
const STOP_DEADLINE_MS = 10_000;

interface Launched {
  /** `npm start`, or the supervisor itself when launched directly (as the Docker image does). */
  process: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Filled in by `waitUntilReady`: every process of the tree (npm, sh, supervisor, services, Postgres). */
  treeAtStart: number[];
}

function launch(how: 'npm start' | 'supervisor' | 'supervisor in a terminal', logLevel = 'warn'): Launched {
  // Neither the test database nor the npm context of the test run leak into the instance.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL' && !name.startsWith('npm_')));
  Object.assign(env, { PORT: String(ports.http), HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(ports.pg), COLLAB_PORT: String(ports.collab), DATA_DIR: dataDir, LOG_LEVEL: logLevel });
  delete env.DT_LOG_FORMAT;
  const supervisor = [process.execPath, path.join(root, 'scripts/start.ts')];
  // util-linux `script` runs it with a pseudo-terminal as stdout, as in a person's terminal.
  const [command, args] =
    how === 'npm start' ? ['npm', ['start']] : how === 'supervisor' ? [supervisor[0], supervisor.slice(1)] : ['script', ['-qefc', supervisor.map((part) => JSON.stringify(part)).join(' '), '/dev/null']];
  const child = spawn(command as string, args as string[], {
    cwd: root,
    env,
    detached: true, // its own process group, so a group signal behaves like Ctrl-C in a terminal
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const instance: Launched = { process: child, output: () => output, exited, treeAtStart: [] };
  launched.push(instance);
  return instance;
}

/** Probes here spawn `ps` or connect to a server that may still be starting: not too often, and a refusal means "not yet". */
const POLL = { intervalMs: 100, retryOnError: true } as const;

/** Running and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    return statOf(pid).state !== 'Z';
  } catch {
    return false;
  }
}

function statOf(pid: number): { state: string; parent: number } {
  // `pid (command) state ppid …`; the command may contain spaces and parentheses.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, parent: Number(parent) };
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** `rootPid` and all its descendants, from /proc (Postgres' backends included). */
function processTree(rootPid: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { parent } = statOf(Number(entry));
      childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(entry)]);
    } catch {
      // ended while we looked
    }
  }
  const tree = [rootPid];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(childrenOf.get(tree[index]!) ?? []));
  return tree;
}

function treeMember(instance: Launched, match: string): number | undefined {
  return instance.treeAtStart.find((pid) => commandLineOf(pid).includes(match));
}

/** Resolves with the start-up line once it is printed; records the process tree. */
async function waitUntilReady(instance: Launched): Promise<string> {
  const line = await waitFor(() => instance.output().match(/^Dorfteich is ready at .*$/m)?.[0], 90_000, 'the ready line', POLL);
  instance.treeAtStart = processTree(instance.process.pid!);
  for (const part of ['scripts/start.ts', 'api/server.ts', 'collab/main.ts', 'jobs/worker.ts', 'bin/postgres']) {
    assert.ok(treeMember(instance, part), `${part} runs in the tree: ${instance.treeAtStart.map(commandLineOf).join(' | ')}`);
  }
  return line;
}

/** Lines that report a failure: error/fatal log entries, npm errors, stack frames. */
function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => /"level":(50|60)|^npm error|\bERROR\b|^\s+at .+:\d+:\d+\)?$/.test(line));
}

/** Log entries at warning level or above. */
function warningLines(output: string): string[] {
  return output.split('\n').filter((line) => /"level":(40|50|60)/.test(line));
}

/** Sends `signal` to `pid` and asserts the whole tree is gone within 10 s, quietly. */
async function stopAndExpectNothingLeft(instance: Launched, pid: number, signal: NodeJS.Signals): Promise<void> {
  const before = instance.output().length;
  const sentAt = Date.now();
  process.kill(pid, signal);
  const left = await waitFor(
    () => (instance.treeAtStart.some(isRunning) ? undefined : []),
    STOP_DEADLINE_MS,
    `every process to stop; still running: ${instance.treeAtStart.filter(isRunning).map(commandLineOf).join(' | ')}`,
    POLL,
  ).catch((error: Error) => error.message);
  assert.deepEqual(left, [], String(left));
  const { code, signal: exitSignal } = await instance.exited;
  assert.ok(Date.now() - sentAt < STOP_DEADLINE_MS, 'stopped within 10 s');
  assert.deepEqual({ code, signal: exitSignal }, { code: 0, signal: null }, 'a requested stop is a clean exit');
  const sinceSignal = instance.output().slice(before);
  assert.deepEqual(errorLines(sinceSignal), []);
  assert.deepEqual(warningLines(sinceSignal), [], 'stopping logs no lost connections');
  assert.equal(existsSync(postmasterPidFile), false, 'Postgres shut down and removed its lock file');
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

async function completeSetupWizard(): Promise<void> {
  const admin = new TestClient(baseUrl);
  const steps: [string, unknown][] = [
    ['/setup/admin', { username: 'keeper', email: 'keeper@example.org', password: 'a long enough password', displayName: 'Keeper' }],
    ['/setup/instance', { name: 'Dorfteich', baseUrl, defaultLocale: 'en' }],
    ['/setup/registration', { mode: 'closed' }],
    ['/setup/complete', undefined],
  ];
  for (const [step, body] of steps) assert.ok([200, 201].includes((await admin.post(step, body)).status), step);
}

test('npm start serves a fresh instance, says where to open it, restarts a dead API, stops on Ctrl-C and reuses its data', { timeout: 180_000 }, async () => {
  const first = launch('npm start');
  assert.equal(await waitUntilReady(first), `Dorfteich is ready at ${publicUrl} — open it to finish the setup wizard`);
  assert.equal(first.output().match(/Dorfteich is ready/g)?.length, 1, 'one ready line');
  assert.equal(await readyz(), 200, 'the line comes once the API is ready');

  const pending = await fetch(`${baseUrl}/api/v1/users/me`);
  assert.equal(pending.status, 503);
  assert.equal(((await pending.json()) as { error: { code: string } }).error.code, 'setup_required');
  const wizard = await fetch(`${baseUrl}/`, { redirect: 'manual' });
  assert.equal(wizard.status, 302);
  assert.equal(wizard.headers.get('location'), '/setup');
  await completeSetupWizard();

  // Every service runs with the V8 flags the memory target was measured with (serviceNodeFlags.ts).
  for (const service of ['api/server.ts', 'collab/main.ts', 'jobs/worker.ts']) {
    assert.match(commandLineOf(treeMember(first, service)!), /--max-semi-space-size=16 /, service);
  }

  // The collab process runs too, reached through the public port's /collab upgrade.
  await waitFor(collabSocketOpens, 30_000, 'a WebSocket on /collab', POLL);

  // A crashed API process is restarted by the supervisor, and the ready line is not repeated.
  const apiPid = treeMember(first, 'api/server.ts')!;
  const supervisorPid = treeMember(first, 'scripts/start.ts')!;
  process.kill(apiPid, 'SIGKILL');
  const restartedApi = await waitFor(
    () => processTree(supervisorPid).find((pid) => pid !== apiPid && commandLineOf(pid).includes('api/server.ts')),
    20_000,
    'the API restart',
    POLL,
  );
  await waitFor(readyz, 30_000, 'the restarted API', POLL);
  assert.equal(first.output().match(/Dorfteich is ready/g)?.length, 1, 'still one ready line');

  // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
  first.treeAtStart = processTree(first.process.pid!);
  assert.ok(first.treeAtStart.includes(restartedApi));
  await stopAndExpectNothingLeft(first, -first.process.pid!, 'SIGINT');

  const second = launch('npm start');
  assert.equal(await waitUntilReady(second), `Dorfteich is ready at ${publicUrl}`, 'no wizard once setup is complete');
  const state = (await (await fetch(`${baseUrl}/api/v1/setup`)).json()) as { completed: boolean };
  assert.equal(state.completed, true, 'the second start sees the data of the first');
  await stopAndExpectNothingLeft(second, -second.process.pid!, 'SIGINT');
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to the PID of npm start (what docker and systemd send) stops every process within 10 s, without errors`, { timeout: 120_000 }, async () => {
    const instance = launch('npm start');
    await waitUntilReady(instance);
    await stopAndExpectNothingLeft(instance, instance.process.pid!, signal);
    assert.deepEqual(errorLines(instance.output()), []);
  });
}

test('SIGTERM to the supervisor started directly (as in the Docker image) stops every process within 10 s, without errors', { timeout: 120_000 }, async () => {
  const instance = launch('supervisor');
  await waitUntilReady(instance);
  await stopAndExpectNothingLeft(instance, instance.process.pid!, 'SIGTERM');
  assert.deepEqual(errorLines(instance.output()), []);
});

test('SIGTERM to the supervisor under npm start stops every process and npm with it', { timeout: 120_000 }, async () => {
  const instance = launch('npm start');
  await waitUntilReady(instance);
  await stopAndExpectNothingLeft(instance, treeMember(instance, 'scripts/start.ts')!, 'SIGTERM');
});

test('SIGKILL to npm start: the supervisor notices and stops everything', { timeout: 120_000 }, async () => {
  const instance = launch('npm start');
  await waitUntilReady(instance);
  const supervisorPid = treeMember(instance, 'scripts/start.ts')!;
  process.kill(instance.process.pid!, 'SIGKILL');
  const rest = instance.treeAtStart.filter((pid) => pid !== instance.process.pid);
  await waitFor(() => (rest.some(isRunning) ? undefined : true), STOP_DEADLINE_MS, 'the supervisor and its tree to stop', POLL);
  assert.equal(isRunning(supervisorPid), false);
  assert.deepEqual(errorLines(instance.output()), []);
});

test('SIGKILL to the supervisor: its services stop on their own; the next start stops the Postgres left behind', { timeout: 180_000 }, async () => {
  const instance = launch('supervisor');
  await waitUntilReady(instance);
  const services = ['api/server.ts', 'collab/main.ts', 'jobs/worker.ts'].map((entry) => treeMember(instance, entry)!);
  const postmaster = Number(readFileSync(postmasterPidFile, 'utf8').split('\n')[0]);
  process.kill(instance.process.pid!, 'SIGKILL');
  await waitFor(() => (services.some(isRunning) ? undefined : true), STOP_DEADLINE_MS, 'the orphaned services to stop', POLL);
  assert.ok(isRunning(postmaster), 'Postgres cannot follow its parent');

  const next = launch('supervisor');
  await waitUntilReady(next);
  assert.equal(isRunning(postmaster), false, 'the orphaned Postgres was stopped');
  await stopAndExpectNothingLeft(next, next.process.pid!, 'SIGTERM');
});

test('in a terminal every process logs human-readable lines, and at LOG_LEVEL=info no line per request', { timeout: 120_000 }, async () => {
  const instance = launch('supervisor in a terminal', 'info');
  await waitUntilReady(instance);
  const lines = instance.output().replaceAll('\r', '').replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  for (const [service, message] of [['supervisor', 'Dorfteich is starting'], ['api', 'api listening'], ['collab', 'collab listening'], ['worker', 'worker running']]) {
    assert.ok(lines.some((line) => new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\] INFO \\(${service}\\): ${message}`).test(line)), `${service}: ${message}\n${lines.join('\n')}`);
  }
  assert.deepEqual(lines.filter((line) => line.startsWith('{')), [], 'no JSON lines');
  // The ready line came after the API answered /readyz and /setup: neither is a line at info.
  assert.deepEqual(lines.filter((line) => /\b(GET|POST) \/\S* \d{3}\b/.test(line)), [], 'no request lines');
  await stopAndExpectNothingLeft(instance, treeMember(instance, 'scripts/start.ts')!, 'SIGTERM');
});

test('the Docker image runs the supervisor itself in exec form, so `docker stop` signals it and not npm or a shell', () => {
  const instructions = readFileSync(path.join(root, 'Dockerfile'), 'utf8').split('\n');
  const cmd = instructions.filter((line) => line.startsWith('CMD ')).at(-1) ?? '';
  const command = JSON.parse(cmd.slice('CMD '.length)) as string[];
  assert.deepEqual(command, ['node_modules/.bin/node', 'scripts/start.ts'], 'the project\'s Node 24 running the supervisor');
  assert.ok(!instructions.some((line) => line.startsWith('ENTRYPOINT')), 'nothing wraps the command');
  const stopSignal = instructions.find((line) => line.startsWith('STOPSIGNAL'));
  assert.ok(stopSignal === undefined || stopSignal === 'STOPSIGNAL SIGTERM');
});
