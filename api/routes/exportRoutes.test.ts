/**
 * The pond Markdown ZIP (`GET /ponds/:id/export/markdown`), read back with yauzl: one flat
 * `<slug>.md` per live page the caller may read, with YAML front matter (title, slug, parent
 * slug, labels, updated) and the Markdown cache as body; denied, trashed and foreign pages
 * absent; a pond larger than one batch comes whole; the refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Writable } from 'node:stream';
import type { Response } from 'express';
import { QueryTypes } from 'sequelize';
import { EXPORT_BATCH_PAGES, streamPondMarkdownZip } from '../exports/pondMarkdownZip.ts';
import { seedGrant, seedLabel } from '../testing/accessFixtures.ts';
import { zipPages } from '../testing/markdownZip.ts';
import { assertError, createLabel, MISSING_UUID, putLabels, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  body: any;
}

/** The export as raw bytes (the test client reads text). */
async function download(client: TestClient, pondId: string): Promise<Download> {
  const headers: Record<string, string> = {};
  if (client.cookies.size > 0) headers.cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await fetch(new URL(`/api/v1/ponds/${pondId}/export/markdown`, client.baseUrl), { headers });
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

async function exportedPages(client: TestClient, pondId: string): Promise<Map<string, { fields: Record<string, unknown>; body: string }>> {
  const response = await download(client, pondId);
  assert.equal(response.status, 200, response.text.slice(0, 300));
  return zipPages(response.bytes);
}

describe('GET /ponds/:id/export/markdown', () => {
  const cast = usePondCast();

  async function createPage(pondId: string, body: Record<string, unknown>): Promise<{ id: string; slug: string; updatedAt: string }> {
    const response = await cast.owner.client.post(`/ponds/${pondId}/pages`, body);
    assert.equal(response.status, 201, response.text);
    return response.body;
  }

  test('a reader gets one flat file per page they may read, with front matter and the Markdown cache', async () => {
    const pond = await cast.seedTeamPond();
    const handbook = await createPage(pond.id, { title: 'Handbook', markdown: '# Handbook\n\nWelcome **aboard**.' });
    const setup = await createPage(pond.id, { title: 'Setup "quoted": yes', parentId: handbook.id, markdown: 'Install it.' });
    const secret = await createPage(pond.id, { title: 'Secret', markdown: 'hidden words' });
    const underSecret = await createPage(pond.id, { title: 'Under secret', parentId: secret.id, markdown: 'visible child' });
    const binned = await createPage(pond.id, { title: 'Binned', markdown: 'gone' });
    assert.equal((await cast.owner.client.request('DELETE', `/pages/${binned.id}`)).status, 200);
    const guide = await createLabel(cast.owner.client, pond.id, 'Guide');
    const basics = await createLabel(cast.owner.client, pond.id, 'Basics');
    assert.equal((await putLabels(cast.owner.client, setup.id, [guide.id, basics.id])).status, 200);
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: secret.id }, effect: 'deny' });
    const elsewhere = await cast.seedTeamPond();
    await createPage(elsewhere.id, { title: 'Elsewhere', markdown: 'other pond' });

    const response = await download(cast.reader.client, pond.id);
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.equal(response.headers.get('content-type'), 'application/zip');
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${pond.slug}-markdown.zip"`);
    assert.match(response.headers.get('cache-control') ?? '', /no-store/);

    const pages = await exportedPages(cast.reader.client, pond.id);
    assert.deepEqual([...pages.keys()].sort(), [`${handbook.slug}.md`, `${setup.slug}.md`, `${underSecret.slug}.md`].sort());

    const setupFile = pages.get(`${setup.slug}.md`)!;
    const [setupRow] = await cast.instance.services.sequelize.query<{ updated_at: Date }>(`SELECT updated_at FROM pages WHERE id = :id`, { replacements: { id: setup.id }, type: QueryTypes.SELECT });
    assert.deepEqual(setupFile.fields, { title: 'Setup "quoted": yes', slug: setup.slug, parent: handbook.slug, labels: ['Basics', 'Guide'], updated: setupRow!.updated_at.toISOString() });
    assert.equal(setupFile.body.trim(), 'Install it.');
    const handbookFile = pages.get(`${handbook.slug}.md`)!;
    assert.equal(handbookFile.fields.parent, null);
    assert.deepEqual(handbookFile.fields.labels, []);
    assert.equal(handbookFile.body.trim(), '# Handbook\n\nWelcome **aboard**.');
    // The parent the reader may not read is not named.
    assert.equal(pages.get(`${underSecret.slug}.md`)!.fields.parent, null);

    // The owner reads everything live, the secret page and its name as a parent included.
    const ownerPages = await exportedPages(cast.owner.client, pond.id);
    assert.deepEqual([...ownerPages.keys()].sort(), [handbook, setup, secret, underSecret].map((page) => `${page.slug}.md`).sort());
    assert.equal(ownerPages.get(`${underSecret.slug}.md`)!.fields.parent, secret.slug);
    assert.equal(ownerPages.get(`${secret.slug}.md`)!.body.trim(), 'hidden words');
  });

  test('a pond of several batches comes whole, the denied pages of every batch left out', async () => {
    const pond = await cast.seedTeamPond();
    const total = EXPORT_BATCH_PAGES * 2 + 50;
    const sequelize = cast.instance.services.sequelize;
    await sequelize.query(
      `INSERT INTO pages (pond_id, slug, title, position) SELECT :pondId, 'bulk-' || i, 'Bulk ' || i, lpad(i::text, 6, '0') FROM generate_series(1, :total) AS i`,
      { replacements: { pondId: pond.id, total } },
    );
    await sequelize.query(`INSERT INTO page_contents (page_id, html, markdown, plain_text) SELECT id, '', 'Body of ' || slug, '' FROM pages WHERE pond_id = :pondId`, { replacements: { pondId: pond.id } });
    const hidden = await seedLabel(pond.id, 'Hidden');
    await sequelize.query(
      `INSERT INTO page_labels (page_id, label_id, pond_id) SELECT id, :labelId, :pondId FROM pages WHERE pond_id = :pondId AND substring(slug FROM 6)::int % 3 = 0`,
      { replacements: { pondId: pond.id, labelId: hidden.id } },
    );
    // Also drops the access cache, which holds the pages' labels.
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'label', id: hidden.id }, effect: 'deny' });

    const readerPages = await exportedPages(cast.reader.client, pond.id);
    const expected = Array.from({ length: total }, (_, index) => index + 1).filter((i) => i % 3 !== 0);
    assert.deepEqual([...readerPages.keys()].sort(), expected.map((i) => `bulk-${i}.md`).sort());
    for (const i of expected) assert.equal(readerPages.get(`bulk-${i}.md`)!.body, `Body of bulk-${i}`);
    const ownerPages = await exportedPages(cast.owner.client, pond.id);
    assert.equal(ownerPages.size, total);
    assert.deepEqual(ownerPages.get('bulk-3.md')!.fields.labels, ['Hidden']);
  });

  test('a client that goes away mid-download ends the export instead of leaving it waiting', async () => {
    const pond = await cast.seedTeamPond();
    const sequelize = cast.instance.services.sequelize;
    const total = EXPORT_BATCH_PAGES * 3;
    await sequelize.query(
      `INSERT INTO pages (pond_id, slug, title, position) SELECT :pondId, 'big-' || i, 'Big ' || i, lpad(i::text, 6, '0') FROM generate_series(1, :total) AS i`,
      { replacements: { pondId: pond.id, total } },
    );
    // Random hex bodies (3,200 characters each) barely compress: a batch is far more than one chunk.
    await sequelize.query(
      `INSERT INTO page_contents (page_id, html, markdown, plain_text)
       SELECT id, '', (SELECT string_agg(md5(random()::text || id::text || n), '') FROM generate_series(1, 100) AS n), '' FROM pages WHERE pond_id = :pondId`,
      { replacements: { pondId: pond.id } },
    );
    let received = 0;
    // A client that takes the first chunk and hangs up.
    const client = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        setImmediate(() => client.destroy());
        callback();
      },
    });
    const fake = Object.assign(client, { status: () => fake, setHeader: () => fake }) as unknown as Response;
    const subject = { userId: cast.owner.user.id, signedIn: true, isSiteAdmin: false };
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      streamPondMarkdownZip(cast.instance.services, subject, pond, fake),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the export did not end after the client left')), 10_000);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.ok(received > 0 && received < total * 1000, `received ${received} bytes`);
  });

  test('an empty pond gives an empty ZIP', async () => {
    const pond = await cast.seedTeamPond();
    assert.equal((await exportedPages(cast.editor.client, pond.id)).size, 0);
  });

  test('refusals: 401 anonymous on a public pond, 404 anonymous elsewhere, 404 outsider and missing pond', async () => {
    const open = await cast.seedTeamPond();
    await createPage(open.id, { title: 'Public page', markdown: 'for everyone' });
    await seedGrant(open.id, { subject: { type: 'public' }, role: 'reader' });
    const closed = await cast.seedTeamPond();
    assertError(await download(cast.anonymous, open.id), 401, 'unauthenticated');
    assertError(await download(cast.anonymous, closed.id), 404, 'not_found');
    assertError(await download(cast.outsider.client, closed.id), 404, 'not_found');
    assertError(await download(cast.reader.client, MISSING_UUID), 404, 'not_found');
    assertError(await download(cast.reader.client, 'not-a-uuid'), 404, 'not_found');
    // A signed-in outsider sees the public pond and gets its public pages.
    const pages = await exportedPages(cast.outsider.client, open.id);
    assert.deepEqual([...pages.values()].map((page) => page.body.trim()), ['for everyone']);
  });
});
