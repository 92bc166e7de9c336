/**
 * Clients and servers for the collab bench: the server processes (collabBenchServer.ts) under
 * IPC control, real providers, clients of the raw relay that speak the same bytes as a
 * provider (the bare protocol client that replays pre-encoded updates lives in
 * collab/testing/protocolClient.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { openSocket, readUpdateMessage, updateMessage } from '../../collab/testing/protocolClient.ts';
import type { BenchServerKind, BenchServerStats } from './collabBenchServer.ts';

const SERVER_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'collabBenchServer.ts');

export interface BenchServer {
  kind: BenchServerKind;
  port: number;
  /** `ws://127.0.0.1:<port>/collab` (rooms of the relay are paths below it). */
  url: string;
  stats(): Promise<BenchServerStats>;
  /** Graceful close; a server still busy after `timeoutMs` is killed. */
  close(timeoutMs?: number): Promise<void>;
}

export async function startBenchServer(kind: BenchServerKind, env: Record<string, string> = {}): Promise<BenchServer> {
  // BENCH_PROFILE_DIR: each server writes a V8 CPU profile there when it closes (for finding where the time goes).
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${kind}-\${pid}.cpuprofile`] : [];
  const child: ChildProcess = fork(SERVER_ENTRY, [], { env: { ...process.env, ...env, BENCH_SERVER: kind }, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`bench server ${kind} exited with ${code} before it listened`)));
  });
  let nextId = 0;
  const call = <T>(command: 'stats' | 'close') =>
    new Promise<T>((resolve) => {
      const id = (nextId += 1);
      const listener = (message: { id: number } & T) => {
        if (message.id !== id) return;
        child.off('message', listener);
        resolve(message);
      };
      child.on('message', listener);
      child.send({ id, command });
    });
  return {
    kind,
    port,
    url: `ws://127.0.0.1:${port}/collab`,
    stats: async () => (await call<{ stats: BenchServerStats }>('stats')).stats,
    close: async (timeoutMs = 30_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.send({ id: (nextId += 1), command: 'close' });
      await exited;
      clearTimeout(killer);
    },
  };
}

/** A provider as the editor opens one; resolves once synced. */
export async function openProvider(url: string, name: string, token: string, ydoc = new Y.Doc()): Promise<{ provider: HocuspocusProvider; ydoc: Y.Doc }> {
  const provider = new HocuspocusProvider({ url, name, document: ydoc, token });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`provider for ${name} did not sync within 20 s`)), 20_000);
    provider.on('synced', () => {
      clearTimeout(timer);
      resolve();
    });
    provider.on('authenticationFailed', ({ reason }: { reason: string }) => {
      clearTimeout(timer);
      reject(new Error(`authentication failed for ${name}: ${reason}`));
    });
  });
  return { provider, ydoc };
}

/** A client of the relay: a Y.Doc whose local updates go out as provider-shaped update messages. */
export async function openRelayClient(url: string, room: string, ydoc: Y.Doc): Promise<{ ydoc: Y.Doc; close: () => void }> {
  const socket = await openSocket(`${url}/${room}`);
  const remote = Symbol('relay');
  ydoc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== remote) socket.send(updateMessage(room, update));
  });
  socket.on('message', (data: Buffer) => {
    const update = readUpdateMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (update) Y.applyUpdate(ydoc, update, remote);
  });
  return { ydoc, close: () => socket.close() };
}

/** Percentile of an ascending array (nearest rank). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * fraction) - 1))]!;
}
