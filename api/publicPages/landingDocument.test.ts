/**
 * The landing page `/` for visitors as generated, stored documents (issue 35): one per locale,
 * picked by `Accept-Language` as every screen negotiates it (else the instance default),
 * served by the hot path with ETag/304, pre-compressed variants and `Vary: Accept-Language,
 * Cookie, Accept-Encoding`; Sign up only while registration is open; the public ponds and the
 * recently changed public pages, regenerated when they change (a burst of saves costs one
 * regeneration), dropped at once when access changes; nothing private is ever named. (A
 * session cookie still gets the member's home from the site: site/e2e/landing.test.ts.)
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { completeSetup } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { runQueuedRegeneration } from './publicDocumentJob.ts';
import { grantPublic, publicFixture, type PublicFixture } from './publicTestFixture.ts';

let instance: TestInstance;
let admin: TestClient;
let fixture: PublicFixture;

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
}

/** node:http, not fetch: fetch would decode the content-coding the test wants to see. */
function visit(headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL('/', instance.baseUrl), { headers: { 'accept-encoding': 'identity', ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, headers: responseHeaders, bytes, text: bytes.toString('utf8') });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

const english = () => visit({ 'accept-language': 'en-GB,en;q=0.9' });
const german = () => visit({ 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });

async function storedLanding(): Promise<Map<string, string>> {
  const [rows] = (await instance.services.sequelize.query(`SELECT path, etag FROM public_documents WHERE kind = 'home' ORDER BY path`)) as [{ path: string; etag: string }[], unknown];
  return new Map(rows.map((row) => [row.path, row.etag]));
}

async function regenerate() {
  return runQueuedRegeneration({ sequelize: instance.services.sequelize, fallbackBaseUrl: instance.baseUrl }, instance.services.logger);
}

async function setRegistration(mode: 'open' | 'closed'): Promise<void> {
  assert.equal((await admin.request('PATCH', '/admin/settings', { body: { 'registration.mode': mode } })).status, 200);
}

/** The main element's text: what the landing page names (the header and footer name the instance only). */
function mainText(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)?.[0] ?? '';
}

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance, { registration: 'closed' });
});
after(() => instance.close());

describe('the landing page as stored documents', () => {
  test("a visitor's / is the stored document of their language, without any script, with its own ETag per language", async () => {
    const de = await german();
    assert.equal(de.status, 200);
    assert.equal(de.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(de.text, /<html lang="de"/);
    assert.ok(de.text.includes('Willkommen bei Testteich'));
    assert.ok(de.text.includes('Öffentliche Teiche') && de.text.includes('Noch hat kein Teich öffentliche Seiten.'));
    assert.ok(!/<script/i.test(de.text), 'no script');
    assert.match(de.headers.get('content-security-policy') ?? '', /^default-src 'none'/);
    assert.equal(de.headers.get('cache-control'), 'public, no-cache');
    assert.equal(de.headers.get('vary'), 'Accept-Language, Cookie, Accept-Encoding');
    const en = await english();
    assert.match(en.text, /<html lang="en"/);
    assert.ok(en.text.includes('Welcome to Testteich') && en.text.includes('Public ponds') && en.text.includes('No pond has public pages yet.'));
    assert.notEqual(en.headers.get('etag'), de.headers.get('etag'), 'each language its own ETag');
    // Served from storage: the bytes are the stored rows' (one per locale).
    assert.deepEqual([...(await storedLanding()).entries()], [
      ['/#de', de.headers.get('etag')],
      ['/#en', en.headers.get('etag')],
    ]);
    // The browser's language as /login picks it: q-values count, an unknown one falls back to the instance default (en).
    assert.match((await visit({ 'accept-language': 'fr-FR, de;q=0.8, en;q=0.3' })).text, /<html lang="de"/);
    assert.equal((await visit({ 'accept-language': 'fr' })).headers.get('etag'), en.headers.get('etag'));
    assert.equal((await visit()).headers.get('etag'), en.headers.get('etag'));
  });

  test('revalidation answers 304; br and gzip are the pre-compressed variants of the same bytes', async () => {
    const first = await german();
    const etag = first.headers.get('etag')!;
    const again = await visit({ 'accept-language': 'de', 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.bytes.length, 0);
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(again.headers.get('vary'), 'Accept-Language, Cookie, Accept-Encoding');
    // The English document's ETag does not revalidate the German one.
    const other = await visit({ 'accept-language': 'de', 'if-none-match': (await english()).headers.get('etag')! });
    assert.equal(other.status, 200);
    const br = await visit({ 'accept-language': 'de', 'accept-encoding': 'br, gzip' });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.deepEqual(brotliDecompressSync(br.bytes), first.bytes);
    const gzip = await visit({ 'accept-language': 'de', 'accept-encoding': 'gzip' });
    assert.equal(gzip.headers.get('content-encoding'), 'gzip');
    assert.deepEqual(gunzipSync(gzip.bytes), first.bytes);
    assert.equal((await visit({ 'accept-language': 'de', 'accept-encoding': 'br', 'if-none-match': br.headers.get('etag')! })).status, 304);
  });

  test('Sign up appears while registration is open and is gone once it is closed', async () => {
    assert.ok(!(await english()).text.includes('href="/signup"'));
    await setRegistration('open');
    for (const answer of [await english(), await german()]) {
      assert.ok(answer.text.includes('href="/login"'));
      assert.ok(answer.text.includes('href="/signup"'), 'Sign up while registration is open');
    }
    await setRegistration('closed');
    assert.ok(!(await german()).text.includes('href="/signup"'), 'no Sign up once it is closed');
  });

  test('the public ponds and pages are listed, nothing private is named; access changes drop the documents at once', async () => {
    fixture = await publicFixture(instance, admin);
    const listed = mainText((await english()).text);
    assert.ok(listed.includes('href="/handbook"') && listed.includes('2 public pages'));
    assert.ok(listed.includes('href="/handbook/guide"') && listed.includes('href="/handbook/install"'));
    for (const hidden of ['Secret plans', '/handbook/secret', 'Private', 'private-pond', 'Notes']) assert.ok(!listed.includes(hidden), `${hidden} is not named`);

    // A page made public shows up (its pond with it); made private again, both are gone.
    const [notes] = (await admin.get(`/ponds/${fixture.privatePond.id}/pages`)).body.items as { id: string }[];
    const grantId = await grantPublic(admin, fixture.privatePond.id, { type: 'page', id: notes!.id });
    const shown = mainText((await german()).text);
    assert.ok(shown.includes('href="/private-pond/notes"') && shown.includes('>Notes<'), 'the page made public is listed');
    assert.ok(shown.includes('href="/private-pond"'), 'and its pond');
    assert.equal((await admin.request('DELETE', `/ponds/${fixture.privatePond.id}/grants/${grantId}`)).status, 204);
    assert.deepEqual([...(await storedLanding()).keys()], [], 'the access change dropped the landing documents in its transaction');
    for (const answer of [await german(), await english()]) {
      const text = mainText(answer.text);
      assert.ok(!text.includes('Notes') && !text.includes('private-pond'), 'private again: not named');
    }
  });

  test('saving a public page regenerates the landing documents once for a burst; a private save leaves them be', async () => {
    await english();
    await german();
    await regenerate();
    const before = await storedLanding();
    assert.equal(before.size, 2);
    for (const title of ['Guide 1', 'Guide 2', 'Guide to the pond']) {
      assert.equal((await admin.request('PATCH', `/pages/${fixture.pages.guide}`, { body: { title } })).status, 200);
    }
    // The handbook has no stored page documents (none was requested): the batch is the two landing documents.
    const report = await regenerate();
    assert.deepEqual(report, { generated: 2, changed: 2 });
    const after = await storedLanding();
    for (const [path, etag] of before) assert.notEqual(after.get(path), etag, `${path} regenerated`);
    const recent = mainText((await english()).text);
    assert.ok(recent.includes('Guide to the pond') && !recent.includes('Guide 1'));
    assert.ok(recent.indexOf('Guide to the pond') < recent.indexOf('Installation'), 'newest first');

    // A page of a pond without a public grant is not the landing's business.
    const [notes] = (await admin.get(`/ponds/${fixture.privatePond.id}/pages`)).body.items as { id: string }[];
    assert.equal((await admin.request('PATCH', `/pages/${notes!.id}`, { body: { title: 'Private notes' } })).status, 200);
    assert.deepEqual(await regenerate(), { generated: 0, changed: 0 });
    assert.deepEqual(await storedLanding(), after);
  });

  test('renaming a public pond regenerates the landing documents with its new name', async () => {
    assert.equal((await admin.request('PATCH', `/ponds/${fixture.pond.id}`, { body: { name: 'Pond handbook' } })).status, 200);
    await regenerate();
    const text = mainText((await german()).text);
    assert.ok(text.includes('>Pond handbook<'), text);
  });
});
