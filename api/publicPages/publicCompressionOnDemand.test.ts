/**
 * A generated document's gzip and brotli variants are made at their first request, not at
 * generation (encodeDocument, publicHotPath.ts): issue 43. What a request gets must be what
 * generation used to store — the same compressed bytes and headers — and the variant made goes
 * back to storage, so a later load (another process, or after the cache let go) serves it as
 * stored instead of compressing again.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { completeSetup } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { compressDocument } from './publicDocumentGenerator.ts';
import { publicFixture, type PublicFixture } from './publicTestFixture.ts';

let instance: TestInstance;
let fixture: PublicFixture;

/** node:http, not fetch: fetch would decode the content-coding the test wants to see. */
function anonymous(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, instance.baseUrl), { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

async function storedVariants(path: string): Promise<{ html: Buffer; gzip: Buffer; brotli: Buffer; etag: string }> {
  const [row] = await instance.services.sequelize.query<{ html: Buffer; gzip: Buffer; brotli: Buffer; etag: string }>(
    `SELECT html, gzip, brotli, etag FROM public_documents WHERE path = $1`,
    { bind: [path], type: QueryTypes.SELECT },
  );
  assert.ok(row, `a stored document at ${path}`);
  return row;
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(what);
}

before(async () => {
  instance = await startTestInstance();
  const admin = await completeSetup(instance);
  fixture = await publicFixture(instance, admin);
});

after(async () => {
  await instance.close();
});

test('a variant is compressed at its first request, served as generation made it, and stored for later loads', async () => {
  const url = `/${fixture.pond.slug}/guide`;
  const path = url.toLowerCase();
  const identity = await anonymous(url, { 'accept-encoding': 'identity' });
  assert.equal(identity.status, 200);
  const generated = await storedVariants(path);
  assert.equal(generated.brotli.length, 0, 'generation compressed nothing');
  assert.equal(generated.gzip.length, 0, 'generation compressed nothing');

  const br = await anonymous(url, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.deepEqual(br.bytes, compressDocument(identity.bytes, 'br'), 'the bytes generation used to store');
  assert.equal(br.headers['content-length'], String(br.bytes.length));
  assert.equal(br.headers.etag, `${generated.etag.slice(0, -1)}-br"`);
  await eventually(async () => (await storedVariants(path)).brotli.length > 0, 'the brotli variant reached storage');
  assert.deepEqual((await storedVariants(path)).brotli, br.bytes);
  assert.equal((await storedVariants(path)).gzip.length, 0, 'a variant nobody asked for stays unmade');

  const gzip = await anonymous(url, { 'accept-encoding': 'gzip' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.deepEqual(gzip.bytes, compressDocument(identity.bytes, 'gzip'));
  await eventually(async () => (await storedVariants(path)).gzip.length > 0, 'the gzip variant reached storage');

  // A cold cache loads the row with both variants and serves them as stored.
  instance.publicLayer.cache.invalidate('*');
  const again = await anonymous(url, { 'accept-encoding': 'br' });
  assert.deepEqual(again.bytes, br.bytes);
  assert.deepEqual(again.headers, { ...br.headers, date: again.headers.date, 'keep-alive': again.headers['keep-alive'], connection: again.headers.connection });
});
