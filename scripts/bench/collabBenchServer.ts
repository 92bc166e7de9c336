/**
 * One server of the collab bench, in a process of its own (as in production, the clients
 * and the server do not share an event loop). `BENCH_SERVER` picks it:
 *
 * - `relay`: the baseline. A bare `ws` server that forwards each message, byte for byte, to
 *   the other sockets of the same room (the URL path).
 * - `echo`: a `ws` server that sends every message back (round-trip baseline).
 * - `hocuspocus`: Hocuspocus with no extensions, on `ws` the way collabServer.ts mounts it.
 * - `dorfteich`: our collab server (startCollabServer): auth, persistence, hooks.
 * - `proxy`: the API's `/collab` proxy (attachCollabProxy) in front of `BENCH_TARGET_PORT`.
 *
 * Talks to the bench over IPC: `{ready, port}` once listening; answers `stats` with the
 * update writer's counters and the open documents; `close` shuts down gracefully and exits.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Hocuspocus } from '@hocuspocus/server';
import { WebSocketServer, type WebSocket } from 'ws';
import { createSequelize } from '../../api/db/database.ts';
import { attachCollabProxy } from '../../api/http/collabProxy.ts';
import { createLogger } from '../../api/logger.ts';
import { initModels } from '../../api/models/index.ts';
import { startCollabServer } from '../../collab/collabServer.ts';

export type BenchServerKind = 'relay' | 'echo' | 'hocuspocus' | 'dorfteich' | 'proxy';

export interface BenchServerStats {
  updatesReceived: number;
  bytesReceived: number;
  rowsWritten: number;
  bytesWritten: number;
  flushes: number;
  documents: number;
}

interface Running {
  port: number;
  stats: () => BenchServerStats;
  close: () => Promise<void>;
}

const NO_STATS: BenchServerStats = { updatesReceived: 0, bytesReceived: 0, rowsWritten: 0, bytesWritten: 0, flushes: 0, documents: 0 };
const MAX_PAYLOAD = 32 * 1024 * 1024;

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeHttp(server: ReturnType<typeof createServer>): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function startRelay(echo: boolean): Promise<Running> {
  const rooms = new Map<string, Set<WebSocket>>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const server = createServer();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (webSocket) => {
      const room = request.url ?? '/';
      let members = rooms.get(room);
      if (!members) rooms.set(room, (members = new Set()));
      members.add(webSocket);
      webSocket.on('message', (data: Buffer) => {
        if (echo) return webSocket.send(data);
        for (const other of members) if (other !== webSocket) other.send(data);
      });
      webSocket.on('close', () => members.delete(webSocket));
    });
  });
  const port = await listen(server);
  return { port, stats: () => NO_STATS, close: () => closeHttp(server) };
}

async function startBareHocuspocus(): Promise<Running> {
  // BENCH_HOCUSPOCUS_OPTIONS (JSON, e.g. {"flushMaxBytes": 16384}) tries other settings of the bare server.
  const hocuspocus = new Hocuspocus({ quiet: true, ...JSON.parse(process.env.BENCH_HOCUSPOCUS_OPTIONS ?? '{}') });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const server = createServer();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (webSocket) => {
      const client = hocuspocus.handleConnection(webSocket, new Request(`http://bench.invalid${request.url ?? '/'}`));
      webSocket.on('message', (data: Buffer) => client.handleMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
      webSocket.on('close', (code, reason) => client.handleClose({ code, reason: reason.toString() } as CloseEvent));
    });
  });
  const port = await listen(server);
  return { port, stats: () => ({ ...NO_STATS, documents: hocuspocus.getDocumentsCount() }), close: () => closeHttp(server) };
}

async function startDorfteich(): Promise<Running> {
  const databaseUrl = process.env.DATABASE_URL!;
  const sequelize = createSequelize(databaseUrl, { poolMax: 4 });
  initModels(sequelize);
  const collab = await startCollabServer({
    databaseUrl,
    sequelize,
    sessionSecret: process.env.SESSION_SECRET!,
    logger: createLogger('error', 'collab'),
    port: 0,
    ...(process.env.COLLAB_STORE_DEBOUNCE_MS ? { storeDebounceMs: Number(process.env.COLLAB_STORE_DEBOUNCE_MS) } : {}),
  });
  return {
    port: collab.port,
    stats: () => ({ ...collab.runtime.writer.stats, documents: collab.hocuspocus.getDocumentsCount() }),
    close: async () => {
      await collab.close();
      await sequelize.close();
    },
  };
}

async function startProxy(): Promise<Running> {
  const server = createServer((_request, response) => response.writeHead(404).end());
  attachCollabProxy(server, () => ({ host: '127.0.0.1', port: Number(process.env.BENCH_TARGET_PORT) }), createLogger('error', 'proxy'));
  const port = await listen(server);
  return { port, stats: () => NO_STATS, close: () => closeHttp(server) };
}

const kind = process.env.BENCH_SERVER as BenchServerKind;
const starters: Record<BenchServerKind, () => Promise<Running>> = {
  relay: () => startRelay(false),
  echo: () => startRelay(true),
  hocuspocus: startBareHocuspocus,
  dorfteich: startDorfteich,
  proxy: startProxy,
};
if (!starters[kind]) throw new Error(`unknown BENCH_SERVER ${kind}`);
const running = await starters[kind]();
process.on('message', (message: { id: number; command: 'stats' | 'close' }) => {
  if (message.command === 'stats') process.send!({ id: message.id, stats: running.stats() });
  if (message.command === 'close') {
    void running.close().finally(() => {
      process.send!({ id: message.id, closed: true }, () => process.exit(0));
    });
  }
});
// The bench is gone (it crashed or was killed): do not linger.
process.on('disconnect', () => process.exit(1));
process.send!({ ready: true, port: running.port });
