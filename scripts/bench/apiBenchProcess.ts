/**
 * Starts apiBenchServer.ts in a process of its own, on the core pinBenchProcess
 * (publicServers.ts) left for servers, so autocannon and Postgres (on the bench's core) never
 * take CPU from the API process being measured; under IPC control (ipcServer.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeFlags } from '../serviceNodeFlags.ts';
import type { ApiServerUsage, TokenCheckTimings } from './apiBenchServer.ts';
import { startIpcServer } from './ipcServer.ts';
import type { Pinning } from './publicServers.ts';

const SERVER_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'apiBenchServer.ts');

export interface ApiBenchProcess {
  origin: string;
  pid: number;
  /** The cores the server may run on, as the kernel says. */
  cpus: string;
  usage(): Promise<ApiServerUsage>;
  tokenChecks(secret: string, calls: number, lanes: number): Promise<TokenCheckTimings>;
  close(): Promise<void>;
}

export async function startApiBenchProcess(pinning: Pinning, env: Record<string, string>): Promise<ApiBenchProcess> {
  // The flags `npm start` gives every service, so what is measured is what runs.
  const server = await startIpcServer('api-bench', pinning, [...serviceNodeFlags(), SERVER_ENTRY], env);
  return {
    origin: server.origin,
    pid: server.pid,
    cpus: server.cpus,
    usage: () => server.call<ApiServerUsage>({ command: 'usage' }),
    tokenChecks: (secret, calls, lanes) => server.call<TokenCheckTimings>({ command: 'tokenChecks', secret, calls, lanes }),
    close: () => server.close(),
  };
}
