/**
 * What a test run leaves behind, and how `npm test` leaves nothing: every process of the run
 * carries the run's mark in its environment (children inherit it: the test files' processes,
 * the embedded Postgres, Chromium, `npm start` under test), and every temporary directory of
 * the run lies in the run's own directory (TMPDIR points there). Once the run ends, however it
 * ended, the marked processes are stopped and the directory is removed.
 *
 * Processes are found by their environment, not by process group: Postgres and Chromium run
 * in groups of their own (see scripts/embeddedPostgres.ts), so a signal to the run's group
 * would miss them.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The environment variable holding the run's mark. */
export const RUN_MARK_VARIABLE = 'DT_TEST_RUN_MARK';
/** The environment variable naming the run's directory (also its processes' TMPDIR). */
export const RUN_DIRECTORY_VARIABLE = 'DT_TEST_RUN_DIR';

export interface TestRunScope {
  mark: string;
  directory: string;
  /** The environment every process of the run starts with. */
  env: NodeJS.ProcessEnv;
}

export function openTestRunScope(env: NodeJS.ProcessEnv = process.env): TestRunScope {
  const directory = mkdtempSync(path.join(tmpdir(), 'dt-test-run-'));
  // As root the embedded Postgres runs as `postgres`, which must reach its data directory inside.
  chmodSync(directory, 0o711);
  const mark = randomBytes(8).toString('hex');
  return { mark, directory, env: { ...env, [RUN_MARK_VARIABLE]: mark, [RUN_DIRECTORY_VARIABLE]: directory, TMPDIR: directory } };
}

/** PIDs of the live processes whose environment carries `mark` (this process excluded). */
export function markedProcesses(mark: string): number[] {
  return processesWithEnvironment(`${RUN_MARK_VARIABLE}=${mark}`);
}

/** PIDs of the running processes (zombies are not) whose environment holds `needle`, as NAME=value. */
export function processesWithEnvironment(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environment: string;
    try {
      environment = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (environment.split('\0').includes(needle) && isRunning(entry)) found.push(Number(entry));
  }
  return found;
}

/** Whether `pid` runs (a zombie has ended: only its exit status waits for a parent to collect it). */
export function isRunning(pid: number | string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/**
 * Stops every process of the run: SIGTERM first (Postgres then shuts down cleanly, Chromium
 * closes), SIGKILL for what is still there after `graceMs`. Returns the PIDs that had to be
 * stopped, so the caller can say so.
 */
export async function stopMarkedProcesses(mark: string, graceMs = 3_000): Promise<number[]> {
  const left = markedProcesses(mark);
  if (left.length === 0) return [];
  for (const pid of left) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (markedProcesses(mark).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const pid of markedProcesses(mark)) signal(pid, 'SIGKILL');
  while (markedProcesses(mark).length > 0 && Date.now() < deadline + 2_000) await new Promise((resolve) => setTimeout(resolve, 20));
  return left;
}

/** Ends the run's scope: its processes stopped, its directory removed. */
export async function closeTestRunScope(scope: TestRunScope): Promise<{ stopped: number[] }> {
  const stopped = await stopMarkedProcesses(scope.mark);
  rmSync(scope.directory, { recursive: true, force: true, maxRetries: 3 });
  return { stopped };
}
