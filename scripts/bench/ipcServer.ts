/**
 * A bench's server in a child process of its own, under IPC control: started on the core
 * `pinBenchProcess` (publicServers.ts) left for servers where `taskset` is used, it sends
 * `{ port }` once it listens, then answers `{ id, command, … }` messages with `{ id, result }`
 * or `{ id, error }`; `close` is a command too, after which it exits (or is killed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Pinning } from './publicServers.ts';

export interface IpcServer {
  port: number;
  pid: number;
  /** The cores the server may run on, as the kernel says. */
  cpus: string;
  origin: string;
  call<T>(message: { command: string } & Record<string, unknown>): Promise<T>;
  close(timeoutMs?: number): Promise<void>;
}

/** The cores a process may run on (`Cpus_allowed_list`). */
export function allowedCpus(pid: number): string {
  return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';
}

/**
 * Starts `node <nodeArgs>` pinned as `pinning` says. `BENCH_PROFILE_DIR`: the server writes a
 * V8 CPU profile there when it closes, named after `name` (where does its time go?).
 */
export async function startIpcServer(name: string, pinning: Pinning, nodeArgs: string[], env: Record<string, string>): Promise<IpcServer> {
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}-\${pid}.cpuprofile`] : [];
  const args = [...profiling, ...nodeArgs];
  const [command, commandArgs] = pinning.used ? ['taskset', ['-c', String(pinning.serverCore), process.execPath, ...args]] : [process.execPath, args];
  const child: ChildProcess = spawn(command, commandArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the ${name} server exited with ${code} before it listened`)));
  });
  child.removeAllListeners('exit');
  let nextId = 0;
  const call = <T>(message: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = (nextId += 1);
      const listener = (reply: { id: number; result?: T; error?: string }) => {
        if (reply.id !== id) return;
        child.off('message', listener);
        if (reply.error !== undefined) reject(new Error(`${name} server: ${reply.error}`));
        else resolve(reply.result as T);
      };
      child.on('message', listener);
      child.send({ ...message, id });
    });
  return {
    port,
    pid: child.pid!,
    cpus: allowedCpus(child.pid!),
    origin: `http://127.0.0.1:${port}`,
    call,
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
