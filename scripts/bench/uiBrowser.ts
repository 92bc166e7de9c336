/**
 * The UI bench's measurements in Chromium (site/e2e/browserSession.ts `launchChromium`): how
 * long a navigation takes until an island is interactive, and what JavaScript a route ships.
 *
 * "Interactive" is observed, not assumed: a script installed before any of the page's own
 * (`addInitScript`) watches for the `astro-island` that holds `islandSelector` to lose its
 * `ssr` attribute — Astro removes it right after the component has hydrated — then clicks the
 * island's first `toggleSelector` button and waits for its `aria-expanded` to change, which only
 * the hydrated component's click handler does. That moment, `performance.now()` in the page,
 * is the figure: milliseconds since the navigation started (the page's `timeOrigin`). For a
 * page without an island the figure is the end of its load event.
 */
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** What the page's init script writes, read back after the navigation. */
interface PageProbe {
  hydrated: number | null;
  interactive: number | null;
  error: string | null;
  longTasks: [number, number][];
}

export interface NavigationTarget {
  name: string;
  url: string;
  /** The session cookie's origin and value, or null for a visitor. */
  cookie: { origin: string; value: string } | null;
  /** Set for a page whose island is waited for; null: until the load event. */
  island: { islandSelector: string; toggleSelector: string } | null;
}

export interface NavigationSample {
  /** The figure: the interactive moment, or the load event's end (ms since navigation start). */
  end: number;
  responseStart: number;
  responseEnd: number;
  domContentLoaded: number;
  load: number;
  hydrated: number | null;
  /** Long tasks (≥ 50 ms) that started before `end`: their sum and the longest. */
  longTaskTotal: number;
  longestTask: number;
}

const VIEWPORT = { width: 1280, height: 800 };
const GZIP_LEVEL = 6;

export const gzipSize = (bytes: Buffer | string) => gzipSync(bytes, { level: GZIP_LEVEL }).length;

/** Runs in the page before its own scripts (serialized by Playwright: no closures over this module). */
function installProbe(island: NavigationTarget['island']): void {
  const probe: PageProbe = { hydrated: null, interactive: null, error: null, longTasks: [] };
  (window as unknown as { __uiBench: PageProbe }).__uiBench = probe;
  // Every run starts with every branch open, as the first visit does (the tree remembers closed ones).
  try {
    for (const key of Object.keys(localStorage)) if (key.startsWith('dt-tree-closed:')) localStorage.removeItem(key);
  } catch {
    // No storage: nothing remembered either.
  }
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) probe.longTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // No long-task timing in this browser: the breakdown lacks it.
  }
  if (!island) return;
  const observer = new MutationObserver(() => {
    if (probe.hydrated !== null) return;
    const element = [...document.querySelectorAll('astro-island')].find((candidate) => candidate.querySelector(island.islandSelector));
    if (!element || element.hasAttribute('ssr')) return;
    probe.hydrated = performance.now();
    observer.disconnect();
    const button = element.querySelector<HTMLElement>(island.toggleSelector);
    if (!button) {
      probe.error = `the hydrated island has no ${island.toggleSelector}`;
      return;
    }
    const before = button.getAttribute('aria-expanded');
    const watcher = new MutationObserver(() => {
      if (button.getAttribute('aria-expanded') === before) return;
      probe.interactive = performance.now();
      watcher.disconnect();
    });
    watcher.observe(button, { attributes: true, attributeFilter: ['aria-expanded'] });
    button.click();
  });
  observer.observe(document, { attributes: true, attributeFilter: ['ssr'], subtree: true });
}

export async function openContext(browser: Browser, target: NavigationTarget): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US' });
  context.setDefaultTimeout(30_000);
  if (target.cookie) await context.addCookies([{ name: 'dt_session', value: target.cookie.value, url: target.cookie.origin }]);
  await context.addInitScript(installProbe, target.island);
  return context;
}

/** One navigation of `page` to the target, measured. */
export async function navigate(page: Page, target: NavigationTarget): Promise<NavigationSample> {
  const response = await page.goto(target.url, { waitUntil: 'load' });
  if (response?.status() !== 200) throw new Error(`${target.name}: ${target.url} answered ${response?.status()}`);
  if (target.island) {
    await page.waitForFunction(() => {
      const probe = (window as unknown as { __uiBench: PageProbe }).__uiBench;
      return probe.interactive !== null || probe.error !== null;
    });
  }
  const { probe, timing } = await page.evaluate(() => {
    const entry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return {
      probe: (window as unknown as { __uiBench: PageProbe }).__uiBench,
      timing: { responseStart: entry.responseStart, responseEnd: entry.responseEnd, domContentLoaded: entry.domContentLoadedEventEnd, load: entry.loadEventEnd },
    };
  });
  if (probe.error) throw new Error(`${target.name}: ${probe.error}`);
  const end = target.island ? probe.interactive! : timing.load;
  const before = probe.longTasks.filter(([start]) => start < end);
  return {
    ...timing,
    end,
    hydrated: probe.hydrated,
    longTaskTotal: before.reduce((sum, [, duration]) => sum + duration, 0),
    longestTask: Math.max(0, ...before.map(([, duration]) => duration)),
  };
}

/** A navigation with an empty cache: a new browser context (its own cache and storage) for it alone. */
export async function navigateCold(browser: Browser, target: NavigationTarget): Promise<NavigationSample> {
  return navigateColdWith(browser, target, navigate);
}

/** `prepare`: more init scripts for a context before its first page (another bench's probe). */
type PrepareContext<T> = (context: BrowserContext, target: T) => Promise<void>;

async function navigateColdWith<T extends NavigationTarget, S>(browser: Browser, target: T, measure: (page: Page, target: T) => Promise<S>, prepare?: PrepareContext<T>): Promise<S> {
  const context = await openContext(browser, target);
  try {
    await prepare?.(context, target);
    return await measure(await context.newPage(), target);
  } finally {
    await context.close();
  }
}

/**
 * Every target once per round, in alternation, `warmup` rounds unrecorded first; cold: a new
 * context per navigation, warm: one context (and page) per target for all its rounds.
 * `measure` is one navigation (`navigate`, or another bench's own).
 */
export async function measureNavigationRounds<T extends NavigationTarget, S>(
  browser: Browser,
  targets: readonly T[],
  mode: 'cold' | 'warm',
  rounds: { warmup: number; runs: number },
  measure: (page: Page, target: T) => Promise<S>,
  prepare?: PrepareContext<T>,
): Promise<Map<string, S[]>> {
  const samples = new Map(targets.map((target) => [target.name, [] as S[]]));
  const contexts = mode === 'warm' ? await Promise.all(targets.map((target) => openContext(browser, target))) : [];
  try {
    if (prepare) await Promise.all(contexts.map((context, i) => prepare(context, targets[i]!)));
    const pages = await Promise.all(contexts.map((context) => context.newPage()));
    for (let round = 0; round < rounds.warmup + rounds.runs; round += 1) {
      // Flipped every other round, so no target always follows the same one.
      const order = round % 2 === 0 ? targets.map((_, i) => i) : targets.map((_, i) => targets.length - 1 - i);
      for (const index of order) {
        const target = targets[index]!;
        const sample = mode === 'warm' ? await measure(pages[index]!, target) : await navigateColdWith(browser, target, measure, prepare);
        if (round >= rounds.warmup) samples.get(target.name)!.push(sample);
      }
    }
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
  return samples;
}

export interface ShippedScript {
  url: string;
  bytes: number;
  gzip: number;
  /** The response's Content-Encoding, or "identity". */
  encoding: string;
}

export interface RouteScripts {
  status: number;
  scripts: ShippedScript[];
  /** Inline `<script>` elements of the document (Astro's island bootstrap), each gzipped on its own. */
  inline: { count: number; bytes: number; gzip: number };
  html: { bytes: number; gzip: number };
  /** Elements in the document once every island has hydrated. */
  elements: number;
  /** Per island in the document: its component file and the size of its serialized props. */
  islands: { component: string; propsBytes: number; propsGzip: number; markupBytes: number }[];
  problems: string[];
}

/** The islands of a document as sent: each one's component and its `props` attribute as it stands in the HTML (entity-encoded). */
function islandsIn(html: string): { component: string; propsBytes: number; propsGzip: number }[] {
  return [...html.matchAll(/<astro-island\b[^>]*>/g)].map(([tag]) => {
    const props = /\sprops="([^"]*)"/.exec(tag)?.[1] ?? '';
    return { component: /\scomponent-url="([^"]*)"/.exec(tag)?.[1] ?? '?', propsBytes: Buffer.byteLength(props), propsGzip: gzipSize(props) };
  });
}

/**
 * Every script a first visit to `url` loads (empty cache): responses of type script (classic,
 * module and dynamic imports), after the load event, every island's hydration and network
 * quiet; plus the document's inline scripts and its size.
 */
export async function collectRouteScripts(browser: Browser, target: NavigationTarget): Promise<RouteScripts> {
  const context = await openContext(browser, { ...target, island: null });
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const pending: Promise<ShippedScript>[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() !== 'script') return;
      pending.push(
        response.body().then((body) => ({ url: new URL(response.url()).pathname, bytes: body.length, gzip: gzipSize(body), encoding: response.headers()['content-encoding'] ?? 'identity' })),
      );
    });
    const response = await page.goto(target.url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]').length === 0);
    await page.waitForLoadState('networkidle');
    const html = response ? await response.body() : Buffer.alloc(0);
    const { inlineScripts, islandMarkup, elements } = await page.evaluate(() => ({
      inlineScripts: [...document.querySelectorAll('script:not([src])')]
        .filter((script) => ['', 'module', 'text/javascript'].includes(script.getAttribute('type') ?? ''))
        .map((script) => script.textContent ?? ''),
      islandMarkup: [...document.querySelectorAll('astro-island')].map((island) => new Blob([island.innerHTML]).size),
      elements: document.getElementsByTagName('*').length,
    }));
    const scripts = await Promise.all(pending);
    return {
      status: response?.status() ?? 0,
      scripts,
      inline: { count: inlineScripts.length, bytes: inlineScripts.reduce((sum, text) => sum + Buffer.byteLength(text), 0), gzip: inlineScripts.reduce((sum, text) => sum + gzipSize(text), 0) },
      html: { bytes: html.length, gzip: gzipSize(html) },
      elements,
      islands: islandsIn(html.toString('utf8')).map((island, index) => ({ ...island, markupBytes: islandMarkup[index] ?? 0 })),
      problems,
    };
  } finally {
    await context.close();
  }
}
