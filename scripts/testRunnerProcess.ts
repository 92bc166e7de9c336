/**
 * The runner process of `npm test` (started by scripts/runTests.ts, in a process group of its
 * own): Node's test runner through its `run()` API, because the command line sorts the files
 * it is given by name, and the longest-first order (scripts/testFiles.ts) is the point. Each
 * file runs in a process of its own with the watchdog and the usage counter preloaded; the
 * spec reporter writes to stdout, the slowest-files reporter to stderr; the exit code is 1
 * when any test failed, as with `node --test`.
 *
 * Usage (by scripts/runTests.ts): node scripts/testRunnerProcess.ts '<plan as JSON>'
 */
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import slowestTestFiles from './slowestTestFiles.ts';

export interface TestRunPlan {
  files: string[];
  concurrency: number;
  /** Start the embedded Postgres and the template database first (scripts/test-global-setup.ts). */
  globalSetup: boolean;
  testNamePatterns: string[];
  testSkipPatterns: string[];
  timeoutMs?: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as TestRunPlan;

const stream = run({
  files: plan.files,
  concurrency: plan.concurrency,
  isolation: 'process',
  execArgv: ['--import', './scripts/testExitWatchdog.ts', '--import', './scripts/testProcessUsage.ts'],
  ...(plan.globalSetup ? { globalSetupPath: './scripts/test-global-setup.ts' } : {}),
  ...(plan.testNamePatterns.length > 0 ? { testNamePatterns: plan.testNamePatterns } : {}),
  ...(plan.testSkipPatterns.length > 0 ? { testSkipPatterns: plan.testSkipPatterns } : {}),
  ...(plan.timeoutMs === undefined ? {} : { timeout: plan.timeoutMs }),
});
stream.on('test:fail', () => {
  process.exitCode = 1;
});
const forSlowest = new PassThrough({ objectMode: true });
stream.pipe(forSlowest);
stream.compose(spec).pipe(process.stdout);
forSlowest.compose(slowestTestFiles).pipe(process.stderr);
