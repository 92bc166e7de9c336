/**
 * The files bench's upload part: one 50 MB PNG-headed file (filesPayload.ts) streamed by the
 * same client, the same multipart bytes, to `POST /api/v1/pages/:id/files` (busboy, sniffing,
 * SHA-256, temporary file, row and rename) and to the raw server's `POST /upload` (the body
 * piped to a file with `createWriteStream`). One warm-up each, then `runs` runs each, the
 * order flipped every run so drift weighs on both alike; each upload is removed again between
 * runs, untimed (the API's through `DELETE /files/:id`). A plain in-process
 * `createWriteStream` of the file's bytes, no HTTP, runs alongside, for information.
 *
 * The API process's RSS is watched from before the first upload (the warm-up included, so
 * loading busboy and file-type counts against it) to the end of the last: its peak growth is
 * the figure, against ≤ +30 MB — a server holding the file would grow by 50 MB.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { TestClient } from '../../api/testing/testClient.ts';
import type { ApiBenchProcess } from './apiBenchProcess.ts';
import type { Row } from './benchTable.ts';
import { pngPayload, postMultipart, writeInProcess, type PayloadFile } from './filesPayload.ts';
import { describeThreadCpu, threadCpu, watchRss, type RawFilesServer, type RssWindow } from './filesServers.ts';
import { median } from './publicLoad.ts';

export const UPLOAD_BYTES = 50_000_000;
const RATIO_TARGET = 0.7;
const RSS_GROWTH_TARGET = 30e6;

export interface UploadContext {
  api: ApiBenchProcess;
  raw: RawFilesServer;
  /** Signed in as a writer of `pageId`; deletes the uploads between runs. */
  uploader: TestClient;
  pageId: string;
  /** The uploader's session cookie and the API's Origin, sent to both servers alike. */
  headers: Record<string, string>;
  workDir: string;
  runs: number;
}

interface Run {
  seconds: number;
  /** The server's CPU time over the upload, seconds (the in-process write: none measured). */
  serverCpu: number;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const signedMb = (bytes: number) => `${bytes < 0 ? '−' : '+'}${mb(Math.abs(bytes))}`;
const rate = (bytes: number, seconds: number) => bytes / 1e6 / seconds;

async function uploadToApi(context: UploadContext, file: PayloadFile): Promise<Run> {
  const before = await context.api.usage();
  const posted = await postMultipart(`${context.api.origin}/api/v1/pages/${context.pageId}/files`, file, context.headers);
  const after = await context.api.usage();
  if (posted.status !== 201) throw new Error(`the upload answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  const stored = JSON.parse(posted.body) as { id: string; sizeBytes: number; sha256: string };
  if (stored.sizeBytes !== file.size || stored.sha256 !== file.sha256) throw new Error(`the API stored ${stored.sizeBytes} bytes hashing ${stored.sha256}, not the file sent`);
  const removed = await context.uploader.request('DELETE', `/files/${stored.id}`);
  if (removed.status >= 300) throw new Error(`DELETE /files/${stored.id} answered ${removed.status}`);
  return { seconds: posted.seconds, serverCpu: (after.cpuMicros - before.cpuMicros) / 1e6 };
}

async function uploadToRaw(context: UploadContext, file: PayloadFile): Promise<Run> {
  const before = await context.raw.usage();
  const posted = await postMultipart(`${context.raw.origin}/upload`, file, context.headers);
  const after = await context.raw.usage();
  if (posted.status !== 201) throw new Error(`the raw upload answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  const { sizeBytes } = JSON.parse(posted.body) as { sizeBytes: number };
  if (sizeBytes !== posted.bodyBytes) throw new Error(`the raw server wrote ${sizeBytes} of ${posted.bodyBytes} bytes`);
  await context.raw.clear();
  return { seconds: posted.seconds, serverCpu: (after.cpuMicros - before.cpuMicros) / 1e6 };
}

async function writePlain(context: UploadContext, file: PayloadFile): Promise<Run> {
  const target = path.join(context.workDir, 'plain-write.png');
  const seconds = await writeInProcess(target, file);
  await rm(target, { force: true });
  return { seconds, serverCpu: 0 };
}

const variants = { api: uploadToApi, raw: uploadToRaw, plain: writePlain };
type Variant = keyof typeof variants;

function growth(window: RssWindow): number {
  return window.peak - window.before;
}

export async function uploadPart(context: UploadContext): Promise<{ rows: Row[]; notes: string[] }> {
  const file = pngPayload('Luftbild.png', UPLOAD_BYTES);
  const apiWarm = watchRss(context.api.pid);
  const rawWarm = watchRss(context.raw.pid);
  for (const name of ['api', 'raw', 'plain'] as const) await variants[name](context, file);
  const warm = { api: apiWarm.close(), raw: rawWarm.close() };
  const apiMeasured = watchRss(context.api.pid);
  const rawMeasured = watchRss(context.raw.pid);
  const threadsBefore = { api: threadCpu(context.api.pid), raw: threadCpu(context.raw.pid) };
  const runs: Record<Variant, Run[]> = { api: [], raw: [], plain: [] };
  for (let run = 0; run < context.runs; run += 1) {
    const order = run % 2 === 0 ? (['raw', 'api', 'plain'] as const) : (['api', 'raw', 'plain'] as const);
    for (const name of order) runs[name].push(await variants[name](context, file));
  }
  const threadsAfter = { api: threadCpu(context.api.pid), raw: threadCpu(context.raw.pid) };
  const measured = { api: apiMeasured.close(), raw: rawMeasured.close() };
  const heaps = { api: (await context.api.usage()).memory.heapUsed, raw: (await context.raw.usage()).memory.heapUsed };

  const speed = (name: Variant) => median(runs[name].map((one) => rate(file.size, one.seconds)));
  const ratio = speed('api') / speed('raw');
  // From before the warm-up to the highest point of any upload.
  const apiGrowth = Math.max(warm.api.peak, measured.api.peak) - warm.api.before;
  const rawGrowth = Math.max(warm.raw.peak, measured.raw.peak) - warm.raw.before;
  const rows: Row[] = [
    {
      target: `upload ${mb(file.size)}, median of ${context.runs}`,
      figure: `${speed('api').toFixed(0)} MB/s`,
      baseline: `${speed('raw').toFixed(0)} MB/s`,
      ratio: `${ratio.toFixed(2)}×`,
      goal: `≥ ${RATIO_TARGET}×`,
      met: ratio >= RATIO_TARGET,
    },
    {
      target: 'upload: server RSS growth (peak)',
      figure: signedMb(apiGrowth),
      baseline: signedMb(rawGrowth),
      ratio: '–',
      goal: `≤ +${mb(RSS_GROWTH_TARGET)}`,
      met: apiGrowth <= RSS_GROWTH_TARGET,
    },
    {
      target: 'plain createWriteStream, no HTTP (info)',
      figure: `${speed('plain').toFixed(0)} MB/s`,
      baseline: '–',
      ratio: `${(speed('api') / speed('plain')).toFixed(2)}× (API ÷ it)`,
      goal: '–',
      met: true,
    },
  ];
  const cpuShare = (name: Variant) => runs[name].reduce((sum, one) => sum + one.serverCpu, 0) / runs[name].reduce((sum, one) => sum + one.seconds, 0);
  const perMb = (name: Variant) => (median(runs[name].map((one) => one.serverCpu)) * 1e3) / (file.size / 1e6);
  const times = (name: Variant) => runs[name].map((one) => one.seconds.toFixed(3)).join(' / ');
  const uploadedMb = (context.runs * file.size) / 1e6;
  const notes = [
    `upload: a ${file.size.toLocaleString('en')}-byte .png (PNG signature, IHDR, IDAT of base64 filler), one multipart part, streamed from one 1 MiB block over a fresh connection; the same bytes to both servers`,
    `upload runs, s — API: ${times('api')}; raw: ${times('raw')}; plain write: ${times('plain')}`,
    `upload server CPU — API: ${(cpuShare('api') * 100).toFixed(0)} % of a core while uploading, ${perMb('api').toFixed(2)} ms CPU per MB; raw: ${(cpuShare('raw') * 100).toFixed(0)} %, ${perMb('raw').toFixed(2)} ms per MB`,
    `upload CPU by thread, ms per MB (the untimed deletes between runs included) — API: ${describeThreadCpu(threadsBefore.api, threadsAfter.api, uploadedMb)}; raw: ${describeThreadCpu(threadsBefore.raw, threadsAfter.raw, uploadedMb)}; heap used after: API ${mb(heaps.api)}, raw ${mb(heaps.raw)}`,
    `upload RSS (${measured.api.source}) — API: ${mb(warm.api.before)} before the warm-up, peak ${mb(warm.api.peak)} in it; ${mb(measured.api.before)} before the measured runs, peak ${mb(measured.api.peak)} in them (${signedMb(growth(measured.api))}), ${mb(measured.api.after)} after them; raw: ${mb(warm.raw.before)} → peak ${mb(Math.max(warm.raw.peak, measured.raw.peak))}, ${mb(measured.raw.after)} after`,
  ];
  return { rows, notes };
}
