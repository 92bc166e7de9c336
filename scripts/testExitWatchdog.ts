/**
 * Loaded into every test file's process by `npm test` (`node --import … --test`): once the
 * file's tests and hooks are done, a process that something still keeps alive (a client a
 * failed test left open, a forgotten timer) is ended 30 s later with the exit code the test
 * runner set, so it cannot hold one of the run's two slots.
 *
 * Why not `--test-force-exit`: it calls `process.exit()` right when the last test ends, before
 * the file's last serialized results have reached the runner, which then silently reports
 * fewer tests than ran (Node.js test runner race; seen here once in ten fresh-clone runs, and
 * 6 of 561 tests lost in a small reproduction). The timer here is unref'd: a process with
 * nothing left to do exits on its own, long before it fires, and one that hangs has had
 * 30 s to hand over every result and finish its cleanup hooks.
 *
 * Only in the files' processes (`NODE_TEST_CONTEXT` is set there), not in the runner itself.
 */
import { after } from 'node:test';

const GRACE_MS = 30_000;

if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    setTimeout(() => process.exit(), GRACE_MS).unref();
  });
}
