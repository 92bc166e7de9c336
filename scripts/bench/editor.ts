/**
 * `npm run bench:editor` — the page editor in Chromium on loopback, with its baselines in the
 * same run (issue 18).
 *
 * Processes, as bench:ui runs them: this one drives Chromium and hosts the scratch Postgres; the
 * API process (publicBenchServer.ts `api`, with the `/collab` proxy as api/server.ts mounts it),
 * the collab server (collabBenchServer.ts `dorfteich`, against the same database and session
 * secret) and the blank Astro project (uiBaseline.ts) run in processes of their own. The public
 * document is generated on its first request (no worker needed: nothing changes afterwards).
 *
 * Seeding: the setup wizard (the Site Admin is the signed-in member, pond admin), one pond with a
 * public reader grant, one page with a 5,000-word body (wordPage.ts) created through
 * `POST /ponds/:id/pages`.
 *
 * (a) signed-in navigation to `/:pond/:page` until the body's first paragraph is painted
 *     (editorBrowser.ts: Element Timing on that paragraph): ≤ 1.2× an anonymous navigation to
 *     the same URL (the public document) until the same paragraph is painted.
 * (b) the same signed-in navigation until the editor is editable and synced (took over,
 *     contenteditable, status "saved"): ≤ 1.5 s. Baseline: the blank Astro page's load event.
 *     (a) and (b) are read from the same navigations; member, visitor and blank page alternate
 *     within each round, with an empty cache (a new context each) and a warm one.
 * (c) the editor island's JavaScript (editorScripts.ts: its component chunk and the chunks only
 *     it reaches), gzip level 6: ≤ 450 KB. Baseline: the one-island page's whole JavaScript.
 *
 * Exits 0 when a target is missed (the table says so); only an error exits non-zero.
 * `BENCH_EDITOR_RUNS` (20), `BENCH_EDITOR_WARMUP` (5), `BENCH_EDITOR_WORDS` (5000).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../site/e2e/browserSession.ts';
import { ensureSiteBuilt } from '../build-site.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { startBenchServer as startCollabProcess, type BenchServer as CollabProcess } from './collabClients.ts';
import { navigateEditor, prepareEditorContext, type EditorSample, type EditorTarget } from './editorBrowser.ts';
import { editorIslandScripts } from './editorScripts.ts';
import { startBenchServer, type BenchServer } from './publicServers.ts';
import { startBaselineSite, type BaselineSite } from './uiBaseline.ts';
import { collectRouteScripts, measureNavigationRounds, type RouteScripts } from './uiBrowser.ts';
import { figuresOf, kb, ms, show, started } from './uiFigures.ts';
import { completeSetup, expectStatus } from './uiSeed.ts';
import { wordPageMarkdown } from './wordPage.ts';

const RUNS = Number(process.env.BENCH_EDITOR_RUNS ?? 20);
const WARMUP = Number(process.env.BENCH_EDITOR_WARMUP ?? 5);
const WORDS = Number(process.env.BENCH_EDITOR_WORDS ?? 5000);
const TEXT_RATIO_TARGET = 1.2;
const EDITABLE_TARGET_MS = 1500;
const EDITOR_JS_TARGET_KB = 450;

const rows: Row[] = [];
const notes: string[] = [];

/** The words the body's first paragraph starts with, as text (Markdown emphasis dropped). */
function firstWords(markdown: string, count: number): string {
  const paragraph = markdown.split('\n').find((line) => /^[a-zäöüß*]/i.test(line) && !line.startsWith('#'));
  if (!paragraph) throw new Error('the page has no paragraph');
  return paragraph.replace(/\*\*|_/g, '').split(' ').slice(0, count).join(' ');
}

async function seed(origin: string, markdown: string): Promise<{ sessionCookie: string; url: string }> {
  const client = await completeSetup(origin);
  if (!client.sessionCookie) throw new Error('the setup wizard left no session cookie');
  const pond = (await expectStatus(client.post('/ponds', { name: 'Gemeindeteich' }), 201, 'POST /ponds')).body as { id: string; slug: string };
  await expectStatus(client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' }), 201, 'POST /ponds/:id/grants');
  const page = (await expectStatus(client.post(`/ponds/${pond.id}/pages`, { title: 'Der lange Teich', parentId: null, markdown }), 201, 'POST /ponds/:id/pages')).body as { slug: string };
  return { sessionCookie: client.sessionCookie, url: `${origin}/${pond.slug}/${page.slug}` };
}

function navigationRows(samples: Map<string, EditorSample[]>, mode: 'cold' | 'warm'): void {
  const cache = mode === 'cold' ? 'empty cache' : 'warm cache';
  const member = samples.get('member')!;
  const visitor = samples.get('visitor')!;
  const blank = figuresOf(samples.get('blank')!.map((sample) => sample.navigation.load));
  const memberText = figuresOf(member.map((sample) => sample.text!));
  const visitorText = figuresOf(visitor.map((sample) => sample.text!));
  const ratio = memberText.median / visitorText.median;
  rows.push({
    target: `(a) member → first text painted, ${cache}`,
    figure: show(memberText),
    baseline: `public document ${show(visitorText)}`,
    ratio: ratio.toFixed(2),
    goal: `≤ ${TEXT_RATIO_TARGET}×`,
    met: ratio <= TEXT_RATIO_TARGET,
  });
  const editable = figuresOf(member.map((sample) => sample.editable!));
  rows.push({
    target: `(b) member → editable and synced, ${cache}`,
    figure: show(editable),
    baseline: `blank page load ${show(blank)}`,
    ratio: (editable.median / blank.median).toFixed(1),
    goal: `≤ ${EDITABLE_TARGET_MS} ms`,
    met: editable.median <= EDITABLE_TARGET_MS,
  });
  for (const [name, list] of [['member', member], ['visitor', visitor]] as const) {
    const part = (pick: (sample: EditorSample) => number | null) => ms(figuresOf(list.map((sample) => pick(sample) ?? Number.NaN)).median);
    const sources = new Set(list.map((sample) => sample.textSource));
    const outside = list.filter((sample) => sample.textInViewport === false).length;
    notes.push(
      `(a) ${name}, ${cache}, medians since navigation start: first byte ${part((s) => s.navigation.responseStart)}, HTML received ${part((s) => s.navigation.responseEnd)}, ` +
        `first contentful paint ${part((s) => s.firstContentfulPaint)}, paragraph painted ${part((s) => s.text)} (${[...sources].join(' / ')}; frame after it arrived ${part((s) => s.frameAfterText)}), ` +
        `DOMContentLoaded ${part((s) => s.navigation.domContentLoaded)}, load ${part((s) => s.navigation.load)}` +
        (name === 'member' ? `, editable and synced ${part((s) => s.editable)}; long tasks before the load event ${part((s) => s.navigation.longTaskTotal)} in all` : '') +
        (outside > 0 ? `; the paragraph was below the fold in ${outside} of ${list.length}` : ''),
    );
  }
}

async function measureScripts(browser: Browser, origin: string, member: EditorTarget, island: EditorTarget): Promise<void> {
  const baseline = await collectRouteScripts(browser, island);
  const baselineTotal = baseline.scripts.reduce((sum, script) => sum + script.gzip, 0) + baseline.inline.gzip;
  const page: RouteScripts = await collectRouteScripts(browser, member);
  if (page.status !== 200) throw new Error(`${member.url} answered ${page.status}`);
  if (page.problems.length > 0) {
    // wordPage.ts's transclusions name pages that do not exist: their node views' /read requests answer 404.
    const notFound = page.problems.filter((problem) => problem.includes('status of 404')).length;
    const other = page.problems.filter((problem) => !problem.includes('status of 404'));
    notes.push(`(c) the page's console: ${notFound} × 404 (the body's transclusions of pages that do not exist, asked for through /read)${other.length > 0 ? `; ${other.join('; ')}` : ''}`);
  }
  const editor = await editorIslandScripts(origin, page, 'PageEditor');
  const sum = (list: { gzip: number }[]) => list.reduce((total, script) => total + script.gzip, 0);
  const own = sum(editor.own);
  rows.push({
    target: '(c) editor island JS (its own chunks)',
    figure: `${kb(own)} gzip`,
    baseline: `1-island page ${kb(baselineTotal)}`,
    ratio: (own / baselineTotal).toFixed(1),
    goal: `≤ ${EDITOR_JS_TARGET_KB} KB`,
    met: own <= EDITOR_JS_TARGET_KB * 1024,
  });
  const pageTotal = sum(page.scripts) + page.inline.gzip;
  const list = (scripts: { url: string; gzip: number }[]) => [...scripts].sort((a, b) => b.gzip - a.gzip).map((script) => `${script.url.replace('/_astro/', '')} ${kb(script.gzip)}`).join(', ');
  notes.push(`(c) the editor's own chunks (${editor.own.length}): ${list(editor.own)}`);
  notes.push(`(c) shared with the page's other islands (${editor.others.map((url) => url.replace('/_astro/', '').replace(/\..*$/, '')).join(', ')}): ${editor.shared.length} chunks, ${kb(sum(editor.shared))} gzip; editor with them ${kb(own + sum(editor.shared))}`);
  notes.push(`(c) the whole page: ${page.scripts.length} script files + ${page.inline.count} inline, ${kb(pageTotal)} gzip; HTML ${kb(page.html.bytes)} (${kb(page.html.gzip)} gzip)`);
}

const benchStarted = Date.now();
const load = () => loadavg().map((value) => value.toFixed(1)).join(' / ');
console.log(`bench:editor — Chromium on loopback, ${RUNS} runs after ${WARMUP} warm-up rounds per target; not pinned; load average ${load()} on ${availableParallelism()} cores`);
let done = started('building the site (when stale) and opening the scratch database');
await ensureSiteBuilt();
const database = await openBenchDatabase();
done();
const secret = randomBytes(32).toString('base64url');
let collab: CollabProcess | null = null;
let api: BenchServer | null = null;
let baseline: BaselineSite | null = null;
let browser: Browser | null = null;
try {
  done = started('starting the collab server and the API process');
  collab = await startCollabProcess('dorfteich', { DATABASE_URL: database.url, SESSION_SECRET: secret });
  api = await startBenchServer('api', { used: false, description: 'off', benchCore: null, serverCore: null }, { DATABASE_URL: database.url, SESSION_SECRET: secret, COLLAB_PORT: String(collab.port) });
  done();
  done = started('building and starting the blank Astro project');
  baseline = await startBaselineSite();
  done();
  const markdown = wordPageMarkdown(WORDS);
  done = started(`seeding a public pond with one ${WORDS.toLocaleString('en')}-word page (${kb(Buffer.byteLength(markdown))} of Markdown)`);
  const data = await seed(api.origin, markdown);
  const visitorAnswer = await fetch(data.url);
  if (visitorAnswer.status !== 200) throw new Error(`the public document answered ${visitorAnswer.status}`);
  done();
  browser = await launchChromium();
  const phrase = firstWords(markdown, 4);
  console.log(`  Chromium ${browser.version()}; measured page ${new URL(data.url).pathname}; first paragraph starts "${phrase}"; public document ${kb((await visitorAnswer.arrayBuffer()).byteLength)}`);

  const member: EditorTarget = { name: 'member', url: data.url, cookie: { origin: api.origin, value: data.sessionCookie }, island: null, phrase, editor: true };
  const visitor: EditorTarget = { name: 'visitor', url: data.url, cookie: null, island: null, phrase, editor: false };
  const blank: EditorTarget = { name: 'blank', url: `${baseline.origin}/blank`, cookie: null, island: null, phrase: null, editor: false };
  const island: EditorTarget = { name: 'island', url: `${baseline.origin}/island`, cookie: null, island: null, phrase: null, editor: false };

  done = started('(c) scripts of the page, first visit');
  await measureScripts(browser, api.origin, member, island);
  done();
  for (const mode of ['cold', 'warm'] as const) {
    done = started(`(a, b) navigations, ${mode === 'cold' ? 'empty cache (a new context each)' : 'warm cache'}, 3 targets × ${WARMUP + RUNS}`);
    const samples = await measureNavigationRounds(browser, [member, visitor, blank], mode, { warmup: WARMUP, runs: RUNS }, navigateEditor, prepareEditorContext);
    done();
    navigationRows(samples, mode);
  }
  console.log('');
  // (a) and (b) per cache, then (c), whatever ran first.
  printTable([...rows].sort((a, b) => a.target.slice(0, 3).localeCompare(b.target.slice(0, 3))));
  console.log('');
  for (const note of notes) console.log(`  ${note}`);
  console.log(`  whole run ${((Date.now() - benchStarted) / 1000).toFixed(0)} s; load average at the end ${load()}`);
} finally {
  await browser?.close();
  await baseline?.close();
  await api?.close();
  await collab?.close();
  await database.close();
}
