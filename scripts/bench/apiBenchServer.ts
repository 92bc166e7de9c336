/**
 * The API process of `npm run bench:api`, in a process of its own (started pinned to its own
 * core by apiBenchProcess.ts where `taskset` exists), assembled as api/server.ts assembles it:
 * services, the access-change listener, the Express app (REST `/api/public/v1`, MCP
 * `/api/mcp`, the internal `/api/v1`) behind the public layer's hot path. Without the Astro
 * site: no measured path reaches it. Config from the environment: `DATABASE_URL`,
 * `API_RATE_LIMIT_PER_MINUTE` (the bench sets it high so the limiter counts but never refuses).
 *
 * IPC commands besides `usage` and `close`, for the rate limiter's part (d), run here so they
 * use this process's pool and core, as the reads do:
 * - `tokenChecks`: the bearer authentication's statement (`checkAndCountAccessToken`: the token
 *   lookup that also counts the request) against the same lookup without its counting part
 *   (`checkPresentedAccessToken`), alternating, `lanes` at a time; each call timed, and the
 *   process's CPU time per variant. The difference is what the limiter adds to a request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app.ts';
import { checkAndCountAccessToken, checkPresentedAccessToken } from '../../api/auth/accessTokens.ts';
import { bootstrapServices } from '../../api/bootstrap.ts';
import { parseConfig } from '../../api/config.ts';
import { createLogger } from '../../api/logger.ts';
import { startAccessChangeListener } from '../../api/policies/accessChangeListener.ts';
import { startPublicLayer } from '../../api/publicPages/publicLayer.ts';

export interface ApiServerUsage {
  /** User + system CPU time of the process so far, microseconds. */
  cpuMicros: number;
  memory: NodeJS.MemoryUsage;
  cache: null;
}

export interface VariantTimings {
  /** Per call, ms. */
  latencies: number[];
  /** This process's CPU time spent in this variant's calls (whole process, so concurrent lanes blur it), microseconds. */
  cpuMicros: number;
}

export interface TokenCheckTimings {
  counted: VariantTimings;
  lookupOnly: VariantTimings;
}

export type ApiServerCommand =
  | { id: number; command: 'usage' }
  | { id: number; command: 'close' }
  | { id: number; command: 'tokenChecks'; secret: string; calls: number; lanes: number };

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

const databaseUrl = process.env.DATABASE_URL!;
const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-api-'));
const server = createServer();
const port = await listen(server);
const config = parseConfig({
  PORT: String(port),
  BASE_URL: `http://127.0.0.1:${port}`,
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl,
  SESSION_SECRET: 'bench-session-secret-that-is-long-enough-0123456789',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
  // Only the bench's own accounts sign in; the default cost would make seeding wait on scrypt.
  PASSWORD_HASH_COST: '12',
  API_RATE_LIMIT_PER_MINUTE: process.env.API_RATE_LIMIT_PER_MINUTE ?? '1000000',
});
const logger = createLogger(config.logLevel);
const services = await bootstrapServices(config, databaseUrl, logger);
const accessChanges = startAccessChangeListener(databaseUrl, logger);
const app = await createApp(services, { site: false });
const publicLayer = startPublicLayer(services, databaseUrl);
server.on('request', publicLayer.listener(app));

const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

async function tokenChecks(secret: string, calls: number, lanes: number): Promise<TokenCheckTimings> {
  const { sequelize, config } = services;
  const variants = {
    counted: () => checkAndCountAccessToken(sequelize, secret, config.apiRateLimit.windowSeconds),
    lookupOnly: () => checkPresentedAccessToken(sequelize, secret),
  };
  const timings: TokenCheckTimings = { counted: { latencies: [], cpuMicros: 0 }, lookupOnly: { latencies: [], cpuMicros: 0 } };
  // Blocks of `lanes` concurrent calls of one variant, the variants alternating block by block.
  for (let block = 0; block < (2 * calls) / lanes; block += 1) {
    const name = block % 2 === 0 ? 'counted' : 'lookupOnly';
    const cpuBefore = process.cpuUsage();
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        const started = process.hrtime.bigint();
        const answer = await variants[name]();
        if (('check' in answer ? answer.check : answer).status !== 'valid') throw new Error(`the bench token is not valid (${name})`);
        timings[name].latencies.push(elapsedMs(started));
      }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    timings[name].cpuMicros += cpu.user + cpu.system;
  }
  return timings;
}

async function handle(message: ApiServerCommand): Promise<unknown> {
  if (message.command === 'tokenChecks') return tokenChecks(message.secret, message.calls, message.lanes);
  throw new Error(`the api bench server does not know ${message.command}`);
}

async function close(): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await accessChanges.stop();
  await publicLayer.stop();
  await services.sequelize.close();
  rmSync(dataDir, { recursive: true, force: true });
}

process.on('message', (message: ApiServerCommand) => {
  if (message.command === 'usage') {
    const cpu = process.cpuUsage();
    process.send!({ id: message.id, result: { cpuMicros: cpu.user + cpu.system, memory: process.memoryUsage(), cache: null } satisfies ApiServerUsage });
    return;
  }
  if (message.command === 'close') {
    void close().finally(() => process.send!({ id: message.id, result: { closed: true } }, () => process.exit(0)));
    return;
  }
  handle(message).then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The bench is gone (it crashed or was killed): do not linger.
process.on('disconnect', () => process.exit(1));
process.send!({ ready: true, port });
