/**
 * A `fetch` into this very process. Astro pages read `/api/v1` with the visitor's cookie so the
 * API applies exactly the rules it applies to the browser. Over a loopback socket each read cost
 * a fetch client, kernel socket writes and reads and event-loop turns, nine reads for a page
 * screen, all on the one thread that also renders (bench:editor (a): a member's first byte).
 *
 * Here each read is a real HTTP/1.1 exchange over an in-memory stream pair (`duplexPair`): the
 * server end is handed to a private `http.Server` that never listens and whose listener is the
 * Express app, the client end to `http.request`. Same parser, middleware, routes and policies
 * as a browser's request; only the kernel and the fetch client are skipped.
 */
import { request, Server, type IncomingMessage, type RequestListener } from 'node:http';
import { duplexPair, type Duplex } from 'node:stream';
import type { Page, Pond } from '../models/index.ts';

/**
 * The part of a fetch `Response` that pages read: a `Response` has it too, so pages read the
 * API the same way in process and over HTTP. Built here from the raw answer instead of as a
 * `Response`: undici's Response and Headers cost about 0.1 ms per read, nearly 1 ms of a
 * member's page (nine reads) out of about 13 (bench:editor (a)).
 */
export interface ApiAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null; getSetCookie(): string[] };
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** What pages call instead of `fetch(origin + path)`: a GET with the headers as given. */
export type InProcessFetch = (path: string, init?: { headers?: Record<string, string> }) => Promise<ApiAnswer>;

/** One check of a session cookie for a render: its reads share it; only the first is told the session was refreshed. */
export interface SessionCheck {
  readonly check: Promise<unknown>;
  refreshTold: boolean;
}

/**
 * The reads of one page render. They ask at one moment on behalf of one visitor, so what the
 * API works out about the caller once holds for all of them: the session cookie is checked
 * once per render, not once per read (authenticateRequest.ts).
 */
export interface RenderReads {
  /** Session checks by cookie token (authenticateRequest.ts), started by the first read or ahead of the reads. */
  readonly sessionChecks: Map<string, SessionCheck>;
  /**
   * Ponds by id, the first read's lookup shared by the render's other reads: the reads of a
   * pond screen name the same pond four or five times (routeTable.ts). Reads only, so nobody
   * changes the shared row.
   */
  readonly ponds: Map<string, Promise<Pond | null>>;
  /** Pages by id, in the same way: the body's read and the page screen's read name the same page. */
  readonly pages: Map<string, Promise<Page | null>>;
}

/** The render a connection belongs to; only this module's own stream ends are keys, so no socket from outside has one. */
const rendersByConnection = new WeakMap<object, RenderReads>();

/** The page render this request was sent for, or null for every request from outside. */
export function renderReadsOf(connection: object | null | undefined): RenderReads | null {
  return connection ? (rendersByConnection.get(connection) ?? null) : null;
}

/** The address the API sees for these reads: this host, as it saw for the loopback requests before. */
const LOOPBACK = '127.0.0.1';

/**
 * A read that has not answered by then fails, and the page shows what it shows when the API
 * cannot be read, instead of the visitor waiting as long as the route hangs. There is no
 * listening server whose own timeouts would end it.
 */
const READ_TIMEOUT_MS = 30_000;

/**
 * Per page render: `forRender(requestId, cookieHeader)` gives that render's fetch. Its reads carry
 * the page request's id (`X-Request-Id`), so their log lines name the page request they were
 * made for. `beforeRender` may start work for the render's reads before the page asks
 * (app.ts: the session cookie's check).
 */
export function createInProcessFetch(
  handler: RequestListener,
  options: { timeoutMs?: number; beforeRender?: (render: RenderReads, cookieHeader: string | undefined) => void } = {},
): { forRender: (requestId?: string, cookieHeader?: string) => InProcessFetch } {
  const server = new Server(handler);
  const timeoutMs = options.timeoutMs ?? READ_TIMEOUT_MS;
  return {
    forRender: (requestId, cookieHeader) => {
      const render: RenderReads = { sessionChecks: new Map(), ponds: new Map(), pages: new Map() };
      options.beforeRender?.(render, cookieHeader);
      return fetchForRender(server, render, requestId, timeoutMs);
    },
  };
}

function fetchForRender(server: Server, render: RenderReads, requestId: string | undefined, timeoutMs: number): InProcessFetch {
  return (path, init = {}) =>
    new Promise<ApiAnswer>((resolve, reject) => {
      const [clientEnd, serverEnd] = duplexPair();
      // Express reads the peer's address (req.ip: logging, rate limits); a socket would have one.
      Object.defineProperties(serverEnd, { remoteAddress: { value: LOOPBACK }, remotePort: { value: 0 }, localAddress: { value: LOOPBACK } });
      rendersByConnection.set(serverEnd, render);
      server.emit('connection', serverEnd);
      const outgoing = request({
        path,
        method: 'GET',
        headers: { host: 'localhost', ...init.headers, ...(requestId ? { 'x-request-id': requestId } : {}), connection: 'close' },
        createConnection: () => clientEnd as Duplex & import('node:net').Socket,
      });
      const timer = setTimeout(() => {
        outgoing.destroy(new Error(`in-process read of ${path} took over ${timeoutMs} ms`));
        serverEnd.destroy();
      }, timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      outgoing.on('error', fail);
      outgoing.on('response', (incoming: IncomingMessage) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('end', () => {
          clearTimeout(timer);
          clientEnd.destroy();
          resolve(answerOf(incoming, Buffer.concat(chunks)));
        });
      });
      outgoing.end();
    });
}

function answerOf(incoming: IncomingMessage, body: Buffer): ApiAnswer {
  const status = incoming.statusCode ?? 502;
  // Node's parser keys headers in lower case and joins repeated ones with ", ", as Headers#get does; only Set-Cookie stays a list.
  const headers = incoming.headers;
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get: (name) => {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
      getSetCookie: () => headers['set-cookie'] ?? [],
    },
    text: async () => body.toString('utf8'),
    json: async () => JSON.parse(body.toString('utf8')) as unknown,
  };
}
