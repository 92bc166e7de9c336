/**
 * Builds the Astro site into site/dist when it is missing or older than its sources, so
 * `npm start` and `npm test` always serve current pages without paying for a build each
 * time. Prints one line; on failure also the build's output, and exits non-zero.
 *
 * Usage: node scripts/build-site.ts [--force]
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = path.join(ROOT, 'site', 'dist', 'server', 'entry.mjs');
const ASTRO_BIN = path.join(ROOT, 'node_modules', 'astro', 'bin', 'astro.mjs');

/** Everything the bundle is made from: pages, islands, the config, the API modules pages import (texts, the public layout's fonts), dependencies. */
const SOURCES = ['site/src', 'site/public', 'editor', 'api/i18n', 'api/publicPages/fontFaces.ts', 'api/ponds/fontCatalog.ts', 'astro.config.mjs', 'package-lock.json'];

export type SiteBuildOutcome =
  | { built: false; reason: 'up-to-date' }
  | { built: true; reason: string; seconds: number };

/** Newest file under `target` as [mtimeMs, path]; a missing target counts as nothing. */
function newestFile(target: string): [number, string] | null {
  let stats;
  try {
    stats = statSync(target);
  } catch {
    return null;
  }
  if (!stats.isDirectory()) return [stats.mtimeMs, target];
  let newest: [number, string] | null = null;
  for (const entry of readdirSync(target)) {
    if (entry === 'node_modules') continue;
    const candidate = newestFile(path.join(target, entry));
    if (candidate && (!newest || candidate[0] > newest[0])) newest = candidate;
  }
  return newest;
}

/** Why a build is needed, or null when site/dist is current. */
export function staleReason(): string | null {
  let builtAt: number;
  try {
    builtAt = statSync(ENTRY).mtimeMs;
  } catch {
    return 'no build yet';
  }
  for (const source of SOURCES) {
    const newest = newestFile(path.join(ROOT, source));
    if (newest && newest[0] > builtAt) return `${path.relative(ROOT, newest[1])} changed`;
  }
  return null;
}

function runAstroBuild(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ASTRO_BIN, 'build'], {
      cwd: ROOT,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** Bundles worth compressing: below this, the coding's framing eats most of the gain. */
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json)$/;
const MIN_COMPRESSED_BYTES = 1024;

/**
 * Writes `.br` and `.gz` beside each hashed bundle, so the server sends them compressed without
 * compressing per request (api/http/precompressedAssets.ts). Maximum levels: it runs once per build.
 */
export function precompressBundles(directory = path.join(ROOT, 'site', 'dist', 'client', '_astro')): number {
  let written = 0;
  for (const name of readdirSync(directory)) {
    if (!COMPRESSIBLE.test(name)) continue;
    const file = path.join(directory, name);
    const bytes = readFileSync(file);
    if (bytes.length < MIN_COMPRESSED_BYTES) continue;
    writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
    writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
    written += 1;
  }
  return written;
}

/** Builds when needed; throws with the build output when `astro build` fails. */
export async function ensureSiteBuilt(options: { force?: boolean } = {}): Promise<SiteBuildOutcome> {
  const reason = options.force ? 'forced' : staleReason();
  if (reason === null) return { built: false, reason: 'up-to-date' };
  const started = performance.now();
  const { code, output } = await runAstroBuild();
  if (code !== 0) throw new Error(`astro build failed (exit code ${code}, ${reason}):\n${output}`);
  precompressBundles();
  return { built: true, reason, seconds: (performance.now() - started) / 1000 };
}

if (import.meta.main) {
  try {
    const outcome = await ensureSiteBuilt({ force: process.argv.includes('--force') });
    console.log(
      outcome.built
        ? `build-site: built site/dist in ${outcome.seconds.toFixed(1)} s (${outcome.reason})`
        : 'build-site: site/dist is up to date, nothing to build',
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    console.error('build-site: the site build failed');
    process.exitCode = 1;
  }
}
