/**
 * Clients and servers for the collab bench: the server processes (collabBenchServer.ts) under
 * IPC control, real providers, clients of the raw relay that speak the same bytes as a
 * provider, and a bare protocol client that replays pre-encoded updates as fast as the socket
 * takes them and counts the acks.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';
import type { BenchServerKind, BenchServerStats } from './collabBenchServer.ts';

const SERVER_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'collabBenchServer.ts');

/** Hocuspocus message types (MessageType) and sub-types used here. */
const SYNC = 0;
const AUTH = 2;
const SYNC_STATUS = 8;
const PING = 9;
const PONG = 10;
const SYNC_STEP_1 = 0;
const SYNC_STEP_2 = 1;
const SYNC_UPDATE = 2;
const AUTH_TOKEN = 0;
const AUTH_DENIED = 1;
const AUTH_OK = 2;

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(2);
  }
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

/** The bytes a provider sends for one document update. */
export function updateMessage(documentName: string, update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, SYNC);
  encoding.writeVarUint(encoder, SYNC_UPDATE);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** Reads an update message (as `updateMessage` writes it); null for anything else. */
export function readUpdateMessage(data: Uint8Array): Uint8Array | null {
  const decoder = decoding.createDecoder(data);
  decoding.readVarString(decoder);
  if (decoding.readVarUint(decoder) !== SYNC || decoding.readVarUint(decoder) !== SYNC_UPDATE) return null;
  return decoding.readVarUint8Array(decoder);
}

function syncMessage(documentName: string, step: number, payload: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, SYNC);
  encoding.writeVarUint(encoder, step);
  encoding.writeVarUint8Array(encoder, payload);
  return encoding.toUint8Array(encoder);
}

function authMessage(documentName: string, token: string): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, AUTH);
  encoding.writeVarUint(encoder, AUTH_TOKEN);
  encoding.writeVarString(encoder, token);
  return encoding.toUint8Array(encoder);
}

function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  socket.binaryType = 'nodebuffer';
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
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

/**
 * Speaks just enough of the Hocuspocus protocol to authenticate, sync an empty document and
 * then push pre-encoded update messages; counts the SyncStatus acks.
 */
export class ReplayClient {
  acks = 0;
  private readonly socket: WebSocket;
  private readonly name: string;
  private authenticated = false;
  private synced = false;

  private constructor(socket: WebSocket, name: string) {
    this.socket = socket;
    this.name = name;
    socket.on('message', (data: Buffer) => this.receive(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
  }

  static async connect(url: string, name: string, token: string): Promise<ReplayClient> {
    const client = new ReplayClient(await openSocket(url), name);
    client.socket.send(authMessage(name, token));
    client.socket.send(syncMessage(name, SYNC_STEP_1, Y.encodeStateVector(new Y.Doc())));
    // Synced both ways, and our (empty) SyncStep2 acknowledged: from here on every ack is for a replayed update.
    await waitUntil(() => client.authenticated && client.synced && client.acks >= 1, 20_000, 'replay client handshake');
    client.acks = 0;
    return client;
  }

  private receive(data: Uint8Array): void {
    if (data.length === 1 && data[0] === PING) {
      this.socket.send(Uint8Array.of(PONG));
      return;
    }
    const decoder = decoding.createDecoder(data);
    decoding.readVarString(decoder);
    const type = decoding.readVarUint(decoder);
    if (type === SYNC_STATUS) {
      if (decoding.readVarInt(decoder) === 1) this.acks += 1;
    } else if (type === AUTH) {
      const outcome = decoding.readVarUint(decoder);
      if (outcome === AUTH_DENIED) throw new Error(`replay client refused: ${decoding.readVarString(decoder)}`);
      if (outcome === AUTH_OK) this.authenticated = true;
    } else if (type === SYNC) {
      const step = decoding.readVarUint(decoder);
      if (step === SYNC_STEP_1) this.socket.send(syncMessage(this.name, SYNC_STEP_2, Y.encodeStateAsUpdate(new Y.Doc())));
      else if (step === SYNC_STEP_2) this.synced = true;
    }
  }

  send(message: Uint8Array): void {
    this.socket.send(message);
  }

  close(): void {
    this.socket.close();
  }
}

/** Percentile of an ascending array (nearest rank). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * fraction) - 1))]!;
}
