/**
 * `GET /api/v1/media/:fileId` against a real instance: access (404 hides existence), headers
 * per type, the integrity check, conditional and range requests, HEAD, and a client that
 * leaves mid-download. Rows and bytes are seeded directly (the upload route is tested apart).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import path from 'node:path';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { storedFilePath } from '../files/fileStore.ts';
import { mediaHashCount } from '../files/verifiedFileMemory.ts';
import type { Page, Pond } from '../models/index.ts';
import { seedGrant, seedPage } from '../testing/accessFixtures.ts';
import { capturingLogger } from '../testing/mailRelay.ts';
import { waitFor } from '../testing/polling.ts';
import { assertError, auditOf, MISSING_UUID, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

const MEDIA_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\nsecret quarterly numbers 0123456789\n%%EOF\n');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface SeededFile {
  id: string;
  path: string;
  sha256: string;
  bytes: Buffer;
}

interface SeedFileOptions {
  bytes: Buffer;
  extension: string;
  contentType: string;
  name?: string;
  /** false: the row pre-dates hashing (sha256 null). */
  hashed?: boolean;
  /** 'claimed' sets page_id, 'uploaded' only upload_page_id, 'none' neither. */
  link?: 'claimed' | 'uploaded' | 'none';
}

interface MediaResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  body: any;
}

describe('GET /media/:fileId', () => {
  const log = capturingLogger('api');
  const cast = usePondCast(() => ({ logger: log.logger }));

  async function seedFile(page: Page, options: SeedFileOptions): Promise<SeededFile> {
    const sha256 = sha256Of(options.bytes);
    const link = options.link ?? 'claimed';
    const [row] = await cast.instance.services.sequelize.query<{ id: string }>(
      `INSERT INTO files (pond_id, page_id, upload_page_id, extension, content_type, size_bytes, sha256, name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      {
        bind: [page.pondId, link === 'claimed' ? page.id : null, link === 'uploaded' ? page.id : null, options.extension, options.contentType, options.bytes.length, options.hashed === false ? null : sha256, options.name ?? ''],
        type: QueryTypes.SELECT,
      },
    );
    const file = storedFilePath(cast.instance.services.config.dataDir, row!.id);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, options.bytes);
    return { id: row!.id, path: file, sha256, bytes: options.bytes };
  }

  /** A team pond (owner, editor, reader) with one page. */
  async function pondWithPage(): Promise<{ pond: Pond; page: Page }> {
    const pond = await cast.seedTeamPond();
    return { pond, page: await seedPage(pond.id, 'Attachments') };
  }

  /** Fetches a media URL as `client` (null: anonymous), keeping the body as bytes. */
  async function media(client: TestClient | null, fileId: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<MediaResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (client && client.cookies.size > 0) headers.cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${cast.instance.baseUrl}/api/v1/media/${fileId}`, { method: options.method ?? 'GET', headers, redirect: 'manual' });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, bytes, text, body };
  }

  const storedHash = async (fileId: string) =>
    (await cast.instance.services.sequelize.query<{ sha256: string | null }>(`SELECT sha256 FROM files WHERE id = $1`, { bind: [fileId], type: QueryTypes.SELECT }))[0]?.sha256;

  function assertServedWhole(response: MediaResponse, file: SeededFile, contentType: string): void {
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.bytes, file.bytes);
    assert.equal(response.headers.get('content-type'), contentType);
    assert.equal(response.headers.get('content-length'), String(file.bytes.length));
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('content-security-policy'), MEDIA_CSP);
    assert.equal(response.headers.get('cache-control'), 'private, no-cache');
    assert.equal(response.headers.get('etag'), `"${file.sha256}"`);
    assert.equal(response.headers.get('accept-ranges'), 'bytes');
  }

  describe('answers by type', () => {
    test('a reader gets a PNG inline with its bytes and headers', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PNG, extension: 'png', contentType: 'image/png', name: 'pixel.png' });
      const response = await media(cast.reader.client, file.id);
      assertServedWhole(response, file, 'image/png');
      assert.equal(response.headers.get('content-disposition'), 'inline');
    });

    test('a PDF is a named download; its non-ASCII name only in filename*', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf', name: 'Bäume "Q1".pdf' });
      const response = await media(cast.reader.client, file.id);
      assertServedWhole(response, file, 'application/pdf');
      assert.equal(response.headers.get('content-disposition'), `attachment; filename="Baume _Q1_.pdf"; filename*=UTF-8''B%C3%A4ume%20%22Q1%22.pdf`);
    });

    test('an SVG (it can hold script) is a download too; without a name it is called <id>.svg', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: SVG, extension: 'svg', contentType: 'image/svg+xml' });
      const response = await media(cast.reader.client, file.id);
      assertServedWhole(response, file, 'image/svg+xml');
      assert.equal(response.headers.get('content-disposition'), `attachment; filename="${file.id}.svg"; filename*=UTF-8''${file.id}.svg`);
    });

    test('an unclaimed upload is served under its upload page', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PNG, extension: 'png', contentType: 'image/png', link: 'uploaded' });
      assertServedWhole(await media(cast.reader.client, file.id), file, 'image/png');
      assertError(await media(cast.outsider.client, file.id), 404, 'not_found');
    });
  });

  describe('access: one 404 for unreadable and unknown', () => {
    test('an outsider gets the same answer as for an unknown or malformed id', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      const refused = await media(cast.outsider.client, file.id);
      assertError(refused, 404, 'not_found');
      assert.equal(refused.headers.get('content-disposition'), null);
      const unknown = await media(cast.outsider.client, MISSING_UUID);
      assert.deepEqual(refused.body, unknown.body);
      // (A NUL or a broken surrogate in the id is refused earlier, by the route table's text guard: 400.)
      for (const malformed of ['x', 'not-a-uuid', `${file.id}0`, file.id.replaceAll('-', ''), '%E2%80%AE', '..%2Ffiles']) {
        assert.deepEqual((await media(cast.reader.client, malformed)).body, unknown.body, malformed);
      }
    });

    test('a file of no page is found by nobody, its pond admin included', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf', link: 'none' });
      assertError(await media(cast.owner.client, file.id), 404, 'not_found');
    });

    test('anonymous: 404 without a public grant, 200 once the page is public; its sibling stays hidden', async () => {
      const { pond, page } = await pondWithPage();
      const sibling = await seedPage(pond.id, 'Private sibling');
      const file = await seedFile(page, { bytes: PNG, extension: 'png', contentType: 'image/png' });
      const siblingFile = await seedFile(sibling, { bytes: PNG, extension: 'png', contentType: 'image/png' });
      assertError(await media(null, file.id), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } });
      assertServedWhole(await media(null, file.id), file, 'image/png');
      assertError(await media(null, siblingFile.id), 404, 'not_found');
    });

    test('a trashed page hides its files with a plain not_found, also from those who may see the trash', async () => {
      const { pond } = await pondWithPage();
      const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
      const file = await seedFile(trashed, { bytes: PNG, extension: 'png', contentType: 'image/png' });
      for (const person of [cast.reader, cast.editor, cast.owner]) assertError(await media(person.client, file.id), 404, 'not_found');
    });
  });

  describe('integrity', () => {
    test('a flipped byte: 500 attachment_integrity_failure, no byte of the file, an audit entry with both hashes', async () => {
      const { pond, page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      const tampered = Buffer.from(file.bytes);
      tampered[12] = tampered[12]! ^ 0x01;
      await writeFile(file.path, tampered);
      for (const headers of [{}, { range: 'bytes=0-3' }] as Record<string, string>[]) {
        const response = await media(cast.reader.client, file.id, { headers });
        assertError(response, 500, 'attachment_integrity_failure');
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(response.headers.get('content-disposition'), null);
        assert.ok(!response.text.includes('quarterly') && !response.text.includes('%PDF'), response.text);
      }
      const entries = await auditOf('file.integrity_failed', pond.id);
      assert.equal(entries.length, 2);
      assert.deepEqual(entries[0]!.details, { fileId: file.id, pondId: pond.id, expected: file.sha256, actual: sha256Of(tampered) });
      assert.equal(entries[0]!.actorId, cast.reader.user.id);
    });

    test('bytes missing on disk fail the same way (actual: null); HEAD too', async () => {
      const { pond, page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PNG, extension: 'png', contentType: 'image/png' });
      await rm(file.path);
      assertError(await media(cast.reader.client, file.id), 500, 'attachment_integrity_failure');
      assert.equal((await media(cast.reader.client, file.id, { method: 'HEAD' })).status, 500);
      const entries = await auditOf('file.integrity_failed', pond.id);
      assert.deepEqual(entries[0]?.details, { fileId: file.id, pondId: pond.id, expected: file.sha256, actual: null });
    });

    test('a row without a hash gets it stored on the first read and is served', async () => {
      const { pond, page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf', hashed: false });
      assert.equal(await storedHash(file.id), null);
      assertServedWhole(await media(cast.reader.client, file.id), file, 'application/pdf');
      assert.equal(await storedHash(file.id), file.sha256);
      // From now on the stored hash guards the bytes.
      await writeFile(file.path, Buffer.concat([file.bytes, Buffer.from('x')]));
      assertError(await media(cast.reader.client, file.id), 500, 'attachment_integrity_failure');
      assert.equal((await auditOf('file.integrity_failed', pond.id)).length, 1);
    });
  });

  describe('verified once per file state', () => {
    // Larger than the in-memory limit: streamed from the descriptor on every path.
    const LARGE = Buffer.alloc(3 * 1024 * 1024, 'large attachment bytes ');

    test('repeated and ranged downloads of an unchanged file are not hashed again', async () => {
      const { page } = await pondWithPage();
      for (const [bytes, extension, contentType] of [[PDF, 'pdf', 'application/pdf'], [LARGE, 'bin', 'application/octet-stream']] as const) {
        const file = await seedFile(page, { bytes, extension, contentType });
        assertServedWhole(await media(cast.reader.client, file.id), file, contentType);
        const hashes = mediaHashCount();
        assertServedWhole(await media(cast.reader.client, file.id), file, contentType);
        const ranged = await media(cast.reader.client, file.id, { headers: { range: 'bytes=5-5' } });
        assert.equal(ranged.status, 206);
        assert.deepEqual(ranged.bytes, bytes.subarray(5, 6));
        assert.equal(mediaHashCount(), hashes, `${extension}: no hash after the first download`);
      }
    });

    test('bytes changed after a verified download are hashed again and fail closed, also with the mtime set back', async () => {
      const { page } = await pondWithPage();
      for (const restoreMtime of [false, true]) {
        const file = await seedFile(page, { bytes: LARGE, extension: 'bin', contentType: 'application/octet-stream' });
        assertServedWhole(await media(cast.reader.client, file.id), file, 'application/octet-stream');
        const { atime, mtime } = await stat(file.path);
        const tampered = Buffer.from(file.bytes);
        tampered[100] = tampered[100]! ^ 0x01;
        await writeFile(file.path, tampered);
        // The ctime still moves: no writer can set it back.
        if (restoreMtime) await utimes(file.path, atime, mtime);
        const hashes = mediaHashCount();
        for (const headers of [{}, { range: 'bytes=0-0' }] as Record<string, string>[]) {
          const response = await media(cast.reader.client, file.id, { headers });
          assertError(response, 500, 'attachment_integrity_failure');
          assert.ok(!response.bytes.includes(Buffer.from('large attachment')), 'no byte of the file');
        }
        assert.equal(mediaHashCount(), hashes + 2, 'a failed check is never remembered');
      }
    });
  });

  describe('conditional requests', () => {
    test('If-None-Match with the ETag (alone, in a list, weak): 304 without a body; another tag: 200', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      for (const tag of [`"${file.sha256}"`, `"stale", "${file.sha256}"`, `W/"${file.sha256}"`]) {
        const response = await media(cast.reader.client, file.id, { headers: { 'if-none-match': tag } });
        assert.equal(response.status, 304, tag);
        assert.equal(response.bytes.length, 0);
        assert.equal(response.headers.get('etag'), `"${file.sha256}"`);
        assert.equal(response.headers.get('cache-control'), 'private, no-cache');
      }
      assertServedWhole(await media(cast.reader.client, file.id, { headers: { 'if-none-match': '"stale"' } }), file, 'application/pdf');
    });

    test('the access check comes first: an outsider with the right ETag gets 404', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      assertError(await media(cast.outsider.client, file.id, { headers: { 'if-none-match': `"${file.sha256}"` } }), 404, 'not_found');
    });
  });

  describe('ranges and HEAD', () => {
    const size = PDF.length;

    test('one range in each form: 206 with Content-Range and just those bytes', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      const cases: [string, number, number][] = [
        ['bytes=0-3', 0, 3],
        ['bytes=9-', 9, size - 1],
        ['bytes=-6', size - 6, size - 1],
        ['bytes=4-999999', 4, size - 1],
      ];
      for (const [range, start, end] of cases) {
        const response = await media(cast.reader.client, file.id, { headers: { range } });
        assert.equal(response.status, 206, range);
        assert.deepEqual(response.bytes, PDF.subarray(start, end + 1), range);
        assert.equal(response.headers.get('content-range'), `bytes ${start}-${end}/${size}`);
        assert.equal(response.headers.get('content-length'), String(end - start + 1));
        assert.equal(response.headers.get('content-disposition')?.startsWith('attachment;'), true);
      }
      const matching = await media(cast.reader.client, file.id, { headers: { range: 'bytes=0-3', 'if-range': `"${file.sha256}"` } });
      assert.equal(matching.status, 206);
    });

    test('past the end: 416 with Content-Range bytes */size', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
        const response = await media(cast.reader.client, file.id, { headers: { range } });
        assert.equal(response.status, 416, range);
        assert.equal(response.headers.get('content-range'), `bytes */${size}`);
        assert.ok(!response.text.includes('quarterly'));
      }
    });

    test('several ranges, malformed ones and a stale If-Range get the whole file (200)', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PDF, extension: 'pdf', contentType: 'application/pdf' });
      for (const headers of [{ range: 'bytes=0-1,4-5' }, { range: 'bytes=abc' }, { range: 'bytes=5-2' }, { range: 'bytes=0-3', 'if-range': '"stale"' }] as Record<string, string>[]) {
        const response = await media(cast.reader.client, file.id, { headers });
        assertServedWhole(response, file, 'application/pdf');
        assert.equal(response.headers.get('content-range'), null, JSON.stringify(headers));
      }
    });

    test('HEAD: the headers of GET without a body, for whole files and ranges', async () => {
      const { page } = await pondWithPage();
      const file = await seedFile(page, { bytes: PNG, extension: 'png', contentType: 'image/png' });
      const whole = await media(cast.reader.client, file.id, { method: 'HEAD' });
      assert.equal(whole.status, 200);
      assert.equal(whole.bytes.length, 0);
      assert.equal(whole.headers.get('content-length'), String(PNG.length));
      assert.equal(whole.headers.get('content-disposition'), 'inline');
      assert.equal(whole.headers.get('etag'), `"${file.sha256}"`);
      const partial = await media(cast.reader.client, file.id, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
      assert.equal(partial.status, 206);
      assert.equal(partial.headers.get('content-range'), `bytes 0-9/${PNG.length}`);
      const refused = await media(cast.outsider.client, file.id, { method: 'HEAD' });
      assert.equal(refused.status, 404);
      assert.equal(refused.headers.get('content-disposition'), null);
    });
  });

  test('the stored file is closed after every answer, also when the client leaves mid-download; leaving logs no error', async () => {
    const { page } = await pondWithPage();
    // Larger than what the loopback socket buffers, so the server is still sending when the client leaves.
    const big = Buffer.alloc(48 * 1024 * 1024, 0x5a);
    const file = await seedFile(page, { bytes: big, extension: 'bin', contentType: 'application/octet-stream' });
    const openDescriptors = () => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file.path;
      } catch {
        return false;
      }
    }).length;
    const linesBefore = log.lines.length;
    const cookie = [...cast.reader.client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const whileSending = await new Promise<{ status: number | undefined; descriptors: number }>((resolve, reject) => {
      const request = httpGet(`${cast.instance.baseUrl}/api/v1/media/${file.id}`, { headers: { cookie } }, (response) => {
        response.once('data', () => {
          const descriptors = openDescriptors();
          request.destroy();
          resolve({ status: response.statusCode, descriptors });
        });
      });
      request.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    });
    assert.deepEqual(whileSending, { status: 200, descriptors: 1 }, 'the server was sending from the file');
    await waitFor(() => openDescriptors() === 0, 5_000, 'the stored file to be closed');
    const errors = log.lines.slice(linesBefore).filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    assert.deepEqual(errors, []);
    const head = await media(cast.reader.client, file.id, { method: 'HEAD' });
    assert.equal(head.headers.get('content-length'), String(big.length));
    const partial = await media(cast.reader.client, file.id, { headers: { range: 'bytes=-4' } });
    assert.equal(partial.status, 206);
    assert.deepEqual(partial.bytes, big.subarray(-4));
    // The descriptor is closed once the answer is out, which can be a moment after the client has read it.
    await waitFor(() => openDescriptors() === 0, 5_000, 'answers sent in full to close the file too');
  });
});
