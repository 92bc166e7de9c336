/**
 * The files bench's two servers and what the bench reads of them from outside. Both run in
 * processes of their own on the core pinBenchProcess (publicServers.ts) left for servers, so
 * their memory is their own and not the client's buffers: the API process as bench:api starts
 * it (apiBenchProcess.ts, the flags `npm start` uses), and the raw baseline
 * (filesRawServer.ts, the same flags).
 *
 * Memory is read from `/proc/<pid>/status`: `VmRSS` now, and `VmHWM`, the peak, reset by
 * writing 5 to `/proc/<pid>/clear_refs` (ours to write: the child is our own). The peak is
 * exact, where sampling would miss a short spike; where the reset is refused, VmRSS is
 * sampled every 5 ms instead, and the note says so.
 *
 * CPU time per thread kind (`/proc/<pid>/task/<tid>/stat`) says where a server's time goes without
 * a profiler: the main thread (JavaScript, syscalls made from it), V8's workers (mostly garbage
 * collection) and libuv's pool (file reads and writes). It found the upload's largest extra
 * cost: full collections of the API's large heap, set off by the 64 KB socket-read buffers.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeFlags } from '../serviceNodeFlags.ts';
import type { RawServerUsage } from './filesRawServer.ts';
import { startIpcServer } from './ipcServer.ts';
import type { Pinning } from './publicServers.ts';

const RAW_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'filesRawServer.ts');
const SAMPLE_MS = 5;

export interface RawFilesServer {
  origin: string;
  pid: number;
  cpus: string;
  usage(): Promise<RawServerUsage>;
  /** From now on `GET /media` streams this file. */
  serve(filePath: string, contentType: string): Promise<void>;
  /** Removes the uploads received so far (between runs, untimed). */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export async function startRawFilesServer(pinning: Pinning): Promise<RawFilesServer> {
  const server = await startIpcServer('files-raw', pinning, [...serviceNodeFlags(), RAW_ENTRY], {});
  return {
    origin: server.origin,
    pid: server.pid,
    cpus: server.cpus,
    usage: () => server.call<RawServerUsage>({ command: 'usage' }),
    serve: async (filePath, contentType) => void (await server.call({ command: 'serve', path: filePath, contentType })),
    clear: async () => void (await server.call({ command: 'clear' })),
    close: () => server.close(),
  };
}

/** `VmRSS` and `VmHWM` of a process, bytes. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s*(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

export interface RssWindow {
  /** RSS when the window opened, bytes. */
  before: number;
  /** The highest RSS inside the window, bytes. */
  peak: number;
  /** RSS when the window closed, bytes: what was kept, or not yet collected. */
  after: number;
  source: 'VmHWM' | 'sampled';
}

/** Opens a window on a process's RSS; `close()` says where it started and how high it went. */
export function watchRss(pid: number): { close(): RssWindow } {
  let exact = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    exact = false;
  }
  const before = memoryOf(pid).rss;
  let sampled = before;
  const sampler = exact ? null : setInterval(() => (sampled = Math.max(sampled, memoryOf(pid).rss)), SAMPLE_MS);
  return {
    close: () => {
      if (sampler) clearInterval(sampler);
      const now = memoryOf(pid);
      return exact ? { before, peak: Math.max(now.hwm, before), after: now.rss, source: 'VmHWM' } : { before, peak: Math.max(sampled, now.rss), after: now.rss, source: 'sampled' };
    },
  };
}

/** Clock ticks per second of `/proc/…/stat` (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
export type ThreadKind = 'main' | 'v8 workers' | 'libuv pool' | 'other';
export type ThreadCpu = Record<ThreadKind, number>;

function kindOf(threadName: string): ThreadKind {
  if (threadName === 'MainThread' || threadName === 'node') return 'main';
  if (threadName.startsWith('V8')) return 'v8 workers';
  if (threadName === 'libuv-worker') return 'libuv pool';
  return 'other';
}

/** User + system CPU time of a process's threads by kind so far, ms (threads that have ended are missing). */
export function threadCpu(pid: number): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, 'v8 workers': 0, 'libuv pool': 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // After the parenthesised name: state is field 3, utime 14 and stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu[kindOf(readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())] += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return cpu;
}

/** `after − before` per kind, divided by `per` (e.g. MB or requests): "main 4.1, v8 workers 2.9 …". */
export function describeThreadCpu(before: ThreadCpu, after: ThreadCpu, per: number): string {
  return (Object.keys(after) as ThreadKind[])
    .map((kind) => [kind, (after[kind] - before[kind]) / per] as const)
    .filter(([, value]) => value > 0)
    .map(([kind, value]) => `${kind} ${value.toFixed(2)}`)
    .join(', ');
}
