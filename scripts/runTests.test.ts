/**
 * `npm test` leaves nothing behind, however it ends: passed, failed, interrupted with SIGINT
 * (Ctrl-C) or SIGTERM. Each way runs the real runner (scripts/runTests.ts) with its own embedded
 * Postgres over a fixture file that leaves a database, a temporary directory and a stray
 * process in a group of its own; afterwards no process of that run is left and its temporary
 * directory is gone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { waitFor } from '../api/testing/polling.ts';
import { ROOT } from './testFiles.ts';
import { isRunning, processesWithEnvironment } from './testRunCleanup.ts';

const FIXTURE = 'scripts/testRunFixtures/leavesProcesses.fixture.ts';
const scratch = mkdtempSync(path.join(tmpdir(), 'dt-run-tests-'));
// As root the runs' Postgres is the `postgres` user, which must reach its data below.
chmodSync(scratch, 0o711);
after(() => rmSync(scratch, { recursive: true, force: true }));

interface Ending {
  name: string;
  mode: 'pass' | 'fail' | 'hang';
  signal?: NodeJS.Signals;
  exitCode: number;
  says: RegExp;
}

const ENDINGS: Ending[] = [
  { name: 'passes', mode: 'pass', exitCode: 0, says: /test: passed, wall time/ },
  { name: 'fails', mode: 'fail', exitCode: 1, says: /test: failed, wall time/ },
  { name: 'is interrupted with SIGINT (Ctrl-C)', mode: 'hang', signal: 'SIGINT', exitCode: 130, says: /test: interrupted by SIGINT, wall time/ },
  { name: 'is interrupted with SIGTERM', mode: 'hang', signal: 'SIGTERM', exitCode: 143, says: /test: interrupted by SIGTERM, wall time/ },
];

// Four runs of their own, side by side: each mostly waits for its Postgres and its runner.
describe('npm test, however it ends', { concurrency: ENDINGS.length }, () => {
  for (const ending of ENDINGS) {
    test(`a run that ${ending.name} leaves no process and no temporary directory behind`, { timeout: 120_000 }, async () => {
      const home = mkdtempSync(path.join(scratch, 'run-'));
      chmodSync(home, 0o711);
      const temp = path.join(home, 'tmp');
      const report = path.join(home, 'report.json');
      mkdirSync(temp, { mode: 0o711 });
      // A run of its own: not this run's Postgres, not this file's place in it.
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DT_TEST_') && name !== 'NODE_TEST_CONTEXT'));
      const marker = `DT_FIXTURE_REPORT=${report}`;
      const run = spawn(process.execPath, ['scripts/runTests.ts', FIXTURE], {
        cwd: ROOT,
        env: { ...env, TMPDIR: temp, DT_FIXTURE_MODE: ending.mode, DT_FIXTURE_REPORT: report },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      run.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      run.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));

      await Promise.race([
        waitFor(() => existsSync(report), 90_000, "the fixture's report", { intervalMs: 100 }),
        exited.then((code) => assert.ok(existsSync(report), `the run ended (${code}) before the fixture reported:\n${output}`)),
      ]);
      const left = JSON.parse(readFileSync(report, 'utf8')) as { stray: number; scratch: string; postgresDataDir: string };
      assert.ok(left.postgresDataDir.startsWith(temp), `the run's Postgres keeps its data in the run's temporary directory: ${left.postgresDataDir}`);
      if (ending.signal) {
        assert.ok(processesWithEnvironment(marker).includes(left.stray), "the stray process runs, carrying the run's environment");
        run.kill(ending.signal);
      }

      assert.equal(await exited, ending.exitCode, output);
      assert.match(output, ending.says);
      assert.deepEqual(processesWithEnvironment(marker), [], `processes of the run still alive after it ended:\n${output}`);
      assert.equal(isRunning(left.stray), false, 'the stray process is gone');
      assert.equal(existsSync(left.postgresDataDir), false, 'the Postgres data directory is gone');
      assert.equal(existsSync(left.scratch), false, 'the test file\'s temporary directory is gone');
      assert.deepEqual(readdirSync(temp), [], 'nothing of the run is left in the temporary folder');
    });
  }
});
