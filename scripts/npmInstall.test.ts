/**
 * `npm install` on a machine whose own Node is older than the project's: the project brings
 * its Node 24 as the `node` package, so its own package.json must not make npm warn
 * (EBADENGINE). Warnings about dependencies are theirs, not ours.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };

/** The first `name` on PATH outside this project (`npm test` puts node_modules/.bin first). */
function machineExecutable(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    if (directory === '' || path.resolve(directory).startsWith(path.join(root, 'node_modules'))) continue;
    try {
      accessSync(path.join(directory, name), constants.X_OK);
      return path.join(directory, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

const machineNode = machineExecutable('node');
const machineNpm = machineExecutable('npm');
const machineNodeMajor = machineNode ? Number(spawnSync(machineNode, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim()) : NaN;
// npm checks `engines` against the Node it runs on, so the full check needs an older Node at hand.
const olderNode = machineNode && machineNpm && machineNodeMajor < 24 ? { node: machineNode, npm: machineNpm } : null;
/** The oldest Node npm 11 runs on: what a fresh machine may bring. */
const OLDEST_NPM_NODE = '20.17.0';

test('npm install under the machine\'s older Node prints no engine warning for this project', () => {
  if (!olderNode) {
    // No older Node here to run npm with: the manifest itself must not ask for more than npm's oldest Node.
    const engines = (manifest as { engines?: { node?: string } }).engines;
    assert.equal(engines?.node, undefined, `package.json asks for Node ${engines?.node}; a machine with Node ${OLDEST_NPM_NODE} would warn`);
    return;
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'dt-npm-install-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(root, file), path.join(scratch, file));
    // The outer `npm test` must not configure this npm.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
    const npmCli = realpathSync(olderNode.npm);
    const result = spawnSync(olderNode.node, [npmCli, 'install', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: scratch,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    assert.equal(result.status, 0, output.slice(-2_000));
    assert.match(output, /added \d+ packages/, 'npm resolved the lockfile');
    const ownWarning = new RegExp(`EBADENGINE\\s+package: '${manifest.name}@${manifest.version}'`);
    assert.doesNotMatch(output, ownWarning, output.split('\n').filter((line) => line.includes('EBADENGINE')).slice(0, 8).join('\n'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('the project still brings Node 24 itself', () => {
  assert.match(manifest.dependencies.node ?? '', /^\^?24\./);
});
