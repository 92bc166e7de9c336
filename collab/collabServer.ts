/**
 * The collaboration server: Hocuspocus over `ws` on `/collab`, one document per page id, with
 * one extension per concern (collab/extensions/):
 *
 * - authentication: the collab token from the API, resolved through the policy module;
 * - presence identity: an awareness state shows the connection's user, whatever the client
 *   announced (a visitor as "Visitor");
 * - access revalidation: again on `pond_access_changed`, on `user_sessions_changed` (logout,
 *   password reset, a disabled or deleted account, Site Admin granted or revoked) and at the
 *   session's expiry;
 * - persistence: a document loads from the page's log, and each applied update is written
 *   to the log before its ack leaves (updateWriter.ts, durableAcks.ts);
 * - derived data on store (debounced, always when the last participant leaves);
 * - automatic versions.
 *
 * Besides: session heartbeats, and maintenance: while a backup restore runs, all sockets are
 * closed and new ones refused.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import { Hocuspocus } from '@hocuspocus/server';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { WebSocketServer, type WebSocket } from 'ws';
import { USER_SESSIONS_CHANNEL } from '../api/auth/sessions.ts';
import { listenToChannels, type ChannelListener } from '../api/db/channelListener.ts';
import { UPDATES_APPENDED_CHANNEL } from '../api/documents/documentLog.ts';
import type { Logger } from '../api/logger.ts';
import { startAccessChangeListener, type AccessChangeListener } from '../api/policies/accessChangeListener.ts';
import { DocumentLoader } from './documentLoading.ts';
import { CollabAccessRevalidation } from './extensions/accessRevalidation.ts';
import { CollabAuthentication } from './extensions/authentication.ts';
import { CollabAutomaticVersions } from './extensions/automaticVersions.ts';
import { CollabDerivedData } from './extensions/derivedData.ts';
import { CollabPersistence, type LoadedDocument } from './extensions/persistence.ts';
import { CollabPresenceIdentity } from './extensions/presenceIdentity.ts';
import { MaintenanceGate } from './maintenanceGate.ts';
import { SessionRegistry, HEARTBEAT_INTERVAL_MS } from './sessionRegistry.ts';
import { createUpdateCoalescer } from './updateCoalescer.ts';
import { UpdateWriter } from './updateWriter.ts';

export const COLLAB_PATH = '/collab';
/** A single update or sync message above this is refused (a whole large page fits easily). */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
export const MAINTENANCE_CHANNEL = 'backup_maintenance';

export interface CollabServerOptions {
  databaseUrl: string;
  /** Bound to the models (`initModels`) by the caller. */
  sequelize: Sequelize;
  sessionSecret: string;
  logger: Logger;
  host?: string;
  port?: number;
  /** Wait after the last edit before rendering derived data. */
  storeDebounceMs?: number;
  heartbeatIntervalMs?: number;
  /** Active editing time between automatic versions (spec: 30 minutes). */
  snapshotActiveMs?: number;
  /** How long maintenance lasts at most when its end is never announced (spec: 30 minutes). */
  maintenanceFailsafeMs?: number;
}

/** The parts tests, benches and the soak look into. */
export interface CollabRuntime {
  writer: UpdateWriter;
  sessions: SessionRegistry;
  maintenance: MaintenanceGate;
  /** The documents loaded (or loading) in this process, by page id. */
  documents: ReadonlyMap<string, LoadedDocument>;
}

export interface CollabServer {
  port: number;
  url: string;
  hocuspocus: Hocuspocus;
  runtime: CollabRuntime;
  close(): Promise<void>;
}

export async function startCollabServer(options: CollabServerOptions): Promise<CollabServer> {
  const { logger, sequelize } = options;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 6 });
  pool.on('error', (error) => logger.warn({ err: error.message }, 'collab pool connection error'));
  const instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const writer = new UpdateWriter(pool, logger);
  const sessions = new SessionRegistry(pool, instanceId, logger);
  const maintenance = new MaintenanceGate(options.maintenanceFailsafeMs ?? 30 * 60_000, logger);

  const persistence = new CollabPersistence({ pool, loader: new DocumentLoader(pool), writer, sessions, logger });
  const revalidation = new CollabAccessRevalidation({ sequelize, logger });
  const authentication = new CollabAuthentication({
    sequelize,
    sessionSecret: options.sessionSecret,
    logger,
    paused: () => maintenance.active,
    noticeCount: () => revalidation.notices,
    prepare: (pageId, payload) => persistence.prepare(pageId, payload),
  });
  const versions = new CollabAutomaticVersions({ pool, sequelize, logger, activeMs: options.snapshotActiveMs, isOpenHere: (pageId) => persistence.documents.has(pageId) });
  sessions.onAbandoned = (pageIds) => versions.versionAbandonedPages(pageIds);
  const runtime: CollabRuntime = { writer, sessions, maintenance, documents: persistence.documents };

  const hocuspocus = new Hocuspocus({
    name: instanceId,
    quiet: true,
    debounce: options.storeDebounceMs ?? 2000,
    maxDebounce: Math.max(10_000, (options.storeDebounceMs ?? 2000) * 5),
    unloadImmediately: true,
    // Hocuspocus merges a turn's updates (Y.mergeUpdates, quadratic) before broadcasting them:
    // keep those merges small, or a client flooding keystrokes stalls every page of the process.
    flushMaxBytes: 4096,
    // Hooks run in this order: a connection is authenticated and set up for revalidation
    // before it gets its session row; its session row goes before the leave takes a version.
    extensions: [authentication, revalidation, new CollabPresenceIdentity(), persistence, new CollabDerivedData({ sequelize, logger }), versions],
  });

  const sockets = new Set<WebSocket>();
  const closeAllSockets = (code: number, reason: string) => {
    for (const socket of sockets) socket.close(code, reason);
  };
  maintenance.onStart = () => closeAllSockets(1012, 'maintenance');

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/healthz') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: maintenance.active ? 'maintenance' : 'ok' }));
      return;
    }
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== COLLAB_PATH) return refuseUpgrade(socket, 404, 'Not Found');
    if (maintenance.active) return refuseUpgrade(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(request, socket, head, (webSocket) => acceptSocket(webSocket, socket, request));
  });

  const acceptSocket = (webSocket: WebSocket, socket: Duplex, request: IncomingMessage) => {
    sockets.add(webSocket);
    sendEachRunInOneWrite(webSocket, socket);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    }
    const client = hocuspocus.handleConnection(webSocket, new Request(`http://collab.invalid${request.url ?? '/'}`, { headers }));
    const receive = createUpdateCoalescer((message) => client.handleMessage(message));
    webSocket.on('message', (data: Buffer) => receive(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
    webSocket.on('close', (code, reason) => {
      sockets.delete(webSocket);
      client.handleClose({ code, reason: reason.toString() } as CloseEvent);
    });
    webSocket.on('error', (error) => logger.debug({ err: error.message }, 'collab socket error'));
  };

  const accessChanges: AccessChangeListener = startAccessChangeListener(
    options.databaseUrl,
    logger,
    (pondId) => void revalidation.revalidatePond(pondId),
    () => void revalidation.revalidateAll(),
  );
  const channels: ChannelListener = listenToChannels({
    databaseUrl: options.databaseUrl,
    channels: [UPDATES_APPENDED_CHANNEL, MAINTENANCE_CHANNEL, USER_SESSIONS_CHANNEL],
    logger,
    onNotification: (channel, payload) => {
      if (channel === MAINTENANCE_CHANNEL) return maintenance.handle(payload);
      if (channel === USER_SESSIONS_CHANNEL) return void revalidation.revalidateUser(payload);
      persistence.noticeAppended(payload);
    },
    // Sessions may have ended while this connection was down: check every connection again.
    onConnected: () => void revalidation.revalidateAll(),
  });

  sessions.start(options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `ws://${options.host ?? '127.0.0.1'}:${port}${COLLAB_PATH}`;
  logger.info({ port, instanceId }, 'collab listening');

  return {
    port,
    url,
    hocuspocus,
    runtime,
    async close() {
      server.close();
      closeAllSockets(1001, 'server stopping');
      await hocuspocus.flushPendingStores();
      // Closing sockets unloads documents (and stores them) asynchronously: wait for that.
      const deadline = Date.now() + 10_000;
      while (hocuspocus.getDocumentsCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await writer.drain();
      writer.close();
      maintenance.stop();
      revalidation.stop();
      await Promise.all([accessChanges.stop(), channels.stop()]);
      await sessions.stop();
      await destroyLeftoverDocuments(hocuspocus);
      await pool.end();
    },
  };
}

/**
 * A page whose load began while a connection was still being authenticated (persistence.ts
 * `prepare`) can finish loading after the sockets were closed, with no connection left to
 * unload it; its awareness timer would then keep the process from exiting. Such loads are
 * awaited, and every document held without a connection is destroyed: the log already holds
 * every acknowledged edit.
 */
export async function destroyLeftoverDocuments(hocuspocus: Hocuspocus): Promise<void> {
  for (let round = 0; round < 10 && (hocuspocus.loadingDocuments.size > 0 || hocuspocus.documents.size > 0); round++) {
    await Promise.allSettled([...hocuspocus.loadingDocuments.values()]);
    for (const [name, document] of hocuspocus.documents) {
      if (document.getConnectionsCount() > 0) continue;
      hocuspocus.documents.delete(name);
      document.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Frames sent in one synchronous run (a broadcast, the acks of a merged burst) leave in one
 * write instead of a syscall each.
 */
function sendEachRunInOneWrite(webSocket: WebSocket, socket: Duplex): void {
  const send = webSocket.send.bind(webSocket) as (data: Uint8Array) => void;
  let corked = false;
  (webSocket as { send: (data: Uint8Array) => void }).send = (data: Uint8Array) => {
    if (!corked) {
      corked = true;
      socket.cork();
      queueMicrotask(() => {
        corked = false;
        socket.uncork();
      });
    }
    send(data);
  };
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
