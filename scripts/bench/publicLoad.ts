/**
 * Load for the public bench: single requests over `node:http` (a keep-alive agent, bytes as
 * sent — no content decoding), the raw baseline's answer captured from the API's own, and
 * autocannon rounds alternating between a baseline and a subject server, with exact
 * per-request latencies (autocannon's own percentiles are whole milliseconds) and the
 * server's CPU share, which says whether the server or the load generator was the limit.
 */
import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import autocannon from 'autocannon';
import type { RawResponse } from './publicBenchServer.ts';
import type { BenchServer } from './publicServers.ts';

export interface Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  /** Header names as sent, with their values (for replaying them). */
  rawHeaders: string[];
  body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function fetchOnce(origin: string, path: string, headers: Record<string, string> = {}): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Added by node:http itself on every response; the raw server's node adds them just the same. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function replayable(fetched: Fetched): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (let i = 0; i < fetched.rawHeaders.length; i += 2) {
    const name = fetched.rawHeaders[i]!;
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers[name] = fetched.rawHeaders[i + 1]!;
  }
  return headers;
}

/** The API's 200 and 304 for `path` with `requestHeaders`, as the raw server will replay them. */
export async function captureResponse(api: BenchServer, path: string, requestHeaders: Record<string, string>): Promise<RawResponse & { bodyBytes: number }> {
  const ok = await fetchOnce(api.origin, path, requestHeaders);
  if (ok.status !== 200) throw new Error(`GET ${path} answered ${ok.status}`);
  const etag = ok.headers.etag!;
  const notModified = await fetchOnce(api.origin, path, { ...requestHeaders, 'if-none-match': etag });
  if (notModified.status !== 304) throw new Error(`GET ${path} with If-None-Match answered ${notModified.status}`);
  return { etag, ok: { headers: replayable(ok), bodyBase64: ok.body.toString('base64') }, notModified: { headers: replayable(notModified) }, bodyBytes: ok.body.length };
}

export interface LoadOptions {
  path: string;
  headers: Record<string, string>;
  /** Seconds per round. */
  duration: number;
  connections: number;
  expectStatus: number;
}

export interface RoundResult {
  requests: number;
  seconds: number;
  latencies: number[];
  /** Responses with another status than expected, and socket errors. */
  unexpected: number;
  /** Server CPU seconds spent over the round. */
  serverCpuSeconds: number;
}

/** What a round needs of a server: where it listens and its CPU time (bench:api's API process has no more than that). */
export type LoadTarget = Pick<BenchServer, 'origin'> & { usage(): Promise<{ cpuMicros: number }> };

export async function loadRound(server: LoadTarget, options: LoadOptions): Promise<RoundResult> {
  const latencies: number[] = [];
  let unexpected = 0;
  const before = await server.usage();
  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: `${server.origin}${options.path}`, headers: options.headers, connections: options.connections, duration: options.duration },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      if (statusCode !== options.expectStatus) unexpected += 1;
    });
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = await server.usage();
  return { requests: latencies.length, seconds, latencies, unexpected: unexpected + result.errors, serverCpuSeconds: (after.cpuMicros - before.cpuMicros) / 1e6 };
}

export interface Summary {
  /** Median over the rounds of requests per second. */
  rps: number;
  roundRps: number[];
  p50: number;
  p99: number;
  requests: number;
  unexpected: number;
  /** Server CPU time ÷ wall time (1 = one core busy throughout; well below: the load generator was the limit, or the core was shared). */
  serverCpu: number;
  /** Server CPU time per request, microseconds: the server's cost, whoever was the limit. */
  cpuPerRequest: number;
}

/** Percentile of an ascending array (nearest rank). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * fraction) - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

export function summarize(rounds: RoundResult[]): Summary {
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b);
  const roundRps = rounds.map((round) => round.requests / round.seconds);
  return {
    rps: median(roundRps),
    roundRps,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests: latencies.length,
    unexpected: rounds.reduce((sum, round) => sum + round.unexpected, 0),
    serverCpu: rounds.reduce((sum, round) => sum + round.serverCpuSeconds, 0) / rounds.reduce((sum, round) => sum + round.seconds, 0),
    cpuPerRequest: (rounds.reduce((sum, round) => sum + round.serverCpuSeconds, 0) * 1e6) / latencies.length,
  };
}

/**
 * One warm-up round each, then `rounds` rounds of each, the order flipped every round
 * (baseline-subject, subject-baseline, …) so drift weighs on both alike.
 */
export async function compareInterleaved(servers: { baseline: BenchServer; subject: BenchServer }, options: LoadOptions & { rounds: number; warmup: number }): Promise<{ baseline: Summary; subject: Summary }> {
  await loadRound(servers.baseline, { ...options, duration: options.warmup });
  await loadRound(servers.subject, { ...options, duration: options.warmup });
  const results = { baseline: [] as RoundResult[], subject: [] as RoundResult[] };
  for (let round = 0; round < options.rounds; round += 1) {
    const order = round % 2 === 0 ? (['baseline', 'subject'] as const) : (['subject', 'baseline'] as const);
    for (const name of order) results[name].push(await loadRound(servers[name], options));
  }
  return { baseline: summarize(results.baseline), subject: summarize(results.subject) };
}

/** Requests over many paths, `concurrency` at a time, each timed (ms); statuses counted. */
export async function requestAll(origin: string, paths: readonly string[], headers: Record<string, string>, concurrency: number): Promise<{ times: number[]; statuses: Map<number, number> }> {
  const times: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const lane = async () => {
    while (next < paths.length) {
      const path = paths[next]!;
      next += 1;
      const started = process.hrtime.bigint();
      const { status } = await fetchOnce(origin, path, headers);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { times, statuses };
}
