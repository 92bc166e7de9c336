/**
 * `npm run bench:public` — the generated public layer, every figure against a baseline
 * measured in the same run.
 *
 * Processes: this one is the load generator (autocannon, in process) and hosts the scratch
 * Postgres and, for (c), the Graphile worker; the API process (publicBenchServer.ts `api`:
 * services, Express app and site, the public layer's hot path in front — as api/server.ts)
 * and the raw `node:http` baseline run in processes of their own. Where `taskset` exists
 * this process is pinned to one core and the servers to the other (printed at the start).
 *
 * (a) cache hits on `/:pondSlug/:pageSlug` (a ~30 KB HTML page, `Accept-Encoding: br`)
 *     against a raw server writing the same bytes and headers: ≥ 0.8× req/s, p99 ≤ 1.5×;
 * (b) 304 revalidation (`If-None-Match`) against the raw server answering 304: ≥ 0.9×;
 *     rounds of (a) and (b) alternate between baseline and subject (order flipped per round);
 * (c) a committed save (saveDerivedData, the real save path) until the API serves the new
 *     bytes (polling the URL until the ETag changes), worker running the real task list:
 *     p99 ≤ 1 s over ≥ 30 saves; a public grant revoked by the real command in the API
 *     process: the very next request answers 404;
 * (d) generating the page's document (generatePageDocument: load, Astro render, ETag; gzip
 *     and brotli are made at a variant's first request, timed apart) against the content
 *     pipeline's HTML render of the same document (documentToHtml): ≤ 3× (medians;
 *     regeneratePage, with its transaction and store, shown too), timed in the API process
 *     (publicGenerationTimings.ts);
 * (e) 10,000 public pages requested once each, cold (each generated on demand), then the
 *     API process's RSS: ≤ RSS before the pass + PUBLIC_CACHE_MB + 100 MB (peak, sampled every
 *     250 ms); then once more, from storage into the cache and past its budget: the same limit;
 * (f) the 404 of an existing private page against a missing page's, interleaved: medians
 *     within 10 % (publicNotFound.ts).
 *
 * Exits 0 when a target is missed (the table says so); only a crash exits non-zero.
 * `BENCH_PUBLIC_ROUNDS` (5), `BENCH_PUBLIC_SECONDS` (3), `BENCH_PUBLIC_SAVES` (40),
 * `BENCH_PUBLIC_PAGES` (10000), `PUBLIC_CACHE_MB` (64) shorten or change the run,
 * `BENCH_PUBLIC_PHASES` (abcdef) picks phases ((a) and (b) run together);
 * `BENCH_PROFILE_DIR` makes the servers write CPU profiles; `BENCH_NO_PIN=1` skips pinning.
 */
import { brotliDecompressSync } from 'node:zlib';
import { markdownToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../../api/documents/derivedData.ts';
import { createLogger } from '../../api/logger.ts';
import { Mailer } from '../../api/mail/mailer.ts';
import { GENERATION_DEBOUNCE_MS } from '../../api/publicPages/publicDocumentJob.ts';
import { startWorker } from '../../jobs/worker.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { privateVersusMissing } from './publicNotFound.ts';
import { compareInterleaved, captureResponse, fetchOnce, median, percentile, requestAll } from './publicLoad.ts';
import { type PublicBenchData, seedPublicBench } from './publicSeed.ts';
import { pinBenchProcess, startBenchServer, type BenchServer } from './publicServers.ts';

const ROUNDS = Number(process.env.BENCH_PUBLIC_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_PUBLIC_SECONDS ?? 3);
const SAVES = Number(process.env.BENCH_PUBLIC_SAVES ?? 40);
const REVOCATIONS = 10;
const ARCHIVE_PAGES = Number(process.env.BENCH_PUBLIC_PAGES ?? 10_000);
const CACHE_MB = Number(process.env.PUBLIC_CACHE_MB ?? 64);
/** `BENCH_PUBLIC_PHASES=ab` runs only (a) and (b) (e.g. while profiling the hot path). */
const PHASES = new Set(process.env.BENCH_PUBLIC_PHASES ?? 'abcdef');
/** wordPage.ts words for a page whose generated document is about 30 KB of HTML. */
const GUIDE_WORDS = 750;
const CONNECTIONS = 10;
const COLD_CONCURRENCY = 4;
/** The public origin every document names (a setting, so the worker and both processes generate the same bytes). */
const PUBLIC_ORIGIN = 'https://teich.example.org';
const BR = { 'accept-encoding': 'gzip, deflate, br' };

const rows: Row[] = [];
const notes: string[] = [];

const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const count = (value: number) => Math.round(value).toLocaleString('en');
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function started(label: string): () => void {
  const at = Date.now();
  process.stdout.write(`  … ${label}`);
  return () => process.stdout.write(` (${((Date.now() - at) / 1000).toFixed(1)} s)\n`);
}

async function throughput(api: BenchServer, raw: BenchServer, data: PublicBenchData): Promise<void> {
  const captured = await captureResponse(api, data.guide.path, BR);
  await raw.respond(captured);
  const html = await fetchOnce(api.origin, data.guide.path, { 'accept-encoding': 'identity' });
  notes.push(`page ${data.guide.path}: ${count(html.body.length)} bytes of HTML, ${count(captured.bodyBytes)} bytes brotli; ${Object.keys(captured.ok.headers).length} response headers replayed by the raw server`);
  const load = { rounds: ROUNDS, warmup: 1, duration: SECONDS, connections: CONNECTIONS };
  let done = started(`(a) cache hits, ${ROUNDS} × ${SECONDS} s per server, interleaved`);
  const hits = await compareInterleaved({ baseline: raw, subject: api }, { ...load, path: data.guide.path, headers: BR, expectStatus: 200 });
  done();
  done = started(`(b) 304 revalidation, ${ROUNDS} × ${SECONDS} s per server, interleaved`);
  const revalidations = await compareInterleaved({ baseline: raw, subject: api }, { ...load, path: data.guide.path, headers: { ...BR, 'if-none-match': captured.etag }, expectStatus: 304 });
  done();
  for (const [label, result] of [['(a)', hits], ['(b)', revalidations]] as const) {
    for (const [name, summary] of Object.entries(result)) {
      notes.push(
        `${label} ${name.padEnd(8)} rounds ${summary.roundRps.map(count).join(' / ')} req/s; p50 ${ms(summary.p50)}; ${count(summary.requests)} requests, ${summary.unexpected} unexpected; server busy ${(summary.serverCpu * 100).toFixed(0)} % of a core, ${summary.cpuPerRequest.toFixed(1)} µs CPU per request`,
      );
    }
  }
  const rpsRow = (target: string, result: typeof hits, goal: number) =>
    rows.push({ target, figure: `${count(result.subject.rps)} req/s`, baseline: `${count(result.baseline.rps)} req/s`, ratio: (result.subject.rps / result.baseline.rps).toFixed(2), goal: `≥ ${goal}×`, met: result.subject.rps / result.baseline.rps >= goal && result.subject.unexpected === 0 });
  for (const [label, result] of [['(a)', hits], ['(b)', revalidations]] as const) {
    notes.push(`${label} server CPU per request, subject ÷ baseline: ${(result.subject.cpuPerRequest / result.baseline.cpuPerRequest).toFixed(2)}× (the server's own cost, whichever side was the limit)`);
  }
  rpsRow('(a) cache hit, br, req/s', hits, 0.8);
  rows.push({ target: '(a) cache hit p99', figure: ms(hits.subject.p99), baseline: ms(hits.baseline.p99), ratio: (hits.subject.p99 / hits.baseline.p99).toFixed(2), goal: '≤ 1.5×', met: hits.subject.p99 / hits.baseline.p99 <= 1.5 });
  rpsRow('(b) 304 revalidation, req/s', revalidations, 0.9);
}

async function generation(api: BenchServer, data: PublicBenchData): Promise<void> {
  // Steady state, as in a worker that has generated documents for a while: 50 warm-up runs
  // each before 200 timed ones (with 5 the layout's code was not yet optimized).
  const warmup = 50;
  const runs = 200;
  const done = started(`(d) generation against the pipeline render, and its parts, in the API process, ${runs} runs each after ${warmup} warm-up runs, alternating`);
  const timings = await api.measureGeneration({ pageId: data.guide.pageId, markdown: data.guide.markdown, fallbackBaseUrl: PUBLIC_ORIGIN, runs, warmup });
  done();
  const { render, saveRender, generate, regenerate, load, astro, encode, compress } = timings;
  const ratio = generate.median / render.median;
  rows.push({ target: '(d) generate one document', figure: `${ms(generate.median)} (p95 ${ms(generate.p95)})`, baseline: `${ms(render.median)} (p95 ${ms(render.p95)})`, ratio: ratio.toFixed(2), goal: '≤ 3×', met: ratio <= 3 });
  notes.push(
    `(d) its parts (medians): data load ${ms(load.median)} (queries and placeholder expansion), Astro layout render ${ms(astro.median)}, bytes + ETag ${ms(encode.median)}; ` +
      `without the database (render + encode) ${((astro.median + encode.median) / render.median).toFixed(2)}× the pipeline render; ` +
      `brotli + gzip, made at each variant's first request instead: ${ms(compress.median)}`,
    `(d) CPU time (user + system, every thread of the process): generation ${ms(timings.cpu.generate)}, pipeline render ${ms(timings.cpu.render)}, ${(timings.cpu.generate / timings.cpu.render).toFixed(2)}× (the API process's own part; Postgres' work for the statement is in the other process)`,
    `(d) against the whole save-time render (renderDocument: HTML + Markdown + extraction, ${ms(saveRender.median)}): ${(generate.median / saveRender.median).toFixed(2)}×`,
    `(d) regeneratePage (site settings, transaction, lock, generate, store of unchanged bytes): median ${ms(regenerate.median)}, p95 ${ms(regenerate.p95)} (${(regenerate.median / render.median).toFixed(2)}× the render)`,
  );
}

async function freshness(api: BenchServer, data: PublicBenchData, database: Awaited<ReturnType<typeof openBenchDatabase>>): Promise<void> {
  const { sequelize } = database;
  const logger = createLogger(process.env.BENCH_LOG_LEVEL ?? 'error', 'worker');
  const worker = await startWorker({ databaseUrl: database.url, sequelize, dataDir: '/nonexistent-bench-data', logger, mailer: new Mailer({ fallback: null, logger }), baseUrl: PUBLIC_ORIGIN, sessionSecret: 'bench-session-secret-0123456789abcdef' });
  try {
    let done = started(`(c) ${SAVES} saves until the new bytes are served`);
    const latencies: number[] = [];
    let wrongBytes = 0;
    let etag = (await fetchOnce(api.origin, data.guide.path, BR)).headers.etag;
    for (let save = 1; save <= SAVES; save += 1) {
      const marker = `Fassung ${save} vom Bench`;
      const document = markdownToDocument(`${data.guide.markdown}\n\n${marker}.\n`);
      await saveDerivedData(sequelize, { pageId: data.guide.pageId, document, authorIds: [data.ownerId] });
      const committed = process.hrtime.bigint();
      for (;;) {
        const response = await fetchOnce(api.origin, data.guide.path, BR);
        if (response.headers.etag !== etag) {
          latencies.push(Number(process.hrtime.bigint() - committed) / 1e6);
          etag = response.headers.etag;
          if (!brotliDecompressSync(response.body).toString('utf8').includes(marker)) wrongBytes += 1;
          break;
        }
        if (Number(process.hrtime.bigint() - committed) > 10e9) throw new Error(`save ${save}: the new bytes were not served within 10 s`);
        await sleep(2);
      }
    }
    done();
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = percentile(sorted, 0.99);
    rows.push({ target: `(c) save → new bytes served, p99 of ${latencies.length}`, figure: ms(p99), baseline: '—', ratio: '—', goal: '≤ 1000 ms', met: p99 <= 1000 && wrongBytes === 0 });
    notes.push(`(c) save → served: median ${ms(median(sorted))}, p95 ${ms(percentile(sorted, 0.95))}, max ${ms(sorted.at(-1)!)} (the worker waits ${GENERATION_DEBOUNCE_MS} ms for more changes first); ${wrongBytes} served without the saved text`);

    done = started(`(c) ${REVOCATIONS} public grants revoked in the API process`);
    let nextIs404 = 0;
    const revokeTimes: number[] = [];
    for (let i = 0; i < REVOCATIONS; i += 1) {
      const grantId = await api.grant(data.revocable.pondId, data.ownerId);
      const generated = await fetchOnce(api.origin, data.revocable.path, BR);
      const cached = await fetchOnce(api.origin, data.revocable.path, BR);
      if (generated.status !== 200 || cached.status !== 200) throw new Error(`the granted page answered ${generated.status}, then ${cached.status}`);
      const revoking = process.hrtime.bigint();
      await api.revoke(data.revocable.pondId, grantId, data.ownerId);
      revokeTimes.push(Number(process.hrtime.bigint() - revoking) / 1e6);
      if ((await fetchOnce(api.origin, data.revocable.path, BR)).status === 404) nextIs404 += 1;
    }
    done();
    rows.push({ target: '(c) revoked grant → next request 404', figure: `${nextIs404} of ${REVOCATIONS}`, baseline: '—', ratio: '—', goal: 'all', met: nextIs404 === REVOCATIONS });
    notes.push(`(c) the revoking command (deleteGrant, its transaction deleting the documents) took median ${ms(median(revokeTimes))}; the 404 was asked for right after it returned, on the same API process`);
  } finally {
    await worker.stop();
  }
}

/** Requests every path once while sampling the API process's RSS; its peak and the usage after. */
async function pass(api: BenchServer, paths: readonly string[], label: string) {
  const before = await api.usage();
  let peak = before.memory.rss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, (await api.usage()).memory.rss);
      await sleep(250);
    }
  })();
  const done = started(label);
  const passStarted = process.hrtime.bigint();
  const { times, statuses } = await requestAll(api.origin, paths, BR, COLD_CONCURRENCY);
  const seconds = Number(process.hrtime.bigint() - passStarted) / 1e9;
  sampling = false;
  await sampler;
  done();
  const after = await api.usage();
  peak = Math.max(peak, after.memory.rss);
  const sorted = times.sort((a, b) => a - b);
  const ok = statuses.get(200) ?? 0;
  const summary = `${count(ok)} of ${count(times.length)} answered 200 in ${seconds.toFixed(1)} s (${count(times.length / seconds)} pages/s); per request median ${ms(percentile(sorted, 0.5))}, p99 ${ms(percentile(sorted, 0.99))}`;
  return { after, peak, allOk: ok === times.length, summary };
}

async function memory(api: BenchServer, data: PublicBenchData): Promise<void> {
  // One archive page first, so the before figure already holds what any generation loads.
  await fetchOnce(api.origin, data.archive.paths[0]!, BR);
  const before = await api.usage();
  const limit = before.memory.rss + CACHE_MB * 1024 * 1024 + 100 * 1024 * 1024;
  const pages = count(data.archive.paths.length);
  const cold = await pass(api, data.archive.paths, `(e) cold pass over ${pages} pages (each generated on demand), ${COLD_CONCURRENCY} at a time`);
  // The cold pass leaves few documents cached (see the notes): a second pass reads them all
  // from storage into the cache, past its budget, which is what the budget is for.
  const warm = await pass(api, data.archive.paths, `(e) second pass over ${pages} pages (from storage into the cache)`);
  const collected = await api.usage(true);
  const goal = `≤ ${mb(limit)}`;
  rows.push({ target: `(e) RSS after the cold pass (peak)`, figure: `${mb(cold.after.memory.rss)} (${mb(cold.peak)})`, baseline: `${mb(before.memory.rss)} before`, ratio: '—', goal, met: cold.peak <= limit && cold.allOk });
  rows.push({ target: `(e) RSS after the second pass (peak)`, figure: `${mb(warm.after.memory.rss)} (${mb(warm.peak)})`, baseline: `${mb(before.memory.rss)} before`, ratio: '—', goal, met: warm.peak <= limit && warm.allOk });
  const cacheOf = (usage: typeof before) => `${count(usage.cache!.entries)} documents, ${mb(usage.cache!.usedBytes)} of ${mb(usage.cache!.budgetBytes)}`;
  const heapOf = (usage: typeof before) => `heap ${mb(usage.memory.heapUsed)} used of ${mb(usage.memory.heapTotal)}, external ${mb(usage.memory.external)} (array buffers ${mb(usage.memory.arrayBuffers)})`;
  notes.push(
    `(e) limit ${mb(limit)} = RSS before (${mb(before.memory.rss)}) + PUBLIC_CACHE_MB ${CACHE_MB} MB + 100 MB; before: ${heapOf(before)}`,
    `(e) cold pass: ${cold.summary}; cache then ${cacheOf(cold.after)}; ${heapOf(cold.after)}`,
    `(e) second pass: ${warm.summary}; cache then ${cacheOf(warm.after)}; ${heapOf(warm.after)}`,
    `(e) after a full garbage collection: RSS ${mb(collected.memory.rss)}, ${heapOf(collected)}`,
  );
}

const pinning = pinBenchProcess();
const benchStarted = Date.now();
console.log(`bench:public — pinning: ${pinning.description}`);
const database = await openBenchDatabase();
const servers: BenchServer[] = [];
try {
  let done = started(`seeding (the guide page, ${count(ARCHIVE_PAGES)} archive pages)`);
  const data = await seedPublicBench(database.sequelize, { guideWords: GUIDE_WORDS, archivePages: ARCHIVE_PAGES, publicOrigin: PUBLIC_ORIGIN });
  done();
  done = started('starting the API process and the raw server');
  const [api, raw] = await Promise.all([
    startBenchServer('api', pinning, { DATABASE_URL: database.url, PUBLIC_CACHE_MB: String(CACHE_MB) }),
    startBenchServer('raw', pinning, {}),
  ]);
  servers.push(api, raw);
  done();
  console.log(`  api pid ${api.pid} on cpus ${api.cpus}, raw pid ${raw.pid} on cpus ${raw.cpus}; autocannon ${CONNECTIONS} connections; PUBLIC_CACHE_MB=${CACHE_MB}`);
  const first = await fetchOnce(api.origin, data.guide.path, BR);
  if (first.status !== 200) throw new Error(`the guide page answered ${first.status}`);
  if (PHASES.has('a') || PHASES.has('b')) await throughput(api, raw, data);
  if (PHASES.has('d')) await generation(api, data);
  if (PHASES.has('c')) await freshness(api, data, database);
  if (PHASES.has('e')) await memory(api, data);
  if (PHASES.has('f')) await privateVersusMissing(api, data, rows, ms);
  console.log('');
  printTable(rows);
  console.log('');
  for (const note of notes) console.log(`  ${note}`);
  console.log(`  whole run ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
} finally {
  await Promise.all(servers.map((server) => server.close()));
  await database.close();
}
