/**
 * Loaded into every test file's process by `npm test` (scripts/runTests.ts names the file in
 * `DT_TEST_USAGE_FILE`): at exit, one JSON line with the file, its process's wall time, its CPU
 * time (its own, and that of the children it waited for: Chromium, spawned services) and the
 * number of assertions it made. The runner adds them up (the assertion total at the end of
 * every run) and `--profile` breaks them down by kind (scripts/testRunProfile.ts).
 *
 * Assertions are counted at node:assert's door: each call of one of its functions (`equal`,
 * `deepEqual`, `rejects`, `ok` …) made by the file, strict or legacy, counts once; calls they
 * make among themselves do not pass through the exported functions. (The suite calls them as
 * `assert.x(…)` only; a bare `assert(…)` would not be counted.)
 */
import assert from 'node:assert';
import { appendFileSync, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

export const USAGE_FILE_VARIABLE = 'DT_TEST_USAGE_FILE';

const target = process.env[USAGE_FILE_VARIABLE];
const startedAt = Date.now() - process.uptime() * 1000;

/** utime, stime, cutime, cstime of this process in clock ticks (100 per second on Linux). */
function ticks(): [number, number, number, number] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 15).map(Number) as [number, number, number, number];
}

let assertions = 0;

/** `assert` (a function with the checks as properties) with every check counting its calls. */
function countCalls(module: typeof assert): void {
  for (const name of Object.keys(module) as (keyof typeof assert)[]) {
    const check = module[name];
    if (typeof check !== 'function' || name === 'AssertionError' || name === 'CallTracker' || name === 'strict') continue;
    Object.defineProperty(module, name, {
      value: Object.defineProperty(function (this: unknown, ...args: unknown[]) {
        assertions += 1;
        return (check as (...values: unknown[]) => unknown).apply(this, args);
      }, 'name', { value: check.name }),
      writable: true,
      configurable: true,
      enumerable: true,
    });
  }
}

if (target && process.env.NODE_TEST_CONTEXT) {
  countCalls(assert);
  countCalls(assert.strict);
  // `import { equal } from 'node:assert/strict'` reads the patched functions, too.
  syncBuiltinESMExports();
  process.on('exit', (code) => {
    const [utime, stime, cutime, cstime] = ticks();
    const file = process.argv.find((arg) => arg.endsWith('.test.ts')) ?? process.argv[1];
    const line = { file, code, startedAt, wallMs: Date.now() - startedAt, cpuMs: (utime + stime) * 10, childCpuMs: (cutime + cstime) * 10, assertions };
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
