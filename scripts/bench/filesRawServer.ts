/**
 * The files bench's baseline, in a process of its own (started by filesServers.ts, pinned as
 * the API process is): a bare `node:http` server doing the least any server can for the
 * same requests.
 *
 * - `POST /upload`: pipes the request body, as it arrives, to a file with a plain
 *   `fs.createWriteStream`, and answers 201 once the file is closed. No parsing, no hashing:
 *   "writing the same bytes to disk with a plain stream".
 * - `GET /media`: streams the file it was handed (`serve`) with `createReadStream`, with its
 *   Content-Type and Content-Length.
 *
 * IPC (ipcServer.ts): `{ready, port}` once listening; `usage` (CPU time, memory), `serve`
 * `{ path, contentType }`, `clear` (removes the uploads so far) and `close`.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export interface RawServerUsage {
  /** User + system CPU time of the process so far, microseconds. */
  cpuMicros: number;
  memory: NodeJS.MemoryUsage;
}

export type RawServerCommand =
  | { id: number; command: 'usage' }
  | { id: number; command: 'serve'; path: string; contentType: string }
  | { id: number; command: 'clear' }
  | { id: number; command: 'close' };

const uploadDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-files-raw-'));
let uploads = 0;
let served: { path: string; contentType: string; size: number } | null = null;

async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
  uploads += 1;
  const out = createWriteStream(path.join(uploadDir, `${uploads}.part`));
  await pipeline(req, out);
  res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sizeBytes: out.bytesWritten }));
}

async function send(res: ServerResponse): Promise<void> {
  if (!served) {
    res.writeHead(503).end();
    return;
  }
  res.writeHead(200, { 'content-type': served.contentType, 'content-length': String(served.size) });
  await pipeline(createReadStream(served.path), res);
}

function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'POST' && req.url === '/upload') return receive(req, res);
  if (req.method === 'GET' && req.url === '/media') return send(res);
  res.writeHead(404).end();
  return Promise.resolve();
}

const server = createServer((req, res) => {
  route(req, res).catch((error: unknown) => {
    // A broken upload or download: the bench counts the status or the socket error.
    if (!res.headersSent) res.writeHead(500).end(String(error));
    else res.destroy();
  });
});
const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

async function handle(message: RawServerCommand): Promise<unknown> {
  if (message.command === 'serve') {
    served = { path: message.path, contentType: message.contentType, size: (await stat(message.path)).size };
    return { size: served.size };
  }
  if (message.command === 'clear') {
    for (const name of await readdir(uploadDir)) await rm(path.join(uploadDir, name), { force: true });
    return { cleared: true };
  }
  throw new Error(`the raw files server does not know ${message.command}`);
}

process.on('message', (message: RawServerCommand) => {
  if (message.command === 'usage') {
    const cpu = process.cpuUsage();
    process.send!({ id: message.id, result: { cpuMicros: cpu.user + cpu.system, memory: process.memoryUsage() } satisfies RawServerUsage });
    return;
  }
  if (message.command === 'close') {
    server.closeAllConnections();
    server.close(() => {
      rmSync(uploadDir, { recursive: true, force: true });
      process.send!({ id: message.id, result: { closed: true } }, () => process.exit(0));
    });
    return;
  }
  handle(message).then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The bench is gone (it crashed or was killed): do not linger, leave no files.
process.on('disconnect', () => {
  rmSync(uploadDir, { recursive: true, force: true });
  process.exit(1);
});
process.send!({ ready: true, port });
