/**
 * Starts apiBenchServer.ts in a process of its own, on the core pinBenchProcess
 * (publicServers.ts) left for servers, so autocannon and Postgres (on the bench's core) never
 * take CPU from the API process being measured; under IPC control.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeFlags } from '../serviceNodeFlags.ts';
import type { ApiServerUsage, TokenCheckTimings } from './apiBenchServer.ts';
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
  const nodeArgs = [...serviceNodeFlags(), SERVER_ENTRY];
  const [command, args] = pinning.used ? ['taskset', ['-c', String(pinning.serverCore), process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const child: ChildProcess = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the api bench server exited with ${code} before it listened`)));
  });
  child.removeAllListeners('exit');
  let nextId = 0;
  const call = <T>(message: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = (nextId += 1);
      const listener = (reply: { id: number; result?: T; error?: string }) => {
        if (reply.id !== id) return;
        child.off('message', listener);
        if (reply.error !== undefined) reject(new Error(`api bench server: ${reply.error}`));
        else resolve(reply.result as T);
      };
      child.on('message', listener);
      child.send({ ...message, id });
    });
  const cpus = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? '?';
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    cpus,
    usage: () => call<ApiServerUsage>({ command: 'usage' }),
    tokenChecks: (secret, calls, lanes) => call<TokenCheckTimings>({ command: 'tokenChecks', secret, calls, lanes }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.send({ id: (nextId += 1), command: 'close' });
      await exited;
      clearTimeout(killer);
    },
  };
}
