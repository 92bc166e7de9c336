/**
 * The UI bench's baseline: a blank Astro project, built in a temporary directory in the same
 * run with this repository's own `astro`, `@astrojs/node` and `@astrojs/svelte` (its
 * `node_modules` is a link to ours, so the versions are the app's), configured like
 * astro.config.mjs (server output, node adapter without streaming, Svelte, stylesheets as
 * files, the same CSP), and served by the node adapter's own standalone server in a process of
 * its own. Two pages:
 *
 * - `/blank`: an empty document — what "a blank Astro page" is; it ships no JavaScript.
 * - `/island`: the same with one Svelte island of a single toggle button (`client:load`) — the
 *   least any page with an interactive Svelte island costs: Astro's island bootstrap and the
 *   Svelte runtime. The JavaScript figures are compared with this one (a ratio to 0 bytes
 *   says nothing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../api/testing/freePort.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const BASELINE_TOGGLE_SELECTOR = 'button[data-bench-toggle]';

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'blank-astro-baseline', private: true, type: 'module' }),
  'astro.config.mjs': `import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import svelte from '@astrojs/svelte';

export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'standalone', experimentalDisableStreaming: true }),
  integrations: [svelte()],
  session: false,
  build: { inlineStylesheets: 'never' },
  security: {
    csp: {
      algorithm: 'SHA-256',
      directives: ["default-src 'self'", "img-src 'self' data:", "font-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"],
    },
  },
  markdown: { syntaxHighlight: false },
  devToolbar: { enabled: false },
});
`,
  'src/pages/blank.astro': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><title>Blank</title></head>
  <body></body>
</html>
`,
  'src/Toggle.svelte': `<script lang="ts">
  let open = $state(true);
</script>

<button type="button" data-bench-toggle aria-expanded={open} onclick={() => (open = !open)}>Toggle</button>
`,
  'src/pages/island.astro': `---
import Toggle from '../Toggle.svelte';
---
<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><title>Blank with one island</title></head>
  <body><Toggle client:load /></body>
</html>
`,
};

export interface BaselineSite {
  origin: string;
  buildSeconds: number;
  close: () => Promise<void>;
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(args[0] ?? command)} exited with ${code}:\n${Buffer.concat(output).toString('utf8')}`))));
  });
}

async function waitUntilServing(origin: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the baseline server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${origin}/blank`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the baseline server did not answer within 20 s');
}

/** Builds the blank project and starts its server; `close` stops it and removes the directory. */
export async function startBaselineSite(): Promise<BaselineSite> {
  const directory = mkdtempSync(path.join(tmpdir(), 'dt-bench-ui-blank-'));
  let child: ChildProcess | null = null;
  try {
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(directory, file)), { recursive: true });
      writeFileSync(path.join(directory, file), text);
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(directory, 'node_modules'), 'dir');
    const started = performance.now();
    await run(process.execPath, [path.join(directory, 'node_modules', 'astro', 'bin', 'astro.mjs'), 'build'], directory);
    const buildSeconds = (performance.now() - started) / 1000;
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [path.join(directory, 'dist', 'server', 'entry.mjs')], { cwd: directory, env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitUntilServing(origin, child);
    const server = child;
    return {
      origin,
      buildSeconds,
      close: async () => {
        if (server.exitCode === null && server.signalCode === null) {
          const exited = new Promise((resolve) => server.once('exit', resolve));
          server.kill('SIGTERM');
          await exited;
        }
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}
