/**
 * The public port forwards WebSocket upgrades on `/collab` to the collab process, so a browser
 * talks to one origin. The upgrade request goes through byte for byte (plus X-Forwarded-For);
 * after that the two sockets are piped. Nagle is off on both legs: a keystroke is a few bytes
 * and must not wait for company.
 */
import type { IncomingMessage, Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.ts';

export const COLLAB_PROXY_PATH = '/collab';

export interface CollabTarget {
  host: string;
  port: number;
}

function requestHead(request: IncomingMessage): string {
  const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
  const raw = request.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]!.toLowerCase() === 'x-forwarded-for') continue;
    lines.push(`${raw[index]}: ${raw[index + 1]}`);
  }
  const forwardedFor = [request.headers['x-forwarded-for'], request.socket.remoteAddress].filter(Boolean).join(', ');
  lines.push(`X-Forwarded-For: ${forwardedFor}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export interface CollabProxy {
  /** Ends every tunnel: an upgraded socket is no longer the HTTP server's to close, and server.close() waits for it. */
  closeTunnels(): void;
}

export function attachCollabProxy(server: Server, target: () => CollabTarget, logger: Logger): CollabProxy {
  const tunnels = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== COLLAB_PROXY_PATH) {
      client.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const { host, port } = target();
    const upstream: Socket = connect({ host, port, noDelay: true });
    tunnels.add(client);
    (client as Socket).setNoDelay?.(true);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.write(requestHead(request));
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (!connected) {
        logger.warn({ err: error.message, host, port }, 'collab process unreachable');
        client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      } else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => {
      tunnels.delete(client);
      upstream.destroy();
    });
  });
  return {
    closeTunnels() {
      for (const client of tunnels) client.destroy();
      tunnels.clear();
    },
  };
}
