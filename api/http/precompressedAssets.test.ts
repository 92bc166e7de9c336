/**
 * The hashed bundles come compressed as the browser asks (brotli before gzip), from the variants
 * the build wrote; the same bytes once decoded; plain for a client that takes neither; Vary on
 * every answer; nothing outside the bundle directory. The files outside it (the favicon) are
 * served as files, every other path is a page.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const BUNDLES = fileURLToPath(new URL('../../site/dist/client/_astro/', import.meta.url));
let instance: TestInstance;

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true });
  await completeSetup(instance);
});
after(async () => instance?.close());

describe('precompressed bundles under /_astro', () => {
  /** Raw bytes as sent (fetch would decode them). */
  const get = (name: string, acceptEncoding: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(`${instance.baseUrl}/_astro/${name}`, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

  test('brotli, gzip or plain as asked, the same script each time, cached for good', async () => {
    const name = readdirSync(BUNDLES).find((file) => file.endsWith('.js') && readdirSync(BUNDLES).includes(`${file}.br`));
    assert.ok(name, 'the build wrote a .br beside a bundle');
    const plain = readFileSync(path.join(BUNDLES, name));

    const br = await get(name, 'gzip, deflate, br');
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.match(br.headers.vary ?? '', /Accept-Encoding/i);
    assert.match(br.headers['cache-control'] ?? '', /immutable/);
    const brBytes = br.body;
    assert.ok(brBytes.length < plain.length, 'smaller than the plain file');
    assert.deepEqual(brotliDecompressSync(brBytes), plain);

    const gzip = await get(name, 'gzip');
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gzip.body), plain);

    for (const refusing of ['identity', 'br;q=0, gzip;q=0']) {
      const response = await get(name, refusing);
      assert.equal(response.headers['content-encoding'], undefined, refusing);
      assert.match(response.headers.vary ?? '', /Accept-Encoding/i);
      assert.deepEqual(response.body, plain, refusing);
    }
  });

  test('a missing bundle is 404 and a way out of the directory finds nothing', async () => {
    assert.equal((await get('no-such-bundle.js', 'br')).status, 404);
    for (const escape of ['..%2F..%2Fserver%2Fentry.mjs', '%2e%2e/%2e%2e/server/entry.mjs']) {
      const response = await get(escape, 'br');
      assert.notEqual(response.headers['content-encoding'], 'br', escape);
      assert.ok(response.status === 404 || response.status === 400, `${escape}: ${response.status}`);
    }
  });
});

describe('the site\'s other files', () => {
  test('the favicon is a file revalidated hourly; a path that is no file is a page, also next to the file', async () => {
    const favicon = await fetch(`${instance.baseUrl}/favicon.svg`);
    assert.equal(favicon.status, 200);
    assert.match(favicon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(favicon.headers.get('cache-control') ?? '', /max-age=3600/);
    assert.deepEqual(Buffer.from(await favicon.arrayBuffer()), readFileSync(fileURLToPath(new URL('../../site/dist/client/favicon.svg', import.meta.url))));
    for (const pagePath of ['/favicon.svg.bak', '/no-such-pond', '/no-such-pond/favicon.svg']) {
      const response = await fetch(`${instance.baseUrl}${pagePath}`, { headers: { accept: 'text/html' } });
      assert.equal(response.status, 404, pagePath);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/, pagePath);
    }
  });
});
