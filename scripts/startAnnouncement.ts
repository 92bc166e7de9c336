/**
 * The supervisor's one human line: where to open Dorfteich, printed once the API answers
 * `/readyz` and the collaboration server accepts connections, and whether the setup wizard
 * still waits there.
 */
import { connect } from 'node:net';
import type { AppConfig } from '../api/config.ts';

const POLL_INTERVAL_MS = 250;
const PROBE_TIMEOUT_MS = 2_000;

export function readyLine(baseUrl: string, setupPending: boolean): string {
  return setupPending ? `Dorfteich is ready at ${baseUrl} — open it to finish the setup wizard` : `Dorfteich is ready at ${baseUrl}`;
}

/** Where this machine reaches a server bound to `host` (a wildcard bind means loopback). */
export function loopbackOrigin(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

/**
 * Polls until every service listens, then prints the line once. Gives up quietly when the
 * supervisor stops first. A port of 0 (the system picks one) cannot be polled.
 */
export async function announceWhenReady(config: AppConfig, isStopping: () => boolean, print: (line: string) => void): Promise<void> {
  if (config.port === 0 || config.collab.port === 0) return;
  const api = loopbackOrigin(config.host, config.port);
  while (!isStopping()) {
    const setupPending = await readSetupPending(api);
    if (setupPending !== undefined && (await collabListens(config.collab.host, config.collab.port))) {
      if (!isStopping()) print(readyLine(config.baseUrl, setupPending));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** `undefined` while the API is not ready yet. */
async function readSetupPending(api: string): Promise<boolean | undefined> {
  try {
    const ready = await fetch(`${api}/api/v1/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await ready.body?.cancel();
    if (ready.status !== 200) return undefined;
    const setup = await fetch(`${api}/api/v1/setup`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (setup.status !== 200) return undefined;
    const state = (await setup.json()) as { completed?: unknown };
    return state.completed !== true;
  } catch {
    return undefined;
  }
}

function collabListens(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host, port, timeout: PROBE_TIMEOUT_MS });
    const finish = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
    socket.once('timeout', () => finish(false));
  });
}
