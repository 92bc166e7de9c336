/**
 * The files bench's media part: a 1 MB PNG-headed file uploaded once, then
 * `GET /api/v1/media/:id` with the uploader's session (access check, the whole file re-hashed,
 * then streamed) against the raw server streaming the same bytes from a file of its own with
 * `createReadStream` (Content-Type and Content-Length, nothing else). autocannon, the same
 * connections and duration for both, a warm-up round each, then rounds alternating
 * (publicLoad.ts). Both answers are checked first: status 200 and the uploaded bytes.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ApiBenchProcess } from './apiBenchProcess.ts';
import type { Row } from './benchTable.ts';
import { pngPayload, postMultipart, writeInProcess } from './filesPayload.ts';
import { describeThreadCpu, threadCpu, type RawFilesServer } from './filesServers.ts';
import { fetchOnce, loadRound, summarize, type LoadOptions, type LoadTarget, type RoundResult, type Summary } from './publicLoad.ts';

export const MEDIA_BYTES = 1_000_000;
const RATIO_TARGET = 0.5;

export interface MediaContext {
  api: ApiBenchProcess;
  raw: RawFilesServer;
  pageId: string;
  /** The uploader's session cookie and the API's Origin; the loads send the cookie alone. */
  headers: Record<string, string>;
  workDir: string;
  rounds: number;
  seconds: number;
  connections: number;
}

const count = (value: number) => Math.round(value).toLocaleString('en');
const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;

function describe(label: string, summary: Summary): string {
  return `${label}: rounds ${summary.roundRps.map(count).join(' / ')} req/s; p50 ${ms(summary.p50)}, p99 ${ms(summary.p99)}; ${count(summary.requests)} requests, ${summary.unexpected} unexpected; server busy ${(summary.serverCpu * 100).toFixed(0)} % of a core, ${count(summary.cpuPerRequest)} µs CPU per request`;
}

export async function mediaPart(context: MediaContext): Promise<{ rows: Row[]; notes: string[] }> {
  const file = pngPayload('Seerose.png', MEDIA_BYTES);
  const posted = await postMultipart(`${context.api.origin}/api/v1/pages/${context.pageId}/files`, file, context.headers);
  if (posted.status !== 201) throw new Error(`the media upload answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  const { url } = JSON.parse(posted.body) as { url: string };
  const rawCopy = path.join(context.workDir, 'media.png');
  await writeInProcess(rawCopy, file);
  await context.raw.serve(rawCopy, 'image/png');

  const cookie = { cookie: context.headers.cookie! };
  const cases: Record<'api' | 'raw', { target: LoadTarget; path: string }> = {
    api: { target: context.api, path: url },
    raw: { target: context.raw, path: '/media' },
  };
  for (const [name, { target, path: route }] of Object.entries(cases)) {
    const answer = await fetchOnce(target.origin, route, cookie);
    const sha256 = createHash('sha256').update(answer.body).digest('hex');
    if (answer.status !== 200 || sha256 !== file.sha256) throw new Error(`${name} GET ${route} answered ${answer.status} with ${answer.body.length} bytes that are not the file`);
  }

  const options = (route: string): LoadOptions => ({ path: route, headers: cookie, duration: context.seconds, connections: context.connections, expectStatus: 200 });
  const round = (name: 'api' | 'raw', duration = context.seconds) => loadRound(cases[name].target, { ...options(cases[name].path), duration });
  await round('raw', 1);
  await round('api', 1);
  const threadsBefore = { api: threadCpu(context.api.pid), raw: threadCpu(context.raw.pid) };
  const results: Record<'api' | 'raw', RoundResult[]> = { api: [], raw: [] };
  for (let index = 0; index < context.rounds; index += 1) {
    const order = index % 2 === 0 ? (['raw', 'api'] as const) : (['api', 'raw'] as const);
    for (const name of order) results[name].push(await round(name));
  }
  const threadsAfter = { api: threadCpu(context.api.pid), raw: threadCpu(context.raw.pid) };
  const api = summarize(results.api);
  const raw = summarize(results.raw);
  const ratio = api.rps / raw.rps;
  const rows: Row[] = [
    {
      target: `GET /media ${(MEDIA_BYTES / 1e6).toFixed(0)} MB (re-hash, send)`,
      figure: `${count(api.rps)} req/s`,
      baseline: `${count(raw.rps)} req/s`,
      ratio: `${ratio.toFixed(2)}×`,
      goal: `≥ ${RATIO_TARGET}×`,
      met: ratio >= RATIO_TARGET && api.unexpected === 0 && raw.unexpected === 0,
    },
  ];
  const notes = [
    `media: ${context.connections} connections, ${context.rounds} × ${context.seconds} s per server after a 1 s warm-up each, alternating; the API with the session cookie, ${url}`,
    describe('media API', api),
    describe('media raw', raw),
    `media CPU by thread, ms per request — API: ${describeThreadCpu(threadsBefore.api, threadsAfter.api, api.requests)}; raw: ${describeThreadCpu(threadsBefore.raw, threadsAfter.raw, raw.requests)}`,
    `media: ${((api.rps * MEDIA_BYTES) / 1e6).toFixed(0)} MB/s from the API, ${((raw.rps * MEDIA_BYTES) / 1e6).toFixed(0)} MB/s from the raw server; server CPU per request API ÷ raw ${(api.cpuPerRequest / raw.cpuPerRequest).toFixed(2)}×`,
  ];
  return { rows, notes };
}
