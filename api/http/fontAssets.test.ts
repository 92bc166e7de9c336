/**
 * Font files over real HTTP: the catalog's faces with immutable caching, ETag and 304, HEAD,
 * 404 for everything else under the prefix (traversal in every spelling, unknown files), and
 * every URL that fontFaceCss hands out answers 200 with the package's bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FONT_CATALOG, type PondFonts } from '../ponds/fontCatalog.ts';
import { startTestInstance } from '../testing/testInstance.ts';
import { bodyFontPreload, fontFaceCss, webFontFiles } from '../publicPages/fontFaces.ts';
import { serveFontAsset } from './fontAssets.ts';

const require = createRequire(import.meta.url);
const interDir = path.dirname(require.resolve('@fontsource/inter/package.json'));
const interVersion = (JSON.parse(readFileSync(path.join(interDir, 'package.json'), 'utf8')) as { version: string }).version;
const INTER_REGULAR = `/assets/fonts/inter/${interVersion}/inter-latin-400-normal.woff2`;

const WEB_FONTS: PondFonts[] = [
  { body: 'inter', heading: 'source-serif-4', code: 'jetbrains-mono' },
  { body: 'ibm-plex-sans', heading: 'atkinson-hyperlegible', code: 'system-mono' },
];

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let server: Server;
let port: number;

/** A raw request: fetch would normalise `..` and encoded paths before sending them. */
function send(method: string, rawPath: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: rawPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveFontAsset', () => {
  before(async () => {
    // What the font handler does not take must reach the next handler untouched.
    server = createServer((req, res) => {
      if (serveFontAsset(req, res)) return;
      res.writeHead(418, { 'Content-Type': 'text/plain' });
      res.end('next handler');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('GET: the package file as font/woff2, cached for a year as immutable, with an ETag and nosniff', async () => {
    const answer = await send('GET', INTER_REGULAR);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'font/woff2');
    assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    assert.match(answer.headers.etag ?? '', /^"[\w-]{27}"$/);
    const file = readFileSync(path.join(interDir, 'files', 'inter-latin-400-normal.woff2'));
    assert.equal(answer.headers['content-length'], String(file.length));
    assert.ok(answer.body.equals(file), 'the bytes of the installed package');
    assert.equal(answer.body.subarray(0, 4).toString('latin1'), 'wOF2');
  });

  test('a query string does not change what is served', async () => {
    const answer = await send('GET', `${INTER_REGULAR}?v=1`);
    assert.equal(answer.status, 200);
  });

  test('If-None-Match with the ETag (alone, in a list, weak, or *) answers 304 without a body; another ETag gets the file', async () => {
    const { headers } = await send('GET', INTER_REGULAR);
    const etag = headers.etag ?? '';
    for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const answer = await send('GET', INTER_REGULAR, { 'If-None-Match': ifNoneMatch });
      assert.equal(answer.status, 304, ifNoneMatch);
      assert.equal(answer.body.length, 0);
      assert.equal(answer.headers.etag, etag);
      assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
    const stale = await send('GET', INTER_REGULAR, { 'If-None-Match': '"something-else"' });
    assert.equal(stale.status, 200);
    assert.ok(stale.body.length > 0);
  });

  test('HEAD: the headers of GET, no body', async () => {
    const get = await send('GET', INTER_REGULAR);
    const head = await send('HEAD', INTER_REGULAR);
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    assert.equal(head.headers.etag, get.headers.etag);
    assert.equal(head.headers['content-type'], 'font/woff2');
  });

  test('other methods under the prefix: 405 with Allow', async () => {
    const answer = await send('POST', INTER_REGULAR);
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET, HEAD');
  });

  const refused = [
    '/assets/fonts/../../package.json',
    '/assets/fonts/..%2F..%2Fpackage.json',
    '/assets/fonts/%2e%2e/%2e%2e/package.json',
    '/assets/fonts/%252e%252e/package.json',
    '/assets/fonts/..\\..\\package.json',
    `/assets/fonts/inter/${interVersion}/../../../../package.json`,
    `/assets/fonts/inter/${interVersion}/..%2f..%2f..%2f..%2fpackage.json`,
    `/assets/fonts/inter/${interVersion}/inter-latin-400-normal.woff`,
    `/assets/fonts/inter/${interVersion}/inter-cyrillic-400-normal.woff2`,
    `/assets/fonts/inter/${interVersion}/inter-latin-400-normal.woff2%00`,
    `/assets/fonts/inter/${interVersion}/INTER-LATIN-400-NORMAL.WOFF2`,
    `/assets/fonts/inter/${interVersion}/inter-latin-400-normal.woff2/`,
    `/assets/fonts/inter/0.0.1/inter-latin-400-normal.woff2`,
    `/assets/fonts/inter/${interVersion}/LICENSE`,
    '/assets/fonts/inter/package.json',
    '/assets/fonts/system-sans/1/system-sans-latin-400-normal.woff2',
    '/assets/fonts/',
    '/assets/fonts/%2fetc%2fpasswd',
    '/assets/fonts//etc/passwd',
  ];
  for (const rawPath of refused) {
    test(`404 for ${rawPath}`, async () => {
      const answer = await send('GET', rawPath);
      assert.equal(answer.status, 404);
      assert.equal(answer.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
      assert.equal(answer.headers['cache-control'], 'no-store');
      assert.equal(answer.body.toString('utf8'), 'Not Found');
    });
  }

  test('paths outside the prefix are left to the next handler', async () => {
    for (const rawPath of ['/assets/font', '/assets/fontsX/inter.woff2', '/favicon.svg', '/field-guide/page']) {
      const answer = await send('GET', rawPath);
      assert.equal(answer.status, 418, rawPath);
    }
  });

  test('every URL fontFaceCss hands out answers 200 with a woff2 file', async () => {
    const urls = new Set<string>();
    for (const fonts of WEB_FONTS) {
      for (const match of fontFaceCss(fonts).matchAll(/url\((\/assets\/fonts\/[^)]+)\)/g)) urls.add(match[1] ?? '');
    }
    // Five web fonts, four styles, two subsets.
    assert.equal(urls.size, 5 * 4 * 2);
    assert.deepEqual([...urls].sort(), [...webFontFiles().keys()].sort());
    for (const url of urls) {
      const answer = await send('GET', url);
      assert.equal(answer.status, 200, url);
      assert.equal(answer.body.subarray(0, 4).toString('latin1'), 'wOF2', url);
    }
  });
});

describe('the app serves the fonts (mounted in api/app.ts, ahead of the API and the site)', () => {
  test('a font URL answers 200 from the app, an unknown one 404, both with the app\'s security headers', { timeout: 60_000 }, async () => {
    const instance = await startTestInstance();
    try {
      const font = await fetch(`${instance.baseUrl}${INTER_REGULAR}`);
      assert.equal(font.status, 200);
      assert.equal(font.headers.get('content-type'), 'font/woff2');
      assert.equal(font.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(font.headers.get('x-frame-options'), 'DENY');
      assert.equal((await font.arrayBuffer()).byteLength, readFileSync(path.join(interDir, 'files', 'inter-latin-400-normal.woff2')).length);
      const missing = await fetch(`${instance.baseUrl}/assets/fonts/inter/${interVersion}/nope.woff2`);
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
    } finally {
      await instance.close();
    }
  });
});

describe('fontFaceCss', () => {
  test('faces of the chosen web fonts only, each once, with swap, unicode ranges and versioned URLs', () => {
    const css = fontFaceCss({ body: 'inter', heading: 'inter', code: 'jetbrains-mono' });
    assert.equal(css.match(/@font-face/g)?.length, 2 * 4 * 2, 'Inter once although two slots use it');
    assert.equal(css.match(/font-family:'Inter'/g)?.length, 8);
    assert.equal(css.match(/font-family:'JetBrains Mono'/g)?.length, 8);
    assert.equal(css.match(/font-display:swap/g)?.length, 16);
    assert.match(css, new RegExp(`src:url\\(/assets/fonts/inter/${interVersion.replaceAll('.', '\\.')}/inter-latin-ext-700-italic\\.woff2\\) format\\('woff2'\\);unicode-range:U\\+0100-02BA`));
    assert.match(css, /font-style:italic;font-weight:400/);
    assert.doesNotMatch(css, /Source Serif|IBM Plex/);
  });

  test('the slot variables carry the catalog stacks', () => {
    const css = fontFaceCss({ body: 'source-serif-4', heading: 'ibm-plex-sans', code: 'jetbrains-mono' });
    const stack = (id: string) => FONT_CATALOG.find((font) => font.id === id)?.stack;
    assert.ok(css.endsWith(`:root{--font-body:${stack('source-serif-4')};--font-heading:${stack('ibm-plex-sans')};--font-code:${stack('jetbrains-mono')}}`));
  });

  test('every web font family is the first name its catalog stack asks for', () => {
    const families = new Set([...fontFaceCss({ body: 'inter', heading: 'source-serif-4', code: 'jetbrains-mono' }).matchAll(/font-family:'([^']+)'/g)].map((match) => match[1]));
    for (const family of families) {
      const font = FONT_CATALOG.find((entry) => entry.name === family);
      assert.ok(font, family);
      assert.match(font.stack, new RegExp(`^"?${family}"?,`));
    }
  });

  test('system fonts: no faces, only the variables; an id the catalog lost falls back to the slot default', () => {
    const css = fontFaceCss({ body: 'system-serif', heading: 'system-sans', code: 'no-such-font' });
    assert.doesNotMatch(css, /@font-face/);
    assert.match(css, /--font-body:Charter,/);
    assert.match(css, /--font-code:ui-monospace,/);
    assert.equal(bodyFontPreload({ body: 'system-sans', heading: 'inter', code: 'system-mono' }), null);
  });

  test('the same fonts give the same string', () => {
    const fonts = { body: 'atkinson-hyperlegible', heading: 'source-serif-4', code: 'jetbrains-mono' };
    assert.equal(fontFaceCss({ ...fonts }), fontFaceCss({ ...fonts }));
    assert.equal(bodyFontPreload(fonts), bodyFontPreload({ ...fonts }));
    assert.match(bodyFontPreload(fonts) ?? '', /\/atkinson-hyperlegible-latin-400-normal\.woff2$/);
  });
});
