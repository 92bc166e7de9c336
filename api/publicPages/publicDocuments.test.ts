/**
 * The generated public layer end to end over HTTP: one URL per page, stored bytes served by
 * the hot path, conditional requests and encodings, revocation on the next request, and the
 * 404 that hides existence. Dependencies and transclusions: publicDocumentDependencies.test.ts.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import type { TestClient } from '../testing/testClient.ts';
import { publicFixture, type PublicFixture } from './publicTestFixture.ts';

let instance: TestInstance;
let admin: TestClient;
let fixture: PublicFixture;

/** node:http, not fetch: fetch would decode the content-coding the test wants to see. */
function anonymous(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, instance.baseUrl), { method, headers: { 'accept-encoding': 'identity', ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: response.statusCode!, headers: responseHeaders, bytes: Buffer.concat(chunks) });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  fixture = await publicFixture(instance, admin);
});

after(async () => {
  await instance.close();
});

describe('one URL per page', () => {
  test('a public page is served as one self-contained document without any script', async () => {
    const response = await anonymous(`/${fixture.pond.slug}/guide`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = response.bytes.toString('utf8');
    assert.match(html, /<h1[^>]*>Guide<\/h1>/);
    assert.ok(!/<script/i.test(html), 'no script element');
    assert.match(html, new RegExp(`<link rel="canonical" href="${instance.baseUrl}/${fixture.pond.slug}/guide"`));
    assert.match(html, new RegExp(`type="application/atom\\+xml"[^>]*href="${instance.baseUrl}/api/v1/public/${fixture.pond.slug}/feed.xml"|href="${instance.baseUrl}/api/v1/public/${fixture.pond.slug}/feed.xml"[^>]*type="application/atom\\+xml"`));
    assert.match(html, /Installation/, 'its public child is listed');
    assert.ok(!html.includes('Secret plans'), 'a private child is not listed');
    const csp = response.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.ok(!/script-src/.test(csp), 'no script source');
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(response.headers.get('referrer-policy'));
  });

  test('anonymous readers at the human URL, anyone at the API route and the Markdown get the same bytes; a session gets the app at the human URL', async () => {
    const cookie = { cookie: `dt_session=${admin.sessionCookie}` };
    const plain = await anonymous(`/${fixture.pond.slug}/guide`);
    const api = await anonymous(`/api/v1/public/${fixture.pond.slug}/guide`);
    const memberApi = await anonymous(`/api/v1/public/${fixture.pond.slug}/guide`, cookie);
    const upper = await anonymous(`/${fixture.pond.slug.toUpperCase()}/GUIDE`);
    assert.deepEqual(api.bytes, plain.bytes);
    assert.deepEqual(memberApi.bytes, plain.bytes);
    assert.deepEqual(upper.bytes, plain.bytes);
    assert.deepEqual((await anonymous(`/${fixture.pond.slug}/guide.md`, cookie)).bytes, (await anonymous(`/${fixture.pond.slug}/guide.md`)).bytes);
    // The app answers there (Astro; this instance runs without the site): not the stored document.
    for (const path of [`/${fixture.pond.slug}/guide`, `/${fixture.pond.slug}`]) {
      const member = await anonymous(path, cookie);
      assert.notEqual(member.headers.get('etag'), plain.headers.get('etag'), path);
      assert.notEqual(member.headers.get('content-security-policy'), plain.headers.get('content-security-policy'), path);
    }
  });

  test('ETag and Last-Modified revalidate to 304; HEAD sends headers only', async () => {
    const first = await anonymous(`/${fixture.pond.slug}/guide`);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(first.headers.get('cache-control'), 'public, no-cache');
    const revalidated = await anonymous(`/${fixture.pond.slug}/guide`, { 'if-none-match': etag });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.bytes.length, 0);
    const byDate = await anonymous(`/${fixture.pond.slug}/guide`, { 'if-modified-since': first.headers.get('last-modified')! });
    assert.equal(byDate.status, 304);
    const stale = await anonymous(`/${fixture.pond.slug}/guide`, { 'if-none-match': '"something-else"' });
    assert.equal(stale.status, 200);
    const head = await anonymous(`/${fixture.pond.slug}/guide`, {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.bytes.length, 0);
    assert.equal(head.headers.get('content-length'), String(first.bytes.length));
  });

  test('Accept-Encoding picks the stored brotli or gzip variant of the same bytes', async () => {
    const identity = await anonymous(`/${fixture.pond.slug}/guide`);
    const br = await anonymous(`/${fixture.pond.slug}/guide`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.match(br.headers.get('vary')!, /Accept-Encoding/);
    assert.deepEqual(brotliDecompressSync(br.bytes), identity.bytes);
    const gzip = await anonymous(`/${fixture.pond.slug}/guide`, { 'accept-encoding': 'gzip, br;q=0' });
    assert.equal(gzip.headers.get('content-encoding'), 'gzip');
    assert.deepEqual(gunzipSync(gzip.bytes), identity.bytes);
    // Revalidation works whichever variant the cache holds.
    const revalidated = await anonymous(`/${fixture.pond.slug}/guide`, { 'if-none-match': br.headers.get('etag')! });
    assert.equal(revalidated.status, 304);
  });

  test('Markdown by .md and by Accept; JSON content for a single-page client', async () => {
    const md = await anonymous(`/${fixture.pond.slug}/guide.md`);
    assert.equal(md.status, 200);
    assert.equal(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.match(md.bytes.toString('utf8'), /Welcome to the guide/);
    const negotiated = await anonymous(`/${fixture.pond.slug}/guide`, { accept: 'text/markdown' });
    assert.deepEqual(negotiated.bytes, md.bytes);
    assert.match(negotiated.headers.get('vary')!, /Accept,/);
    const browser = await anonymous(`/${fixture.pond.slug}/guide`, { accept: 'text/html,application/xhtml+xml,text/markdown;q=0.5' });
    assert.equal(browser.headers.get('content-type'), 'text/html; charset=utf-8');
    const content = await anonymous(`/api/v1/public/${fixture.pond.slug}/install/content`);
    assert.equal(content.status, 200);
    const json = JSON.parse(content.bytes.toString('utf8'));
    assert.equal(json.title, 'Installation');
    assert.equal(json.slug, 'install');
    assert.equal(json.pondSlug, fixture.pond.slug);
    assert.deepEqual(json.breadcrumbs, [{ title: 'Guide', slug: 'guide' }]);
    assert.match(json.html, /Install it/);
    assert.ok(Array.isArray(json.outline) && Array.isArray(json.children) && typeof json.updatedAt === 'string');
  });

  test('the pond index lists the public page tree only', async () => {
    const response = await anonymous(`/${fixture.pond.slug}`);
    assert.equal(response.status, 200);
    const html = response.bytes.toString('utf8');
    assert.match(html, /Guide/);
    assert.match(html, /Installation/);
    assert.ok(!html.includes('Secret plans'));
  });

  test('a private page, a missing page and a pond with nothing public answer the same 404', async () => {
    const privatePage = await anonymous(`/${fixture.pond.slug}/secret`);
    const missing = await anonymous(`/${fixture.pond.slug}/no-such-page`);
    const privatePond = await anonymous(`/${fixture.privatePond.slug}/notes`);
    const missingPond = await anonymous(`/no-such-pond/notes`);
    for (const response of [privatePage, missing, privatePond, missingPond]) assert.equal(response.status, 404);
    assert.deepEqual(privatePage.bytes, missing.bytes);
    assert.deepEqual(privatePond.bytes, missingPond.bytes);
    const apiPrivate = await anonymous(`/api/v1/public/${fixture.pond.slug}/secret`);
    const apiMissing = await anonymous(`/api/v1/public/${fixture.pond.slug}/no-such-page/content`);
    assert.equal(apiPrivate.status, 404);
    assert.equal(apiMissing.status, 404);
    assert.equal(JSON.parse(apiPrivate.bytes.toString()).error.code, 'not_found');
    assert.equal((await anonymous(`/${fixture.privatePond.slug}`)).status, 404);
  });

  test('a document missing from storage is generated once on the next request, then served from storage', async () => {
    await instance.services.sequelize.query(`DELETE FROM public_documents`);
    instance.publicLayer.cache.invalidate('*');
    const responses = await Promise.all(Array.from({ length: 8 }, () => anonymous(`/${fixture.pond.slug}/install`)));
    for (const response of responses) assert.equal(response.status, 200);
    const [rows] = await instance.services.sequelize.query(`SELECT generated_at FROM public_documents WHERE path = '/${fixture.pond.slug}/install'`);
    assert.equal(rows.length, 1);
  });
});

describe('the cache frees what it lets go of, never bytes a response still writes', () => {
  /** Two requests written at once: the second response waits behind the first, unsent. */
  function pipelined(path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const url = new URL(instance.baseUrl);
      const socket = connect(Number(url.port), url.hostname, () => {
        const request = `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Encoding: identity\r\n\r\n`;
        socket.write(request + request.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
      });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
  }

  test('an entry whose bytes wait in a response queue is pinned; evicted, it is still served whole', async () => {
    const path = `/${fixture.pond.slug}/guide`;
    const single = await anonymous(path);
    assert.equal(single.status, 200);
    const cached = instance.publicLayer.cache.get(path)!;
    assert.equal(cached.pinned, false, 'a response written at once leaves the entry free to go');
    const raw = pipelined(path);
    const text = await raw;
    assert.equal(text.split('HTTP/1.1 200 OK').length - 1, 2);
    assert.equal(text.split(single.bytes.toString('utf8')).length - 1, 2, 'both responses carry the whole document');
    const entry = instance.publicLayer.cache.get(path)!;
    assert.equal(entry.pinned, true, 'the second response was queued behind the first: its bytes were not sent at once');
    instance.publicLayer.cache.invalidate(path);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(entry.memory.buffer.detached, false, 'a pinned entry is left to the garbage collector');
    assert.equal((await anonymous(path)).bytes.toString('utf8'), single.bytes.toString('utf8'));
    const fresh = instance.publicLayer.cache.get(path)!;
    instance.publicLayer.cache.invalidate(path);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(fresh.memory.buffer.detached, true, 'an entry no response holds is freed once dropped');
  });
});

describe('revoking public read', () => {
  test('the next request on the same process answers 404, and granting again brings the page back', async () => {
    await resetRateLimits(instance);
    const { client, user } = await createVerifiedUser(instance);
    const pond = (await client.post('/ponds', { name: 'Revocable' })).body as { id: string; slug: string };
    assert.equal((await client.post(`/ponds/${pond.id}/pages`, { title: 'Notice', slug: 'notice', markdown: 'Public for now.' })).status, 201);
    const grant = await client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
    assert.equal(grant.status, 201, grant.text);
    assert.equal((await anonymous(`/${pond.slug}/notice`)).status, 200);
    assert.equal((await anonymous(`/${pond.slug}/notice`)).status, 200, 'now from the cache');
    assert.equal((await client.request('DELETE', `/ponds/${pond.id}/grants/${grant.body.id}`)).status, 204);
    assert.equal((await anonymous(`/${pond.slug}/notice`)).status, 404);
    assert.equal((await anonymous(`/api/v1/public/${pond.slug}/notice`)).status, 404);
    const [rows] = await instance.services.sequelize.query(`SELECT 1 FROM public_documents WHERE pond_id = '${pond.id}'`);
    assert.equal(rows.length, 0, 'the stored documents went in the same transaction');
    assert.equal((await client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' })).status, 201);
    assert.equal((await anonymous(`/${pond.slug}/notice`)).status, 200);
    assert.ok(user.id);
  });
});
