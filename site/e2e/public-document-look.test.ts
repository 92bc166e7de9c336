/**
 * The generated public document in Chromium, served the way the public layer serves it: the
 * rendered HTML with the public CSP (no script source at all) and the fonts from
 * serveFontAsset, by a tiny node:http server. The reader's context has JavaScript disabled;
 * a second context with JavaScript on exists only to measure (document.fonts, widths) and to
 * run axe, which needs script. Screenshots land in `DT_SCREENSHOT_DIR` (default
 * test-output/e2e) as `public-look-<shape>-<name>.png`. Also: the internal render route and
 * the site's 404 page as a browser sees them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { serveFontAsset } from '../../api/http/fontAssets.ts';
import { freePort } from '../../api/testing/freePort.ts';
import { PUBLIC_DOCUMENT_ROUTE, renderPublicDocumentHtml } from '../../api/publicPages/astroDocumentRenderer.ts';
import type { PublicDocumentModel } from '../../api/publicPages/publicDocumentModel.ts';
import { commentedPageModel, homeModel, legalModel, pondIndexModel, richPageModel } from '../../api/testing/publicDocumentModels.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { expectAccessible } from './axe.ts';
import { launchChromium } from './browserSession.ts';
import { expectVisibleFocus } from './focusIndicator.ts';
import { expectNoSidewaysScroll } from './screenChecks.ts';

/** The public layer's policy (shared brief): nothing may run, fonts and styles from our origin. */
const PUBLIC_CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const FAVICON = readFileSync(fileURLToPath(new URL('../public/favicon.svg', import.meta.url)));
const SHOT_DIR = process.env.DT_SCREENSHOT_DIR ?? fileURLToPath(new URL('../../test-output/e2e/', import.meta.url));

const DESKTOP = { viewport: { width: 1280, height: 800 }, isMobile: false };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Documents by path, served with the public headers. */
const documents = new Map<string, string>();
let server: Server;
let origin: string;
let browser: Browser;

function serve(req: IncomingMessage, res: ServerResponse): void {
  if (serveFontAsset(req, res)) return;
  const urlPath = (req.url ?? '/').split('?')[0] ?? '/';
  if (urlPath === '/favicon.svg') {
    res.writeHead(200, { 'Content-Type': 'image/svg+xml' });
    res.end(FAVICON);
    return;
  }
  const html = documents.get(urlPath);
  res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': PUBLIC_CSP, 'X-Content-Type-Options': 'nosniff' });
  res.end(html ?? 'not found');
}

async function publish(urlPath: string, model: PublicDocumentModel): Promise<string> {
  documents.set(urlPath, await renderPublicDocumentHtml(model));
  return `${origin}${urlPath}`;
}

interface Reader {
  context: BrowserContext;
  page: Page;
  /** Console errors (a CSP violation lands there) and every font response. */
  problems: string[];
  fontResponses: { url: string; status: number }[];
}

async function openReader(options: Parameters<Browser['newContext']>[0]): Promise<Reader> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  const fontResponses: { url: string; status: number }[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    if (response.url().includes('/assets/fonts/')) fontResponses.push({ url: response.url(), status: response.status() });
  });
  return { context, page, problems, fontResponses };
}

async function shoot(page: Page, shape: string, name: string, options: { scrollToTop?: boolean } = {}): Promise<void> {
  // From the top: a walk with Tab scrolls, and the sticky contents would follow it.
  if (options.scrollToTop !== false) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOT_DIR, `public-look-${shape}-${name}.png`), fullPage: true });
}

before(async () => {
  await ensureSiteBuilt();
  mkdirSync(SHOT_DIR, { recursive: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe('the generated public document in Chromium', () => {
  before(async () => {
    server = createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  test('without JavaScript: fonts, breadcrumbs, contents, body, children and backlinks; nothing blocked', { timeout: 60_000 }, async () => {
    const url = await publish('/field-guide/pond-maintenance', richPageModel());
    const reader = await openReader({ ...DESKTOP, javaScriptEnabled: false });
    try {
      await reader.page.goto(url, { waitUntil: 'load' });
      const { page } = reader;
      await page.getByRole('heading', { level: 1, name: 'Pond maintenance' }).waitFor();
      const breadcrumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
      assert.deepEqual(await breadcrumbs.getByRole('link').allTextContents(), ['Field guide', 'Care and upkeep']);
      const contents = page.getByRole('navigation', { name: 'Contents' });
      assert.deepEqual(await contents.getByRole('link').allTextContents(), ['Water quality', 'Equipment', 'Checklist', 'Data export', 'Related notes']);
      assert.equal(await contents.getByRole('link', { name: 'Checklist' }).getAttribute('href'), '#h-checklist');
      assert.ok(await page.locator('#h-checklist').isVisible());
      assert.deepEqual(await page.getByRole('region', { name: 'Pages below' }).getByRole('link').allTextContents(), ['Winter preparations', 'Removing algae', 'Reed bed care']);
      assert.deepEqual(await page.getByRole('region', { name: 'Linked from' }).getByRole('link').allTextContents(), ['Volunteer rota', 'Annual report 2024']);
      assert.ok(await page.locator('.dt-transclusion[data-dt-title="Brook trout"]').getByText('cold, clean water').isVisible());
      assert.equal(await page.getByRole('table').count(), 1);
      assert.equal(await page.locator('.task-box.is-done').count(), 2);
      assert.equal(await page.locator('.task-box:not(.is-done)').count(), 2);
      assert.equal(await page.getByRole('listitem').filter({ hasText: 'Done: Order new test strips' }).count(), 1);
      assert.equal(await page.locator('time').getAttribute('datetime'), '2025-03-05T14:03:27.000Z');
      // The faces the page uses were fetched from our origin, every one successfully.
      await page.waitForLoadState('networkidle');
      const fetched = reader.fontResponses.map((response) => `${response.status} ${new URL(response.url).pathname.split('/').pop()}`);
      for (const face of ['inter-latin-400-normal.woff2', 'inter-latin-700-normal.woff2', 'jetbrains-mono-latin-400-normal.woff2']) {
        assert.ok(fetched.includes(`200 ${face}`), `${face} fetched with 200 (got ${fetched.join(', ')})`);
      }
      assert.ok(reader.fontResponses.every((response) => response.status === 200), fetched.join(', '));
      assert.deepEqual(reader.problems, [], 'no console errors (a CSP violation would be one)');
      await shoot(page, 'desktop-en', 'page-no-js', { scrollToTop: false });
    } finally {
      await reader.context.close();
    }
  });

  test('the web fonts are the ones in use, and the page script-free under the public CSP', { timeout: 60_000 }, async () => {
    const url = await publish('/field-guide/pond-maintenance', richPageModel());
    const reader = await openReader({ ...DESKTOP });
    try {
      await reader.page.goto(url);
      const fonts = await reader.page.evaluate(async () => {
        await document.fonts.ready;
        const loaded = [...document.fonts].filter((face) => face.status === 'loaded').map((face) => `${face.family} ${face.weight} ${face.style}`);
        return { inter: document.fonts.check('16px Inter'), mono: document.fonts.check('16px "JetBrains Mono"'), loaded, scripts: document.scripts.length };
      });
      assert.ok(fonts.inter, 'Inter is loaded');
      assert.ok(fonts.mono, 'JetBrains Mono is loaded');
      assert.ok(fonts.loaded.some((face) => face.startsWith('Inter 400 normal')), fonts.loaded.join(', '));
      assert.equal(fonts.scripts, 0);
      assert.deepEqual(reader.problems, []);
    } finally {
      await reader.context.close();
    }
  });

  test('a site document with system fonts fetches no font file', { timeout: 60_000 }, async () => {
    const url = await publish('/', homeModel());
    const reader = await openReader({ ...DESKTOP, javaScriptEnabled: false });
    try {
      await reader.page.goto(url);
      await reader.page.waitForLoadState('networkidle');
      assert.deepEqual(reader.fontResponses, []);
    } finally {
      await reader.context.close();
    }
  });

  const looks = [
    { shape: 'desktop-en', options: { ...DESKTOP }, locale: 'en' as const, colorScheme: 'light' as const },
    { shape: 'desktop-en-dark', options: { ...DESKTOP, colorScheme: 'dark' as const }, locale: 'en' as const, colorScheme: 'dark' as const },
    { shape: 'phone-de', options: { ...PHONE }, locale: 'de' as const, colorScheme: 'light' as const },
    { shape: 'phone-en-dark', options: { ...PHONE, colorScheme: 'dark' as const }, locale: 'en' as const, colorScheme: 'dark' as const },
    { shape: 'desktop-de', options: { ...DESKTOP }, locale: 'de' as const, colorScheme: 'light' as const },
  ];

  for (const look of looks) {
    test(`every kind of document looks right and passes axe (${look.shape})`, { timeout: 120_000 }, async () => {
      const t = createTranslator(look.locale);
      const prefix = `/${look.shape}`;
      const screens: [string, PublicDocumentModel][] = [
        ['page', richPageModel({ locale: look.locale })],
        ['page-comments', commentedPageModel({ locale: look.locale, outline: [], children: [], backlinks: [] })],
        ['pond', pondIndexModel({ locale: look.locale })],
        ['pond-empty', pondIndexModel({ locale: look.locale, tree: [] })],
        ['home', homeModel({ locale: look.locale })],
        ['legal', legalModel({ locale: look.locale })],
      ];
      const reader = await openReader({ ...look.options });
      try {
        for (const [name, model] of screens) {
          const url = await publish(`${prefix}/${name}`, model);
          await reader.page.goto(url);
          await reader.page.evaluate(() => document.fonts.ready.then(() => undefined));
          const screen = `${name} (${look.shape})`;
          assert.equal(await reader.page.locator('html').getAttribute('lang'), look.locale);
          await reader.page.getByRole('link', { name: t('public.signIn') }).first().waitFor();
          await expectNoSidewaysScroll(reader.page, screen);
          await expectAccessible(reader.page, screen);
          if (name === 'page') await expectVisibleFocus(reader.page, screen);
          if (name === 'pond-empty') await reader.page.getByText(t('public.pondEmpty')).waitFor();
          if (name === 'page-comments') assert.equal(await reader.page.getByRole('region', { name: t('public.comments') }).getByRole('article').count(), 4, screen);
          await shoot(reader.page, look.shape, name);
        }
        assert.deepEqual(reader.problems, []);
      } finally {
        await reader.context.close();
      }
    });
  }

  test('print: the article alone on white, outside links spelled out', { timeout: 60_000 }, async () => {
    const url = await publish('/print/page', richPageModel());
    const reader = await openReader({ ...DESKTOP, colorScheme: 'dark' });
    try {
      await reader.page.goto(url);
      await reader.page.emulateMedia({ media: 'print' });
      const print = await reader.page.evaluate(() => ({
        background: getComputedStyle(document.body).backgroundColor,
        footer: getComputedStyle(document.querySelector('.site-footer') as Element).display,
        toc: getComputedStyle(document.querySelector('.doc-toc') as Element).display,
        outsideLink: getComputedStyle(document.querySelector('.doc-body a[href^="https:"]') as Element, '::after').content,
      }));
      assert.equal(print.background, 'rgb(255, 255, 255)');
      assert.equal(print.footer, 'none');
      assert.equal(print.toc, 'none');
      assert.match(print.outsideLink, /https:\/\/example\.org\/ponds/);
      await shoot(reader.page, 'desktop-en', 'print');
    } finally {
      await reader.context.close();
    }
  });
});

describe('the render route and the 404 page in a browser', () => {
  let siteServer: Server;
  let siteOrigin: string;

  before(async () => {
    const entry = fileURLToPath(new URL('../dist/server/entry.mjs', import.meta.url));
    const { handler } = (await import(pathToFileURL(entry).href)) as {
      handler: (req: IncomingMessage, res: ServerResponse, next: undefined, locals: { apiOrigin: string }) => Promise<void>;
    };
    const clientDir = fileURLToPath(new URL('../dist/client/_astro/', import.meta.url));
    // The pages' API reads go to a closed port, or (for paths without a route, which the
    // adapter renders without locals) to this server, which has no API: either way the
    // 404 page must still render, with the instance defaults.
    const apiOrigin = `http://127.0.0.1:${await freePort()}`;
    siteServer = createServer((req, res) => {
      if (req.url === '/favicon.svg') {
        res.writeHead(200, { 'Content-Type': 'image/svg+xml' });
        res.end(FAVICON);
        return;
      }
      if (req.url?.startsWith('/api/')) {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end('{"error":{"code":"unavailable"}}');
        return;
      }
      // The page's own stylesheets, as Express serves them in the app (api/http/mountSite.ts).
      const asset = /^\/_astro\/([\w.-]+\.(css|js))$/.exec(req.url ?? '');
      if (asset?.[1]) {
        res.writeHead(200, { 'Content-Type': asset[2] === 'css' ? 'text/css' : 'text/javascript' });
        res.end(readFileSync(path.join(clientDir, asset[1])));
        return;
      }
      void handler(req, res, undefined, { apiOrigin });
    });
    await new Promise<void>((resolve) => siteServer.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://127.0.0.1:${(siteServer.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => siteServer?.close(resolve));
  });

  test('the internal render route answers a browser with the friendly 404, never a document', async () => {
    const response = await fetch(`${siteOrigin}${PUBLIC_DOCUMENT_ROUTE}`);
    assert.equal(response.status, 404);
    const html = await response.text();
    assert.doesNotMatch(html, /class="doc-frame/);
    assert.match(html, /href="\/login\?next=%2F-dt%2Fpublic-document"/);
  });

  for (const locale of ['en', 'de'] as const) {
    test(`the 404 page offers home and sign-in, in ${locale}`, { timeout: 60_000 }, async () => {
      const t = createTranslator(locale);
      const context = await browser.newContext({ ...(locale === 'de' ? PHONE : DESKTOP), locale: locale === 'de' ? 'de-DE' : 'en-US' });
      try {
        const page = await context.newPage();
        const response = await page.goto(`${siteOrigin}/no-such-pond/no-such-page`);
        assert.equal(response?.status(), 404);
        await page.getByRole('heading', { level: 1, name: t('notFound.title') }).waitFor();
        assert.equal(await page.getByRole('main').getByRole('link', { name: t('notFound.signIn') }).getAttribute('href'), '/login?next=%2Fno-such-pond%2Fno-such-page');
        assert.equal(await page.getByRole('main').getByRole('link', { name: t('notFound.home') }).getAttribute('href'), '/');
        await expectAccessible(page, `404 (${locale})`);
        await shoot(page, locale === 'de' ? 'phone-de' : 'desktop-en', 'not-found');
      } finally {
        await context.close();
      }
    });
  }
});
