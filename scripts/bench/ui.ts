/**
 * `npm run bench:ui` — the browser app in Chromium on loopback, against a blank Astro page
 * measured in the same run (issue 17).
 *
 * Processes: this one drives Chromium (playwright-core, Debian's /usr/bin/chromium) and hosts
 * the scratch Postgres; the API process (publicBenchServer.ts `api`: services, Express app and
 * the built site, as api/server.ts) and the baseline's server (uiBaseline.ts: a blank Astro
 * project built in this run with our Astro, node adapter and Svelte) run in processes of their
 * own. Nothing is pinned: the browser and the server take turns within one navigation.
 *
 * Seeding (uiSeed.ts): the setup wizard, one pond and BENCH_UI_LEVELS pages (2,000 in 4
 * levels) created one by one through `POST /ponds/:id/pages`; the Site Admin, pond admin of
 * that pond, is the signed-in user (every page's tree row has its actions menu).
 *
 * (a) navigation to `/:pond/:page` and `/:pond` until the sidebar tree is interactive
 *     (uiBrowser.ts: the tree's island has hydrated and a click on a branch toggle has
 *     changed its `aria-expanded`), from navigation start, 1280 × 800: ≤ 1 s (median; p95
 *     shown). With an empty cache (a new browser context per navigation) and with a warm one
 *     (one context; assets cached). Baseline: the blank Astro page until its load event; the
 *     blank page with one Svelte toggle until that is interactive shown too. Targets and
 *     baselines alternate within each round.
 * (b) JavaScript per app route on a first visit: every script response, gzipped here at level
 *     6 (the app serves them uncompressed; a proxy in front would compress), plus the inline
 *     scripts: ≤ 150 KB (the shell). Baseline: the blank page's (0 B) and the one-island page's.
 *
 * Exits 0 when a target is missed (the table says so); only an error exits non-zero.
 * `BENCH_UI_RUNS` (20), `BENCH_UI_WARMUP` (5), `BENCH_UI_LEVELS` (24,176,800,1000).
 */
import { availableParallelism, loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../site/e2e/browserSession.ts';
import { ensureSiteBuilt } from '../build-site.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { startBenchServer, type BenchServer } from './publicServers.ts';
import { BASELINE_TOGGLE_SELECTOR, startBaselineSite, type BaselineSite } from './uiBaseline.ts';
import { figuresOf, kb, ms, show, started } from './uiFigures.ts';
import { collectRouteScripts, measureNavigationRounds, navigate, type NavigationSample, type NavigationTarget, type RouteScripts } from './uiBrowser.ts';
import { seedUiBench, type UiBenchData } from './uiSeed.ts';
import { editorIslandScripts } from './editorScripts.ts';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 20);
const WARMUP = Number(process.env.BENCH_UI_WARMUP ?? 5);
const LEVELS = (process.env.BENCH_UI_LEVELS ?? '24,176,800,1000').split(',').map(Number);
const INTERACTIVE_TARGET_MS = 1000;
const SHELL_JS_TARGET_KB = 150;
const TREE = { islandSelector: '.page-tree', toggleSelector: 'button.tree-toggle' };
const EDITOR_COMPONENT = 'PageEditor';

/** Per phase, printed (a) first whatever ran first. */
const rows = { a: [] as Row[], b: [] as Row[] };
const notes = { a: [] as string[], b: [] as string[] };
const count = (value: number) => Math.round(value).toLocaleString('en');

function navigationRows(samples: Map<string, NavigationSample[]>, mode: 'cold' | 'warm', appTargets: NavigationTarget[]): void {
  const blank = figuresOf(samples.get('blank')!.map((sample) => sample.end));
  const island = figuresOf(samples.get('island')!.map((sample) => sample.end));
  const cache = mode === 'cold' ? 'empty cache' : 'warm cache';
  for (const target of appTargets) {
    const list = samples.get(target.name)!;
    const figures = figuresOf(list.map((sample) => sample.end));
    rows.a.push({
      target: `(a) ${target.name} → tree interactive, ${cache}`,
      figure: show(figures),
      baseline: `blank page load ${show(blank)}`,
      ratio: (figures.median / blank.median).toFixed(1),
      goal: `≤ ${INTERACTIVE_TARGET_MS} ms`,
      met: figures.median <= INTERACTIVE_TARGET_MS,
    });
    const part = (pick: (sample: NavigationSample) => number) => ms(figuresOf(list.map(pick)).median);
    notes.a.push(
      `(a) ${target.name}, ${cache}, medians since navigation start: first byte ${part((s) => s.responseStart)}, HTML received ${part((s) => s.responseEnd)}, DOMContentLoaded ${part((s) => s.domContentLoaded)}, load ${part((s) => s.load)}, tree hydrated ${part((s) => s.hydrated ?? Number.NaN)}, toggle answered ${part((s) => s.end)}; ` +
        `long tasks before that: ${part((s) => s.longTaskTotal)} in all, the longest ${part((s) => s.longestTask)}`,
    );
  }
  notes.a.push(`(a) baselines, ${cache}: blank Astro page, load event ${show(blank)}; blank page with one Svelte toggle, interactive ${show(island)} (${(island.median / blank.median).toFixed(1)}× the blank page)`);
}

const totalGzip = (route: RouteScripts) => route.scripts.reduce((sum, script) => sum + script.gzip, 0) + route.inline.gzip;

async function measureScripts(browser: Browser, appRoutes: NavigationTarget[], baselines: { blank: NavigationTarget; island: NavigationTarget }): Promise<void> {
  const blank = await collectRouteScripts(browser, baselines.blank);
  const island = await collectRouteScripts(browser, baselines.island);
  const islandTotal = totalGzip(island);
  notes.b.push(
    `(b) baselines: blank Astro page ${kb(totalGzip(blank))} of script (${blank.scripts.length} files, ${blank.inline.count} inline); one-island page ${kb(islandTotal)} gzip ` +
      `(${island.scripts.map((script) => `${script.url.replace('/_astro/', '')} ${kb(script.gzip)}`).join(', ')}; inline ${kb(island.inline.gzip)})`,
  );
  const chunks = new Map<string, { gzip: number; bytes: number; routes: string[] }>();
  const encodings = new Set<string>();
  for (const route of appRoutes) {
    const shipped = await collectRouteScripts(browser, route);
    if (shipped.status !== 200) throw new Error(`${route.name}: ${route.url} answered ${shipped.status}`);
    if (shipped.problems.length > 0) notes.b.push(`(b) ${route.name}: ${shipped.problems.join('; ')}`);
    // The shell is what every app route loads; the page editor's own chunks have their own target (bench:editor).
    const editorIsland = shipped.islands.some((entry) => entry.component.includes(EDITOR_COMPONENT)) ? await editorIslandScripts(new URL(route.url).origin, shipped, EDITOR_COMPONENT) : null;
    const editorOwn = editorIsland ? editorIsland.own.reduce((sum, script) => sum + script.gzip, 0) : 0;
    const total = totalGzip(shipped) - editorOwn;
    if (editorIsland) notes.b.push(`(b) ${route.name}: the shell's figure leaves out the page editor's own chunks, ${kb(editorOwn)} gzip (${editorIsland.own.map((script) => script.url.replace('/_astro/', '')).join(', ')}), measured against their own target by bench:editor`);
    rows.b.push({
      target: `(b) JS shipped, ${route.name}${editorIsland ? ' (shell; editor apart)' : ''}`,
      figure: `${kb(total)} gzip`,
      baseline: `1-island page ${kb(islandTotal)}`,
      ratio: (total / islandTotal).toFixed(1),
      goal: `≤ ${SHELL_JS_TARGET_KB} KB`,
      met: total <= SHELL_JS_TARGET_KB * 1024,
    });
    const raw = shipped.scripts.reduce((sum, script) => sum + script.bytes, 0) + shipped.inline.bytes;
    const islands = shipped.islands.map((entry) => `${entry.component.replace('/_astro/', '').replace(/\..*$/, '')} (props ${kb(entry.propsBytes)}, ${kb(entry.propsGzip)} gzip; markup ${kb(entry.markupBytes)})`);
    notes.b.push(`(b) ${route.name}: ${shipped.scripts.length} script files + ${shipped.inline.count} inline, ${kb(raw)} uncompressed; HTML ${kb(shipped.html.bytes)} (${kb(shipped.html.gzip)} gzip), ${count(shipped.elements)} elements; islands: ${islands.join(', ') || 'none'}`);
    for (const script of shipped.scripts) {
      encodings.add(script.encoding);
      const chunk = chunks.get(script.url) ?? { gzip: script.gzip, bytes: script.bytes, routes: [] };
      chunk.routes.push(route.name);
      chunks.set(script.url, chunk);
    }
  }
  notes.b.push(`(b) script responses were sent with Content-Encoding: ${[...encodings].join(', ')} (figures are gzip level 6 of the bytes, done here)`);
  const largest = [...chunks].sort(([, a], [, b]) => b.gzip - a.gzip).slice(0, 12);
  notes.b.push(`(b) the largest chunks (gzip / uncompressed, on how many of ${appRoutes.length} routes):`);
  for (const [url, chunk] of largest) notes.b.push(`      ${url.replace('/_astro/', '').padEnd(36)} ${kb(chunk.gzip).padStart(9)} / ${kb(chunk.bytes).padStart(9)}  ${chunk.routes.length === appRoutes.length ? 'every route' : chunk.routes.join(', ')}`);
}

function appRoutes(origin: string, data: UiBenchData): NavigationTarget[] {
  const cookie = { origin, value: data.sessionCookie };
  const pond = `/${data.pond.slug}`;
  const paths: [string, string][] = [
    ['/', '/'],
    ['/:pond', pond],
    ['/:pond/:page', `${pond}/${data.page.slug}`],
    ['/:pond/-/trash', `${pond}/-/trash`],
    ['/:pond/-/settings', `${pond}/-/settings`],
    ['/:pond/-/members', `${pond}/-/members`],
    ['/:pond/-/access', `${pond}/-/access`],
    ['/:pond/-/labels', `${pond}/-/labels`],
    ['/search?q=x', '/search?q=x'],
    ['/settings', '/settings'],
    ['/admin/site', '/admin/site'],
  ];
  return paths.map(([name, path]) => ({ name, url: `${origin}${path}`, cookie, island: null }));
}

const benchStarted = Date.now();
/** The machine is not ours alone: its load, next to the figures, says how much to trust them. */
const load = () => loadavg().map((value) => value.toFixed(1)).join(' / ');
console.log(`bench:ui — Chromium on loopback, ${RUNS} runs after ${WARMUP} warm-up rounds per target; not pinned; load average ${load()} on ${availableParallelism()} cores`);
let done = started('building the site (when stale) and opening the scratch database');
await ensureSiteBuilt();
const database = await openBenchDatabase();
done();
let api: BenchServer | null = null;
let baseline: BaselineSite | null = null;
let browser: Browser | null = null;
try {
  done = started('starting the API process');
  api = await startBenchServer('api', { used: false, description: 'off', benchCore: null, serverCore: null }, { DATABASE_URL: database.url });
  done();
  done = started('building and starting the blank Astro project');
  baseline = await startBaselineSite();
  done();
  done = started(`seeding ${count(LEVELS.reduce((sum, size) => sum + size, 0))} pages through the API (${LEVELS.map(count).join(' / ')} per level)`);
  const data = await seedUiBench(api.origin, LEVELS);
  done();
  browser = await launchChromium();
  console.log(`  Chromium ${browser.version()}; measured page /${data.pond.slug}/${data.page.slug} ("${data.page.title}", level ${Math.min(3, LEVELS.length)}); blank project built in ${baseline.buildSeconds.toFixed(1)} s`);

  const routes = appRoutes(api.origin, data);
  const blankTarget: NavigationTarget = { name: 'blank', url: `${baseline.origin}/blank`, cookie: null, island: null };
  const islandTarget: NavigationTarget = { name: 'island', url: `${baseline.origin}/island`, cookie: null, island: { islandSelector: BASELINE_TOGGLE_SELECTOR, toggleSelector: BASELINE_TOGGLE_SELECTOR } };
  const treeTargets = routes.filter((route) => route.name === '/:pond/:page' || route.name === '/:pond').map((route) => ({ ...route, island: TREE }));
  const targets = [...treeTargets, blankTarget, islandTarget];

  done = started('(b) scripts per route, first visits');
  await measureScripts(browser, routes, { blank: blankTarget, island: islandTarget });
  done();
  for (const mode of ['cold', 'warm'] as const) {
    done = started(`(a) navigations, ${mode === 'cold' ? 'empty cache (a new context each)' : 'warm cache'}, ${targets.length} targets × ${WARMUP + RUNS}`);
    const samples = await measureNavigationRounds(browser, targets, mode, { warmup: WARMUP, runs: RUNS }, navigate);
    done();
    navigationRows(samples, mode, treeTargets);
  }
  console.log('');
  printTable([...rows.a, ...rows.b]);
  console.log('');
  for (const note of [...notes.a, ...notes.b]) console.log(`  ${note}`);
  console.log(`  whole run ${((Date.now() - benchStarted) / 1000).toFixed(0)} s; load average at the end ${load()}`);
} finally {
  await browser?.close();
  await baseline?.close();
  await api?.close();
  await database.close();
}
