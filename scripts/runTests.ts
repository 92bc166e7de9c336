/**
 * `npm test`, `npm run test:unit`, `npm run test:e2e`: Node's test runner (scripts/testRunnerProcess.ts) over the chosen files,
 * with the run's global setup (one embedded Postgres, the migrated template) only when a file
 * needs a database, longest files first, the site built once before, and nothing left behind.
 *
 * Usage:
 *   node scripts/runTests.ts [--unit | --e2e] [--profile] [--test-name-pattern=… | --test-skip-pattern=… | --test-timeout=…] [file or glob …]
 * With no file named, every test file of the project (scripts/testFiles.ts). `--unit` keeps the
 * files that need no Postgres, server or browser; `--e2e` runs site/e2e; `--profile` prints at
 * the end where the time went, per kind of file. DT_TEST_CONCURRENCY overrides how many files
 * run at once.
 *
 * However the run ends — passed, failed, Ctrl-C, SIGTERM — its processes are stopped and its
 * temporary directory removed (scripts/testRunCleanup.ts); the last line gives the wall time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { ensureSiteBuilt } from './build-site.ts';
import { ALL_TEST_GLOBS, classifyTestFiles, DURATIONS_FILE, expandTestGlobs, KEEP_DURATIONS_VARIABLE, orderLongestFirst, readDurations, ROOT, TEST_KINDS, type TestFileTraits } from './testFiles.ts';
import { closeTestRunScope, openTestRunScope } from './testRunCleanup.ts';
import { describeProfile, machineCpuSeconds, readUsage } from './testRunProfile.ts';
import type { TestRunPlan } from './testRunnerProcess.ts';
import { USAGE_FILE_VARIABLE } from './testProcessUsage.ts';

/**
 * Files at once. The machine this suite is sized for has 2 cores, and the files keep them busy
 * (docs/testing.md, "Concurrency": measured at 2, 3 and 4).
 */
const DEFAULT_CONCURRENCY = 2;
/** Where Node keeps compiled modules (TypeScript stripped, V8 code cache) between the runs' many processes. */
const COMPILE_CACHE = path.join(path.dirname(DURATIONS_FILE), 'compile-cache');

interface Selection {
  mode: 'all' | 'unit' | 'e2e';
  globs: string[];
  runnerFlags: string[];
  /** Print where the time went (scripts/testRunProfile.ts). */
  profile: boolean;
}

function parseArguments(argv: readonly string[]): Selection {
  const selection: Selection = { mode: 'all', globs: [], runnerFlags: [], profile: false };
  for (const argument of argv) {
    if (argument === '--unit' || argument === '--e2e') selection.mode = argument === '--unit' ? 'unit' : 'e2e';
    else if (argument === '--profile') selection.profile = true;
    else if (argument.startsWith('--test-')) selection.runnerFlags.push(argument);
    else if (argument.startsWith('-')) throw new Error(`unknown option ${argument}: use --unit, --e2e, --profile, --test-name-pattern=…, --test-skip-pattern=…, --test-timeout=…, or files and globs`);
    else selection.globs.push(argument);
  }
  return selection;
}

/** The runner flags `npm test` passes on (those of `node --test` that make sense for a chosen set of files). */
function runnerOptions(flags: readonly string[]): Pick<TestRunPlan, 'testNamePatterns' | 'testSkipPatterns' | 'timeoutMs'> {
  const options: Pick<TestRunPlan, 'testNamePatterns' | 'testSkipPatterns' | 'timeoutMs'> = { testNamePatterns: [], testSkipPatterns: [] };
  for (const flag of flags) {
    const [name, value] = [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)];
    if (!flag.includes('=') || value === '') throw new Error(`${flag}: write it as --test-…=value`);
    if (name === '--test-name-pattern') options.testNamePatterns.push(value);
    else if (name === '--test-skip-pattern') options.testSkipPatterns.push(value);
    else if (name === '--test-timeout' && /^\d+$/.test(value)) options.timeoutMs = Number(value);
    else throw new Error(`${flag}: npm test passes on --test-name-pattern, --test-skip-pattern and --test-timeout`);
  }
  return options;
}

function selectFiles(selection: Selection): { files: string[]; traits: Map<string, TestFileTraits> } {
  const globs = selection.globs.length > 0 ? selection.globs : selection.mode === 'e2e' ? ['site/e2e/**/*.test.ts'] : ALL_TEST_GLOBS;
  const matched = expandTestGlobs(globs);
  const traits = classifyTestFiles(matched);
  const wanted = selection.mode === 'unit' ? 'unit' : selection.mode === 'e2e' ? 'chromium' : null;
  const files = matched.filter((file) => wanted === null || traits.get(file)!.kind === wanted);
  if (files.length === 0) throw new Error(`no ${wanted ? `${wanted} ` : ''}test file among ${globs.join(' ')}`);
  return { files: orderLongestFirst(files, traits, readDurations()), traits };
}

function describeSelection(files: readonly string[], traits: ReadonlyMap<string, TestFileTraits>, concurrency: number): string {
  const counts = TEST_KINDS.map((kind) => [kind, files.filter((file) => traits.get(file)!.kind === kind).length] as const).filter(([, count]) => count > 0);
  return `${files.length} test files (${counts.map(([kind, count]) => `${count} ${kind}`).join(', ')}), ${concurrency} at a time`;
}

function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${Math.round(seconds - minutes * 60)} s` : `${seconds.toFixed(1)} s`;
}

async function main(): Promise<number> {
  const started = performance.now();
  const selection = parseArguments(process.argv.slice(2));
  const { files, traits } = selectFiles(selection);
  const needsDatabase = files.some((file) => traits.get(file)!.kind !== 'unit');
  const concurrency = Number(process.env.DT_TEST_CONCURRENCY ?? DEFAULT_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`DT_TEST_CONCURRENCY must be a whole number ≥ 1, not ${process.env.DT_TEST_CONCURRENCY}`);

  // Once, before any file: a file that finds the site stale would build it itself, and two would race.
  if (files.some((file) => traits.get(file)!.needsSite || traits.get(file)!.kind === 'chromium')) {
    const outcome = await ensureSiteBuilt();
    console.error(outcome.built ? `test: built site/dist in ${outcome.seconds.toFixed(1)} s (${outcome.reason})` : 'test: site/dist is up to date');
  }
  console.error(`test: ${describeSelection(files, traits, concurrency)}`);

  mkdirSync(COMPILE_CACHE, { recursive: true });
  const scope = openTestRunScope({ NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env });
  const usageFile = path.join(scope.directory, 'usage.jsonl');
  scope.env[USAGE_FILE_VARIABLE] = usageFile;
  const machineBefore = machineCpuSeconds();
  const plan: TestRunPlan = { files, concurrency, globalSetup: needsDatabase, ...runnerOptions(selection.runnerFlags) };
  // A group of its own: a signal to the run reaches the runner and every file's process, and
  // a Ctrl-C in the terminal reaches this process first, which passes it on (below).
  // Durations taken with a name pattern or another runner flag are not the files' own.
  if (selection.runnerFlags.length === 0) scope.env[KEEP_DURATIONS_VARIABLE] = '1';
  const runner = spawn(process.execPath, ['scripts/testRunnerProcess.ts', JSON.stringify(plan)], { cwd: ROOT, env: scope.env, stdio: 'inherit', detached: true });

  let interruptedBy: NodeJS.Signals | null = null;
  let firstSignalAt = 0;
  const forward = (signal: NodeJS.Signals) => {
    // npm passes a terminal's Ctrl-C on to its script, which has it from the terminal too: the
    // same keystroke arrives twice. A signal a second later is a second request, and is obeyed.
    const again = interruptedBy !== null && performance.now() - firstSignalAt > 1_000;
    if (interruptedBy === null) firstSignalAt = performance.now();
    interruptedBy ??= signal;
    try {
      process.kill(-runner.pid!, again ? 'SIGKILL' : signal); // a second signal: no more waiting
    } catch {
      // the runner is gone already
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward);

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    runner.once('exit', (code, signal) => resolve({ code, signal }));
    runner.once('error', (error) => {
      console.error(`test: the test runner did not start: ${error.message}`);
      resolve({ code: 1, signal: null });
    });
  });
  const usage = readUsage(usageFile);
  if (selection.profile) {
    const [busy, idle] = machineCpuSeconds().map((value, index) => value - machineBefore[index]!) as [number, number];
    console.error(`\n${describeProfile(usage, traits, { busy, idle, wall: (performance.now() - started) / 1000 })}`);
  }
  const assertions = usage.reduce((total, entry) => total + entry.assertions, 0);
  console.error(`test: ${assertions} assertions made in ${usage.length} of ${files.length} files`);
  const { stopped } = await closeTestRunScope(scope);
  if (stopped.length > 0) console.error(`test: stopped ${stopped.length} process${stopped.length === 1 ? '' : 'es'} the run left running`);

  const signal = interruptedBy ?? exit.signal;
  const code = signal ? 128 + constants.signals[signal] : (exit.code ?? 1);
  const seconds = (performance.now() - started) / 1000;
  console.error(`test: ${signal ? `interrupted by ${signal}` : code === 0 ? 'passed' : 'failed'}, wall time ${formatDuration(seconds)}`);
  return code;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`test: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
