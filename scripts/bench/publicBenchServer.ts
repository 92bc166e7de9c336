/**
 * One server of the public bench, in a process of its own (started pinned to its own core by
 * publicServers.ts where `taskset` exists). `BENCH_SERVER` picks it:
 *
 * - `api`: the subject. The API process as api/server.ts assembles it: services, the Express
 *   app (with the Astro site unless `DT_SITE=off`), the public layer's hot path in front and
 *   the `/collab` proxy, against `DATABASE_URL` with `PUBLIC_CACHE_MB` (and, for a bench that
 *   runs a collab server, `SESSION_SECRET` and `COLLAB_PORT`) from the environment.
 * - `raw`: the baseline. A bare `node:http` server that answers every request with the bytes
 *   and headers it was handed (`respond`), or with the handed 304 headers when
 *   `If-None-Match` equals the ETag — the least any server can do for the same answer.
 *
 * Talks to the bench over IPC: `{ready, port}` once listening; `usage` answers the process's
 * CPU time, memory (after a full collection with `collect`) and (api) the document cache's size; `grant` / `revoke` run the real grant
 * commands in this process (so "the next request on the same process" is literal);
 * `measureGeneration` times (d) here (publicGenerationTimings.ts); `close` shuts down and exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app.ts';
import { bootstrapServices } from '../../api/bootstrap.ts';
import { createGrant, deleteGrant } from '../../api/commands/grantCommands.ts';
import { parseConfig } from '../../api/config.ts';
import { attachCollabProxy } from '../../api/http/collabProxy.ts';
import { createLogger } from '../../api/logger.ts';
import { User } from '../../api/models/index.ts';
import { startAccessChangeListener } from '../../api/policies/accessChangeListener.ts';
import { startPublicLayer, type PublicLayer } from '../../api/publicPages/publicLayer.ts';
import { measureGeneration } from './publicGenerationTimings.ts';

export type PublicBenchServerKind = 'api' | 'raw';

/** What the raw server answers: the API's own response, captured by the bench. */
export interface RawResponse {
  etag: string;
  ok: { headers: OutgoingHttpHeaders; bodyBase64: string };
  notModified: { headers: OutgoingHttpHeaders };
}

export interface ServerUsage {
  /** User + system CPU time of the process so far, microseconds. */
  cpuMicros: number;
  memory: NodeJS.MemoryUsage;
  cache: { entries: number; usedBytes: number; budgetBytes: number } | null;
}

export type ServerCommand =
  | { id: number; command: 'usage'; collect?: boolean }
  | { id: number; command: 'close' }
  | { id: number; command: 'respond'; response: RawResponse }
  | { id: number; command: 'grant'; pondId: string; actorId: string }
  | { id: number; command: 'revoke'; pondId: string; grantId: string; actorId: string }
  | { id: number; command: 'measureGeneration'; pageId: string; markdown: string; fallbackBaseUrl: string; runs: number; warmup: number };

interface Running {
  port: number;
  publicLayer: PublicLayer | null;
  handle: (message: ServerCommand) => Promise<unknown>;
  close: () => Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeHttp(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function startRaw(): Promise<Running> {
  let answer: { etag: string; ok: OutgoingHttpHeaders; body: Buffer; notModified: OutgoingHttpHeaders } | null = null;
  const server = createServer((req, res) => {
    if (!answer) {
      res.writeHead(503).end();
      return;
    }
    if (req.headers['if-none-match'] === answer.etag) {
      res.writeHead(304, answer.notModified);
      res.end();
      return;
    }
    res.writeHead(200, answer.ok);
    res.end(answer.body);
  });
  const port = await listen(server);
  return {
    port,
    publicLayer: null,
    handle: async (message) => {
      if (message.command !== 'respond') throw new Error(`the raw server does not know ${message.command}`);
      const { response } = message;
      answer = { etag: response.etag, ok: response.ok.headers, body: Buffer.from(response.ok.bodyBase64, 'base64'), notModified: response.notModified.headers };
      return { ready: true };
    },
    close: () => closeHttp(server),
  };
}

async function startApi(): Promise<Running> {
  const databaseUrl = process.env.DATABASE_URL!;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-public-'));
  const server = createServer();
  const port = await listen(server);
  const config = parseConfig({
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: process.env.SESSION_SECRET ?? 'bench-session-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
    PUBLIC_CACHE_MB: process.env.PUBLIC_CACHE_MB ?? '64',
    ...(process.env.COLLAB_PORT ? { COLLAB_PORT: process.env.COLLAB_PORT } : {}),
  });
  const logger = createLogger(config.logLevel);
  const services = await bootstrapServices(config, databaseUrl, logger);
  const accessChanges = startAccessChangeListener(databaseUrl, logger);
  const app = await createApp(services, { site: process.env.DT_SITE !== 'off' });
  const publicLayer = startPublicLayer(services, databaseUrl);
  server.on('request', publicLayer.listener(app));
  attachCollabProxy(server, () => config.collab, logger);
  const actor = async (id: string) => {
    const user = await User.findByPk(id);
    if (!user) throw new Error(`no user ${id}`);
    return user;
  };
  return {
    port,
    publicLayer,
    handle: async (message) => {
      if (message.command === 'grant') {
        const grant = await createGrant(
          message.pondId,
          { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' },
          { actor: await actor(message.actorId), ip: undefined, locale: async () => 'en' },
        );
        return { grantId: grant.id };
      }
      if (message.command === 'revoke') {
        await deleteGrant(message.pondId, message.grantId, { actor: await actor(message.actorId), ip: undefined });
        return { revoked: true };
      }
      if (message.command === 'measureGeneration') return measureGeneration(services.sequelize, message);
      throw new Error(`the api server does not know ${message.command}`);
    },
    close: async () => {
      await closeHttp(server);
      await accessChanges.stop();
      await publicLayer.stop();
      await services.sequelize.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function usageOf(running: Running): ServerUsage {
  const cpu = process.cpuUsage();
  const cache = running.publicLayer?.cache;
  return {
    cpuMicros: cpu.user + cpu.system,
    memory: process.memoryUsage(),
    cache: cache ? { entries: cache.size, usedBytes: cache.usedBytes, budgetBytes: cache.budgetBytes } : null,
  };
}

const kind = process.env.BENCH_SERVER as PublicBenchServerKind;
if (kind !== 'api' && kind !== 'raw') throw new Error(`unknown BENCH_SERVER ${kind}`);
const running = kind === 'api' ? await startApi() : await startRaw();
process.on('message', (message: ServerCommand) => {
  if (message.command === 'usage') {
    // A full collection first, when asked and allowed (`--expose-gc`): what is kept, not what awaits the collector.
    if (message.collect) (globalThis as { gc?: () => void }).gc?.();
    process.send!({ id: message.id, result: usageOf(running) });
    return;
  }
  if (message.command === 'close') {
    void running.close().finally(() => process.send!({ id: message.id, result: { closed: true } }, () => process.exit(0)));
    return;
  }
  running.handle(message).then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The bench is gone (it crashed or was killed): do not linger.
process.on('disconnect', () => process.exit(1));
process.send!({ ready: true, port: running.port });
