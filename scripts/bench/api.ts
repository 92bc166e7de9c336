/**
 * `npm run bench:api` — the public REST API and MCP next to the internal API, every figure
 * against a baseline measured in the same run.
 *
 * Processes: this one is the load generator (autocannon and `fetch`, in process) and hosts
 * the scratch Postgres; the API process (apiBenchServer.ts, assembled as api/server.ts) runs
 * in a process of its own. Where `taskset` exists this process is pinned to one core and the
 * API process to the other (printed at the start). One pond of 10,000 pages (apiSeed.ts); every
 * request is a member's who is no pond admin, with page denies hiding 10 % of the pages, so the
 * permission filter runs. REST and MCP use the member's read token, the internal API their
 * session. `API_RATE_LIMIT_PER_MINUTE` is set high: the limiter counts every request, as
 * shipped, but never refuses one.
 *
 * (a) REST `GET /api/public/v1/ponds/:pond/pages/:page` (Markdown, 5,000 words) against the
 *     internal `GET /api/v1/pages/:id` of the same page: autocannon req/s, same connections and
 *     duration, rounds interleaved. The internal API has no route answering a page's Markdown
 *     (the editor loads the body over the collaboration socket), so its read answers the
 *     page's metadata only; the embed view `GET /api/v1/read/:pond/:page` (the HTML body) is
 *     shown beside it for information.
 * (b) REST `GET …/ponds/:pond/pages?limit=N` against the internal `GET /api/v1/ponds/:id/pages`
 *     with the same limit: req/s. Both lists are walked whole first and must agree.
 * (c) MCP `read_page` through a real `POST /api/mcp` (a JSON-RPC `tools/call`, JSON answer)
 *     against the REST read of the same page, one request at a time, alternating:
 *     target p50 ≤ 1.5× (and a real SDK client's one-time connect, for information).
 * (d) The per-token rate limiter's share of a REST read (apiLimiter.ts): target ≤ 5 %.
 *
 * Exits 0 when a target is missed (the table says so); only a crash exits non-zero.
 * `BENCH_API_ROUNDS` (3), `BENCH_API_SECONDS` (3), `BENCH_API_RUNS` (300), `BENCH_API_LIST_LIMIT`
 * (100) shorten or change the run; `BENCH_API_PARTS` (abcd) picks parts; `BENCH_NO_PIN=1` skips pinning;
 * `BENCH_PROFILE_DIR` makes the API process write a V8 CPU profile there.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startApiBenchProcess, type ApiBenchProcess } from './apiBenchProcess.ts';
import { limiterPart } from './apiLimiter.ts';
import { bearer, compareCases, getJson, mcpToolCall, timedFetch, toolResultOf, walkList } from './apiRequests.ts';
import { type ApiBenchData, seedApiBench } from './apiSeed.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { median, percentile, type Summary } from './publicLoad.ts';
import { pinBenchProcess } from './publicServers.ts';

const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 3);
const RUNS = Number(process.env.BENCH_API_RUNS ?? 300);
const WARMUP_RUNS = 50;
const LIST_LIMIT = Number(process.env.BENCH_API_LIST_LIMIT ?? 100);
const PARTS = new Set(process.env.BENCH_API_PARTS ?? 'abcd');
const CONNECTIONS = 10;
const WORDS = 5_000;
const PAGES = 10_000;
const DENIED_SHARE = 0.1;
const MCP_P50_TARGET = 1.5;
const CONNECTS = 20;

const rows: Row[] = [];
const notes: string[] = [];

const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
const count = (value: number) => Math.round(value).toLocaleString('en');
const kb = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(1)} KB`;

function started(label: string): () => void {
  const at = Date.now();
  process.stdout.write(`  … ${label}`);
  return () => process.stdout.write(` (${((Date.now() - at) / 1000).toFixed(1)} s)\n`);
}

interface PageDetail {
  id: string;
  content: string;
  format: string;
}

function describeRounds(label: string, summary: Summary): string {
  return `${label}: rounds ${summary.roundRps.map(count).join(' / ')} req/s; p50 ${ms(summary.p50)}, p99 ${ms(summary.p99)}; ${count(summary.requests)} requests, ${summary.unexpected} unexpected; server busy ${(summary.serverCpu * 100).toFixed(0)} % of a core, ${count(summary.cpuPerRequest)} µs CPU per request`;
}

function rpsRow(target: string, subject: Summary, baseline: Summary): Row {
  // No throughput target in the issue: the ratio is the figure. Unexpected statuses still fail the row.
  return { target, figure: `${count(subject.rps)} req/s`, baseline: `${count(baseline.rps)} req/s`, ratio: `${(subject.rps / baseline.rps).toFixed(2)}×`, goal: '–', met: subject.unexpected === 0 && baseline.unexpected === 0 };
}

async function readThroughput(api: ApiBenchProcess, data: ApiBenchData, paths: { rest: string; internal: string; embed: string }): Promise<void> {
  const load = { rounds: ROUNDS, seconds: SECONDS, warmup: 1, connections: CONNECTIONS };
  const done = started(`(a) page read, ${ROUNDS} × ${SECONDS} s per path, ${CONNECTIONS} connections, interleaved`);
  const session = { cookie: data.member.cookie };
  const result = await compareCases(api, { rest: { path: paths.rest, headers: bearer(data.token.secret) }, internal: { path: paths.internal, headers: session }, embed: { path: paths.embed, headers: session } }, load);
  done();
  rows.push(rpsRow('(a) REST read, Markdown 5,000 words', result.rest, result.internal));
  rows.push({ ...rpsRow('(a) internal embed view, HTML body (info)', result.embed, result.internal), target: '(a) internal GET /read, HTML body (info)' });
  notes.push(
    '(a) baseline: the internal GET /api/v1/pages/:id (metadata, no body) — no internal route answers a page\'s Markdown; the editor loads the body over the collaboration socket',
    describeRounds('(a) REST read    ', result.rest),
    describeRounds('(a) internal read', result.internal),
    describeRounds('(a) internal /read', result.embed),
    `(a) server CPU per request, REST ÷ internal: ${(result.rest.cpuPerRequest / result.internal.cpuPerRequest).toFixed(2)}×`,
  );
}

async function listThroughput(api: ApiBenchProcess, data: ApiBenchData, origin: string): Promise<void> {
  const restPath = `/api/public/v1/ponds/${data.pond.slug}/pages?limit=${LIST_LIMIT}`;
  const internalPath = `/api/v1/ponds/${data.pond.id}/pages?limit=${LIST_LIMIT}`;
  const session = { cookie: data.member.cookie };
  // Correct first: both lists whole, and their first pages, must be the member's readable pages.
  const restIds = await walkList(`${origin}/api/public/v1/ponds/${data.pond.slug}/pages?limit=1000`, bearer(data.token.secret));
  const internalIds = await walkList(`${origin}/api/v1/ponds/${data.pond.id}/pages?limit=1000`, session);
  const expected = data.pageCount - data.deniedPages;
  if (restIds.length !== expected || internalIds.join() !== restIds.join()) throw new Error(`REST listed ${restIds.length} pages, internal ${internalIds.length}; expected ${expected}, the same in the same order`);
  const firstRest = await getJson<{ items: { id: string }[] }>(`${origin}${restPath}`, bearer(data.token.secret));
  const firstInternal = await getJson<{ items: { id: string }[] }>(`${origin}${internalPath}`, session);
  if (firstRest.items.length !== LIST_LIMIT || firstRest.items.map((item) => item.id).join() !== firstInternal.items.map((item) => item.id).join()) throw new Error('the first pages of the two lists differ');
  const load = { rounds: ROUNDS, seconds: SECONDS, warmup: 1, connections: CONNECTIONS };
  const done = started(`(b) page list, limit ${LIST_LIMIT}, ${ROUNDS} × ${SECONDS} s per path, ${CONNECTIONS} connections, interleaved`);
  const result = await compareCases(api, { rest: { path: restPath, headers: bearer(data.token.secret) }, internal: { path: internalPath, headers: session } }, load);
  done();
  rows.push(rpsRow(`(b) REST list, ${LIST_LIMIT} of ${count(expected)} readable`, result.rest, result.internal));
  notes.push(
    `(b) ${count(data.pageCount)} pages, ${count(data.deniedPages)} hidden from the member by page denies; both lists walked whole (1,000 per request) agree on ${count(expected)} pages in the same order`,
    describeRounds('(b) REST list    ', result.rest),
    describeRounds('(b) internal list', result.internal),
    `(b) server CPU per request, REST ÷ internal: ${(result.rest.cpuPerRequest / result.internal.cpuPerRequest).toFixed(2)}× (REST adds each item's parent slug and URL)`,
  );
}

/** REST reads of the page, one at a time; shared by (c) and (d). */
export function restRead(origin: string, data: ApiBenchData, restPath: string) {
  return async () => {
    const answer = await timedFetch(`${origin}${restPath}`, { headers: bearer(data.token.secret) });
    if (answer.status !== 200) throw new Error(`REST read answered ${answer.status}`);
    return answer.ms;
  };
}

async function mcpLatency(origin: string, data: ApiBenchData, restPath: string, restPage: PageDetail): Promise<void> {
  const args = { pond: data.pond.slug, page: data.page.slug };
  const first = await mcpToolCall(origin, data.token.secret, 'read_page', args);
  const viaMcp = toolResultOf<PageDetail>(first);
  if (viaMcp.content !== restPage.content || viaMcp.id !== restPage.id) throw new Error('MCP read_page and the REST read disagree on the page');
  const rest = restRead(origin, data, restPath);
  const mcp = async () => {
    const answer = await mcpToolCall(origin, data.token.secret, 'read_page', args);
    if (answer.status !== 200) throw new Error(`MCP answered ${answer.status}`);
    return answer.ms;
  };
  const done = started(`(c) MCP read_page and the REST read, one at a time, ${RUNS} each after ${WARMUP_RUNS} warm-up, alternating`);
  const samples = { mcp: [] as number[], rest: [] as number[] };
  for (let run = 0; run < WARMUP_RUNS + RUNS; run += 1) {
    const order = run % 2 === 0 ? (['mcp', 'rest'] as const) : (['rest', 'mcp'] as const);
    for (const name of order) {
      const took = await (name === 'mcp' ? mcp() : rest());
      if (run >= WARMUP_RUNS) samples[name].push(took);
    }
  }
  done();
  // What an agent's client pays once, before its first call: initialize, then the initialized notification.
  const connects: number[] = [];
  for (let i = 0; i < CONNECTS; i += 1) {
    const client = new Client({ name: 'bench-api', version: '1' });
    const begun = process.hrtime.bigint();
    await client.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', origin), { requestInit: { headers: bearer(data.token.secret) } }));
    connects.push(Number(process.hrtime.bigint() - begun) / 1e6);
    await client.close();
  }
  const sorted = { mcp: samples.mcp.sort((a, b) => a - b), rest: samples.rest.sort((a, b) => a - b) };
  const ratio = percentile(sorted.mcp, 0.5) / percentile(sorted.rest, 0.5);
  rows.push({
    target: '(c) MCP read_page p50 (p95)',
    figure: `${ms(percentile(sorted.mcp, 0.5))} (${ms(percentile(sorted.mcp, 0.95))})`,
    baseline: `${ms(percentile(sorted.rest, 0.5))} (${ms(percentile(sorted.rest, 0.95))})`,
    ratio: `${ratio.toFixed(2)}×`,
    goal: `≤ ${MCP_P50_TARGET}×`,
    met: ratio <= MCP_P50_TARGET,
  });
  rows.push({ target: `(c) SDK client connect, once (info)`, figure: `${ms(median(connects))} (median)`, baseline: '–', ratio: '–', goal: '–', met: true });
  notes.push(
    `(c) answer bodies: REST ${kb(JSON.stringify(restPage))}, MCP ${kb(first.text)} (the page as JSON text and again as structuredContent, as the spec's tool results carry it)`,
    `(c) the endpoint is stateless: a tools/call POST is answered without an initialize first; the SDK client initializes once per connection (${CONNECTS} connects: median ${ms(median(connects))}, two POSTs), then pays one POST per call, as measured`,
  );
}

const pinning = pinBenchProcess();
const benchStarted = Date.now();
console.log(`bench:api — pinning: ${pinning.description}`);
const database = await openBenchDatabase();
let api: ApiBenchProcess | null = null;
try {
  let done = started('starting the API process');
  api = await startApiBenchProcess(pinning, { DATABASE_URL: database.url, API_RATE_LIMIT_PER_MINUTE: '1000000' });
  done();
  const { origin } = api;
  done = started(`seeding (setup, a ${count(WORDS)}-word page through the API, ${count(PAGES)} pages, the member's grants and token)`);
  const data = await seedApiBench(database.sequelize, origin, { words: WORDS, pages: PAGES, deniedShare: DENIED_SHARE });
  done();
  console.log(`  api pid ${api.pid} on cpus ${api.cpus}; autocannon ${CONNECTIONS} connections`);
  const paths = {
    rest: `/api/public/v1/ponds/${data.pond.slug}/pages/${data.page.slug}`,
    internal: `/api/v1/pages/${data.page.id}`,
    embed: `/api/v1/read/${data.pond.slug}/${data.page.slug}`,
  };
  const restPage = await getJson<PageDetail>(`${origin}${paths.rest}`, bearer(data.token.secret));
  const words = restPage.content.split(/\s+/).filter((word) => /\w/.test(word)).length;
  if (restPage.format !== 'markdown' || words < WORDS) throw new Error(`the REST read answered ${restPage.format} with ${words} words`);
  notes.push(`page ${paths.rest}: ${count(words)} words, ${kb(restPage.content)} of Markdown`);
  for (const path of [paths.internal, paths.embed]) {
    const answer = await timedFetch(`${origin}${path}`, { headers: { cookie: data.member.cookie } });
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
  }
  if (PARTS.has('a')) await readThroughput(api, data, paths);
  if (PARTS.has('b')) await listThroughput(api, data, origin);
  if (PARTS.has('c')) await mcpLatency(origin, data, paths.rest, restPage);
  if (PARTS.has('d')) {
    const limiter = await limiterPart(api, data, { restRead: restRead(origin, data, paths.rest), runs: RUNS, warmup: WARMUP_RUNS, seconds: SECONDS, connections: CONNECTIONS, restPath: paths.rest });
    rows.push(...limiter.rows);
    notes.push(...limiter.notes);
  }
  console.log('');
  printTable(rows);
  console.log('');
  for (const note of notes) console.log(`  ${note}`);
  console.log(`  whole run ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
} finally {
  await api?.close();
  await database.close();
}
