/**
 * Uploads through HTTP (spec: Files and media endpoints, Limits, Errors): who may upload,
 * list and delete; every refusal (extension, sniffed content, SVG policy, file size, the
 * pond's storage quota under concurrent uploads) leaving nothing behind; file names; an
 * upload cut off half-way; the claim by the page's save; the pond admin's list. The bytes
 * as served: mediaRoutes.test.ts; the nightly sweep: api/files/orphanSweep.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { saveDerivedData } from '../documents/derivedData.ts';
import { storedFilePath } from '../files/fileStore.ts';
import { tempUploadDir } from '../files/uploadReceiver.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import { waitFor } from '../testing/polling.ts';
import { assertError, usePondCast } from '../testing/pondTestSetup.ts';
import { TINY_PDF, TINY_PNG, uploadFile } from '../testing/uploadFixtures.ts';

describe('attachments: upload, list, delete', () => {
  const cast = usePondCast();
  const sequelize = () => cast.instance.services.sequelize;
  const dataDir = () => cast.instance.services.config.dataDir;

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return sequelize().query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  async function seedPage(title = 'Teich'): Promise<{ pondId: string; pageId: string }> {
    const pond = await cast.seedTeamPond();
    const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title });
    assert.equal(response.status, 201, response.text);
    return { pondId: pond.id, pageId: response.body.id };
  }

  const rowsOfPond = (pondId: string) => sql<{ id: string; size_bytes: string }>(`SELECT id, size_bytes FROM files WHERE pond_id = :pondId`, { pondId });
  const tempFiles = () => (existsSync(tempUploadDir(dataDir())) ? readdirSync(tempUploadDir(dataDir())) : []);

  async function setQuota(pondId: string, quota: 'storage_bytes' | 'max_file_bytes', value: number) {
    await sql(`INSERT INTO quota_overrides (pond_id, quota, value) VALUES (:pondId, :quota, :value) RETURNING id`, { pondId, quota, value });
  }

  /** A refused upload: the code and reason, and no row, no stored bytes, no temporary file. */
  async function assertRefusedCleanly(pondId: string, response: Awaited<ReturnType<typeof uploadFile>>, status: number, code: string, details: Record<string, unknown> = {}) {
    assertError(response, status, code);
    for (const [key, value] of Object.entries(details)) assert.equal(response.body.error.details[key], value, key);
    assert.deepEqual(await rowsOfPond(pondId), []);
    await waitFor(() => tempFiles().length === 0, 2000, 'the temporary file to be removed');
  }

  test('an editor uploads a PNG: 201 with its view, the bytes stored under its id with their SHA-256, listed for readers', async () => {
    const { pondId, pageId } = await seedPage();
    const response = await uploadFile(cast.editor.client, pageId, 'Seerose.png', TINY_PNG);
    assert.equal(response.status, 201, response.text);
    const file = response.body;
    assert.equal(file.pondId, pondId);
    assert.equal(file.uploadPageId, pageId);
    assert.equal(file.pageId, null);
    assert.equal(file.claimed, false);
    assert.equal(file.name, 'Seerose.png');
    assert.equal(file.extension, 'png');
    assert.equal(file.contentType, 'image/png');
    assert.equal(file.sizeBytes, TINY_PNG.length);
    assert.equal(file.sha256, createHash('sha256').update(TINY_PNG).digest('hex'));
    assert.equal(file.url, `/api/v1/media/${file.id}`);
    assert.equal(file.uploadedBy.id, cast.editor.user.id);
    assert.deepEqual(await readFile(storedFilePath(dataDir(), file.id)), TINY_PNG);
    assert.deepEqual(tempFiles(), []);
    const listed = await cast.reader.client.get(`/pages/${pageId}/files`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.items.map((item: { id: string }) => item.id), [file.id]);
    assertError(await cast.outsider.client.get(`/pages/${pageId}/files`), 404, 'not_found');
  });

  test('readers get 403, outsiders 404, visitors 401; a JSON body is 415', async () => {
    const { pondId, pageId } = await seedPage();
    assertError(await uploadFile(cast.reader.client, pageId, 'a.png', TINY_PNG), 403, 'forbidden');
    assertError(await uploadFile(cast.outsider.client, pageId, 'a.png', TINY_PNG), 404, 'not_found');
    assertError(await uploadFile(cast.anonymous, pageId, 'a.png', TINY_PNG, { signedIn: false }), 401, 'unauthenticated');
    assertError(await cast.editor.client.post(`/pages/${pageId}/files`, { file: 'x' }), 415, 'unsupported_media_type');
    assert.deepEqual(await rowsOfPond(pondId), []);
  });

  test('refusals before a byte is kept: extension, a .png that is HTML, a .txt that is a PNG, no part named file', async () => {
    const { pondId, pageId } = await seedPage();
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'setup.exe', Buffer.from('MZ\x90\x00')), 415, 'upload_type_not_allowed', { reason: 'extension', extension: 'exe' });
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'noextension', 'hello'), 415, 'upload_type_not_allowed', { reason: 'extension' });
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'cat.png', '<html><script>alert(1)</script></html>'), 415, 'upload_type_not_allowed', { reason: 'content_mismatch', extension: 'png' });
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'notes.txt', TINY_PNG), 415, 'upload_type_not_allowed', { reason: 'content_mismatch', extension: 'txt' });
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'report.pdf', '<!doctype html><p>not a pdf'), 415, 'upload_type_not_allowed', { reason: 'content_mismatch' });
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'a.png', TINY_PNG, { field: 'upload' }), 400, 'validation_failed');
    const pdf = await uploadFile(cast.editor.client, pageId, 'report.pdf', TINY_PDF);
    assert.equal(pdf.status, 201, pdf.text);
    assert.equal(pdf.body.contentType, 'application/pdf');
    const text = await uploadFile(cast.editor.client, pageId, 'notes.txt', '<script>inert as a download</script>');
    assert.equal(text.status, 201, text.text);
    assert.equal(text.body.contentType, 'text/plain; charset=utf-8');
  });

  test('SVG: sanitized by default (script, event handlers, external references, foreignObject gone); refused under svgPolicy reject', async () => {
    const { pondId, pageId } = await seedPage();
    const hostile = `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script>
      <foreignObject><iframe src="https://evil.example/"></iframe></foreignObject>
      <use href="https://evil.example/sprite.svg#x"/><image href="https://evil.example/p.png"/>
      <rect width="10" height="10" fill="url(https://evil.example/#g)" onclick="alert(3)"/><circle r="4" fill="#00f"/></svg>`;
    const response = await uploadFile(cast.editor.client, pageId, 'drawing.svg', hostile);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.contentType, 'image/svg+xml');
    const stored = await readFile(storedFilePath(dataDir(), response.body.id), 'utf8');
    assert.match(stored, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(stored, /<circle/);
    for (const banned of [/script/i, /onload/i, /onclick/i, /foreignObject/i, /iframe/i, /evil\.example/]) assert.doesNotMatch(stored, banned);
    assert.equal(response.body.sizeBytes, Buffer.byteLength(stored));
    assert.equal(response.body.sha256, createHash('sha256').update(stored).digest('hex'));
    await sequelize().transaction((transaction) => setSetting('upload.svgPolicy', 'reject', { actorId: null, transaction }));
    try {
      const refused = await uploadFile(cast.editor.client, pageId, 'drawing.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
      assertError(refused, 415, 'upload_type_not_allowed');
      assert.equal(refused.body.error.details.reason, 'svg_rejected');
      assert.equal((await rowsOfPond(pondId)).length, 1);
    } finally {
      await sequelize().transaction((transaction) => setSetting('upload.svgPolicy', null, { actorId: null, transaction }));
    }
  });

  test('max_file_bytes (pond override) and the pond storage quota refuse with quota_exceeded, leaving nothing', async () => {
    const { pondId, pageId } = await seedPage();
    await setQuota(pondId, 'max_file_bytes', 2000);
    await assertRefusedCleanly(pondId, await uploadFile(cast.editor.client, pageId, 'big.txt', 'x'.repeat(2001)), 413, 'quota_exceeded', { quota: 'max_file_bytes', limit: 2000 });
    assert.equal((await uploadFile(cast.editor.client, pageId, 'fits.txt', 'x'.repeat(2000))).status, 201);
    const second = await seedPage('Zweiter Teich');
    await setQuota(second.pondId, 'storage_bytes', 100_000);
    await assertRefusedCleanly(second.pondId, await uploadFile(cast.editor.client, second.pageId, 'big.txt', 'y'.repeat(100_001)), 413, 'quota_exceeded', { quota: 'storage_bytes', limit: 100_000 });
  });

  test('concurrent uploads never take the pond over its storage quota', async () => {
    const { pondId, pageId } = await seedPage();
    await setQuota(pondId, 'storage_bytes', 10_000);
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => uploadFile(cast.editor.client, pageId, `part-${index}.txt`, 'z'.repeat(3000))));
    const statuses = responses.map((response) => response.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, 413, 413, 413, 413, 413], responses.map((response) => response.text).join('\n'));
    for (const refused of responses.filter((response) => response.status === 413)) assert.equal(refused.body.error.details.quota, 'storage_bytes');
    const rows = await rowsOfPond(pondId);
    assert.equal(rows.reduce((sum, row) => sum + Number(row.size_bytes), 0), 9000);
    await waitFor(() => tempFiles().length === 0, 2000, 'no temporary file left');
  });

  test('path-like, control-character and Unicode names are cleaned; the bytes live under the id only', async () => {
    const { pageId } = await seedPage();
    const cases: [string, string][] = [
      ['../../etc/passwd.txt', 'passwd.txt'],
      ['..\\..\\windows\\win.ini.txt', 'win.ini.txt'],
      ['Teich\u0301chen.txt', 'Teich\u0301chen.txt'.normalize('NFC')],
      ['evil\u202Etxt.exe.txt', 'eviltxt.exe.txt'],
      ['Gr\u00fc\u00dfe aus dem Weiher 🐸.txt', 'Gr\u00fc\u00dfe aus dem Weiher 🐸.txt'],
    ];
    for (const [raw, cleaned] of cases) {
      const response = await uploadFile(cast.editor.client, pageId, raw, 'hello');
      assert.equal(response.status, 201, `${raw}: ${response.text}`);
      assert.equal(response.body.name, cleaned, raw);
      assert.ok(existsSync(storedFilePath(dataDir(), response.body.id)));
    }
    assert.ok(!existsSync(path.join(dataDir(), '..', 'etc')));
  });

  test('an upload cut off half-way leaves no row and no bytes', async () => {
    const { pondId, pageId } = await seedPage();
    const boundary = 'cutoffboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const url = new URL(cast.instance.baseUrl);
    const cookie = [...cast.editor.client.cookies].map(([key, value]) => `${key}=${value}`).join('; ');
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /api/v1/pages/${pageId}/files HTTP/1.1\r\nHost: ${url.host}\r\nOrigin: ${cast.instance.baseUrl}\r\nCookie: ${cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + 200_000}\r\n\r\n${head}`,
    );
    socket.write('a'.repeat(100_000));
    await waitFor(() => tempFiles().length > 0, 5000, 'the upload to reach its temporary file');
    socket.destroy();
    await waitFor(() => tempFiles().length === 0, 5000, 'the temporary file to be removed');
    assert.deepEqual(await rowsOfPond(pondId), []);
  });

  test('the save that references an upload claims it; a save without it keeps it claimed but unembedded', async () => {
    const { pageId } = await seedPage();
    const image = (await uploadFile(cast.editor.client, pageId, 'a.png', TINY_PNG)).body;
    const sheet = (await uploadFile(cast.editor.client, pageId, 'b.pdf', TINY_PDF)).body;
    const unused = (await uploadFile(cast.editor.client, pageId, 'c.pdf', TINY_PDF)).body;
    const save = (content: object[]) => saveDerivedData(sequelize(), { pageId, document: { type: 'doc', content }, authorIds: [cast.editor.user.id] });
    await save([
      { type: 'image', attrs: { fileId: image.id, alt: 'Seerose', title: null } },
      { type: 'paragraph', content: [{ type: 'text', text: 'Tabelle', marks: [{ type: 'link', attrs: { href: `/api/v1/media/${sheet.id}` } }] }] },
    ]);
    const state = async () => Object.fromEntries((await cast.reader.client.get(`/pages/${pageId}/files`)).body.items.map((item: { name: string; pageId: string | null; embedded: boolean }) => [item.name, [item.pageId, item.embedded]]));
    assert.deepEqual(await state(), { 'a.png': [pageId, true], 'b.pdf': [pageId, true], 'c.pdf': [null, false] });
    await save([{ type: 'paragraph', content: [{ type: 'text', text: 'ohne Bild' }] }]);
    assert.deepEqual(await state(), { 'a.png': [pageId, false], 'b.pdf': [pageId, false], 'c.pdf': [null, false] });
    // Another page's save cannot claim an upload made to this page.
    const other = await cast.editor.client.post(`/ponds/${image.pondId}/pages`, { title: 'Andere Seite' });
    await saveDerivedData(sequelize(), { pageId: other.body.id, document: { type: 'doc', content: [{ type: 'image', attrs: { fileId: unused.id, alt: null, title: null } }] }, authorIds: [] });
    assert.deepEqual((await state())['c.pdf'], [null, false]);
  });

  test('DELETE /files/:id: writers delete (bytes gone, quota released); readers 403, outsiders 404', async () => {
    const { pondId, pageId } = await seedPage();
    const file = (await uploadFile(cast.editor.client, pageId, 'a.png', TINY_PNG)).body;
    assertError(await cast.reader.client.request('DELETE', `/files/${file.id}`), 403, 'forbidden');
    assertError(await cast.outsider.client.request('DELETE', `/files/${file.id}`), 404, 'not_found');
    assertError(await cast.editor.client.request('DELETE', `/files/not-a-uuid`), 404, 'not_found');
    const deleted = await cast.editor.client.request('DELETE', `/files/${file.id}`);
    assert.equal(deleted.status, 204, deleted.text);
    assert.ok(!existsSync(storedFilePath(dataDir(), file.id)));
    assert.deepEqual(await rowsOfPond(pondId), []);
    assertError(await cast.editor.client.request('DELETE', `/files/${file.id}`), 404, 'not_found');
  });

  test('GET /ponds/:id/files: the pond admin sees every file with its page, an orphan flag and the usage; others are refused', async () => {
    const { pondId, pageId } = await seedPage();
    const kept = (await uploadFile(cast.editor.client, pageId, 'kept.png', TINY_PNG)).body;
    const loose = (await uploadFile(cast.editor.client, pageId, 'loose.pdf', TINY_PDF)).body;
    await saveDerivedData(sequelize(), { pageId, document: { type: 'doc', content: [{ type: 'image', attrs: { fileId: kept.id, alt: null, title: null } }] }, authorIds: [] });
    await setQuota(pondId, 'storage_bytes', 1_000_000);
    const listed = await cast.owner.client.get(`/ponds/${pondId}/files?limit=1`);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.items.length, 1);
    assert.equal(listed.body.items[0].id, loose.id);
    assert.equal(listed.body.items[0].orphan, true);
    assert.equal(listed.body.items[0].page.id, pageId);
    assert.deepEqual(listed.body.usage, { usedBytes: TINY_PNG.length + TINY_PDF.length, fileCount: 2, limitBytes: 1_000_000, limitSource: 'pond' });
    const next = await cast.owner.client.get(`/ponds/${pondId}/files?limit=1&cursor=${listed.body.nextCursor}`);
    assert.deepEqual(next.body.items.map((item: { id: string; orphan: boolean }) => [item.id, item.orphan]), [[kept.id, false]]);
    assert.equal(next.body.nextCursor, null);
    // `orphan=true` narrows in the query: the first page already holds the orphan, and no cursor
    // points past it to files that are not; the usage is still the whole pond's.
    const orphans = await cast.owner.client.get(`/ponds/${pondId}/files?orphan=true&limit=1`);
    assert.deepEqual(orphans.body.items.map((item: { id: string }) => item.id), [loose.id]);
    assert.equal(orphans.body.nextCursor, null);
    assert.equal(orphans.body.usage.fileCount, 2);
    const everyOne = await cast.owner.client.get(`/ponds/${pondId}/files?orphan=false`);
    assert.deepEqual(everyOne.body.items.map((item: { id: string }) => item.id), [loose.id, kept.id]);
    assertError(await cast.owner.client.get(`/ponds/${pondId}/files?orphan=yes`), 400, 'validation_failed');
    assertError(await cast.editor.client.get(`/ponds/${pondId}/files`), 403, 'forbidden');
    assertError(await cast.outsider.client.get(`/ponds/${pondId}/files`), 404, 'not_found');
    assertError(await cast.owner.client.get(`/ponds/${pondId}/files?cursor=garbage`), 400, 'validation_failed');
  });

  test('purging the page deletes its files (claimed and unclaimed) and their bytes; trashing keeps them', async () => {
    const { pondId, pageId } = await seedPage();
    const claimed = (await uploadFile(cast.editor.client, pageId, 'a.png', TINY_PNG)).body;
    const unclaimed = (await uploadFile(cast.editor.client, pageId, 'b.pdf', TINY_PDF)).body;
    await saveDerivedData(sequelize(), { pageId, document: { type: 'doc', content: [{ type: 'image', attrs: { fileId: claimed.id, alt: null, title: null } }] }, authorIds: [] });
    assert.equal((await cast.editor.client.request('DELETE', `/pages/${pageId}?mode=promote`)).status, 200);
    assert.equal((await rowsOfPond(pondId)).length, 2);
    assert.equal((await cast.editor.client.request('DELETE', `/pages/${pageId}/purge`)).status, 204);
    assert.deepEqual(await rowsOfPond(pondId), []);
    for (const file of [claimed, unclaimed]) assert.ok(!existsSync(storedFilePath(dataDir(), file.id)), file.name);
  });
});
