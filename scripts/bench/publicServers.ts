/**
 * The processes of the public bench: this one (the load generator) on one core and each
 * server (publicBenchServer.ts) on another, where `taskset` exists and the process may use
 * two cores — so the client and the server never take CPU from each other, and what is
 * measured is the server. Servers are under IPC control.
 */
import { spawnSync } from 'node:child_process';
import { serviceNodeFlags } from '../serviceNodeFlags.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PublicBenchServerKind, RawResponse, ServerUsage } from './publicBenchServer.ts';
import type { GenerationTimings } from './publicGenerationTimings.ts';
import { allowedCpus, startIpcServer } from './ipcServer.ts';

const SERVER_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'publicBenchServer.ts');

export interface Pinning {
  used: boolean;
  /** Why not, or which cores. */
  description: string;
  benchCore: number | null;
  serverCore: number | null;
}

/** "0-3,6" → [0, 1, 2, 3, 6] */
function parseCpuList(list: string): number[] {
  return list
    .trim()
    .split(',')
    .filter((part) => part !== '')
    .flatMap((part) => {
      const [from, to] = part.split('-').map(Number) as [number, number | undefined];
      return to === undefined ? [from] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
}

/**
 * Pins this process (every thread it has; threads started later inherit it, and so do child
 * processes such as the embedded Postgres) to the first allowed core, and leaves the second to
 * the servers. Call before starting anything else.
 */
export function pinBenchProcess(): Pinning {
  const none = (description: string): Pinning => ({ used: false, description, benchCore: null, serverCore: null });
  if (process.env.BENCH_NO_PIN === '1') return none('off (BENCH_NO_PIN=1)');
  const probe = spawnSync('taskset', ['-V'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return none('taskset not found: not pinned');
  let cores: number[];
  try {
    cores = parseCpuList(allowedCpus(process.pid));
  } catch {
    return none('no /proc/<pid>/status: not pinned');
  }
  if (cores.length < 2) return none(`only ${cores.length} core allowed: not pinned`);
  const [benchCore, serverCore] = cores as [number, number];
  const pinned = spawnSync('taskset', ['-a', '-cp', String(benchCore), String(process.pid)], { encoding: 'utf8' });
  if (pinned.status !== 0) return none(`taskset failed (${pinned.stderr.trim()}): not pinned`);
  return { used: true, description: `load generator and Postgres on core ${benchCore} (now ${allowedCpus(process.pid)}), servers on core ${serverCore}`, benchCore, serverCore };
}

export interface BenchServer {
  kind: PublicBenchServerKind;
  port: number;
  pid: number;
  /** The cores the server may run on, as the kernel says. */
  cpus: string;
  origin: string;
  /** `collect`: after a full garbage collection (the server runs with `--expose-gc`). */
  usage(collect?: boolean): Promise<ServerUsage>;
  respond(response: RawResponse): Promise<void>;
  grant(pondId: string, actorId: string): Promise<string>;
  revoke(pondId: string, grantId: string, actorId: string): Promise<void>;
  measureGeneration(input: { pageId: string; markdown: string; fallbackBaseUrl: string; runs: number; warmup: number }): Promise<GenerationTimings>;
  close(timeoutMs?: number): Promise<void>;
}

export async function startBenchServer(kind: PublicBenchServerKind, pinning: Pinning, env: Record<string, string>): Promise<BenchServer> {
  // The API process runs with the flags `npm start` gives every service.
  const nodeArgs = ['--expose-gc', ...(kind === 'api' ? serviceNodeFlags() : []), SERVER_ENTRY];
  const server = await startIpcServer(`public-${kind}`, pinning, nodeArgs, { ...env, BENCH_SERVER: kind });
  const { call } = server;
  return {
    kind,
    port: server.port,
    pid: server.pid,
    cpus: server.cpus,
    origin: server.origin,
    usage: (collect = false) => call<ServerUsage>({ command: 'usage', collect }),
    respond: async (response) => void (await call({ command: 'respond', response })),
    grant: async (pondId, actorId) => (await call<{ grantId: string }>({ command: 'grant', pondId, actorId })).grantId,
    revoke: async (pondId, grantId, actorId) => void (await call({ command: 'revoke', pondId, grantId, actorId })),
    measureGeneration: (input) => call<GenerationTimings>({ command: 'measureGeneration', ...input }),
    close: server.close,
  };
}
