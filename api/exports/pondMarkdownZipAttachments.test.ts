/**
 * Attachments in the pond Markdown ZIP (GET /ponds/:id/export/markdown): the files the
 * exported pages claim are entries under `attachments/` with the uploaded bytes, the pages link
 * to them relatively (no `/api/v1/media/…` left) and the link resolves to the entry; no `&#x20;`
 * after a link the editor left a space behind; files of pages the caller may not read, unclaimed
 * uploads, and files whose bytes are missing or damaged are never in the archive.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { posix } from 'node:path';
import { describe, test } from 'node:test';
import { saveDerivedData } from '../documents/derivedData.ts';
import { storedFilePath } from '../files/fileStore.ts';
import { seedGrant } from '../testing/accessFixtures.ts';
import { ATTACHMENT_ENTRY, parsePage, readZip } from '../testing/markdownZip.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { TINY_PDF, TINY_PNG, uploadFile } from '../testing/uploadFixtures.ts';
import { attachmentEntryName, attachmentStream, relinkAttachments, type ExportAttachment } from './exportAttachments.ts';

async function exportZip(client: TestClient, pondId: string) {
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await fetch(new URL(`/api/v1/ponds/${pondId}/export/markdown`, client.baseUrl), { headers: { cookie } });
  assert.equal(response.status, 200);
  return readZip(Buffer.from(await response.arrayBuffer()));
}

/** Relative link targets of a Markdown body (links and images). */
function linkTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

describe('attachments in the pond Markdown ZIP', () => {
  const cast = usePondCast();
  const sequelize = () => cast.instance.services.sequelize;

  async function pageWithFiles(pondId: string, title: string) {
    const page = (await cast.editor.client.post(`/ponds/${pondId}/pages`, { title })).body as { id: string; slug: string };
    const image = (await uploadFile(cast.editor.client, page.id, 'Seerose im Teich.png', TINY_PNG)).body;
    const sheet = (await uploadFile(cast.editor.client, page.id, 'Tabelle.pdf', TINY_PDF)).body;
    // As the editor inserts them: an image node, a file's name linked, then a space.
    await saveDerivedData(sequelize(), {
      pageId: page.id,
      document: {
        type: 'doc',
        content: [
          { type: 'image', attrs: { fileId: image.id, alt: 'Seerose', title: null } },
          { type: 'paragraph', content: [{ type: 'text', text: 'Siehe ' }, { type: 'text', text: 'Tabelle.pdf', marks: [{ type: 'link', attrs: { href: `/api/v1/media/${sheet.id}` } }] }, { type: 'text', text: ' ' }] },
        ],
      },
      authorIds: [cast.editor.user.id],
    });
    return { page, image, sheet };
  }

  test('claimed files are entries with the uploaded bytes; the page links to them relatively, without &#x20;', async () => {
    const pond = await cast.seedTeamPond();
    const { page, image, sheet } = await pageWithFiles(pond.id, 'Garten');
    const unclaimed = (await uploadFile(cast.editor.client, page.id, 'Entwurf.pdf', TINY_PDF)).body;
    const entries = await exportZip(cast.reader.client, pond.id);
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    const markdown = parsePage(byName.get(`${page.slug}.md`)!.text).body;
    assert.doesNotMatch(markdown, /\/api\/v1\/media\//, 'no media URL is left');
    assert.doesNotMatch(markdown, /&#x20;/, 'no encoded space after the link');
    assert.equal(markdown, `![Seerose](attachments/${image.id}-seerose-im-teich.png)\n\nSiehe [Tabelle.pdf](attachments/${sheet.id}-tabelle.pdf)\n`);
    for (const target of linkTargets(markdown)) {
      const entry = byName.get(posix.normalize(posix.join(posix.dirname(`${page.slug}.md`), target)));
      assert.ok(entry, `${target} resolves to an entry`);
    }
    assert.ok(byName.get(`attachments/${image.id}-seerose-im-teich.png`)!.bytes.equals(TINY_PNG));
    assert.ok(byName.get(`attachments/${sheet.id}-tabelle.pdf`)!.bytes.equals(TINY_PDF));
    const attachmentNames = entries.map((entry) => entry.name).filter((name) => name.startsWith('attachments/'));
    for (const name of attachmentNames) assert.match(name, ATTACHMENT_ENTRY);
    assert.ok(!attachmentNames.some((name) => name.includes(unclaimed.id)), 'an unclaimed upload is not an attachment');
  });

  test('files of a page the reader may not read are not in the archive', async () => {
    const pond = await cast.seedTeamPond();
    const open = await pageWithFiles(pond.id, 'Offen');
    const secret = await pageWithFiles(pond.id, 'Geheim');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: secret.page.id }, effect: 'deny' });
    const names = (await exportZip(cast.reader.client, pond.id)).map((entry) => entry.name);
    assert.ok(names.includes(`attachments/${open.image.id}-seerose-im-teich.png`));
    assert.ok(!names.some((name) => name.includes(secret.image.id) || name.includes(secret.sheet.id) || name === `${secret.page.slug}.md`), names.join(', '));
    const editorNames = (await exportZip(cast.editor.client, pond.id)).map((entry) => entry.name);
    assert.ok(editorNames.includes(`attachments/${secret.sheet.id}-tabelle.pdf`), 'the editor may read it: included');
  });

  test('a file whose bytes are damaged or missing is left out and its link left as it was; the rest is whole', async () => {
    const pond = await cast.seedTeamPond();
    const { page, image, sheet } = await pageWithFiles(pond.id, 'Kaputt');
    const dataDir = cast.instance.services.config.dataDir;
    writeFileSync(storedFilePath(dataDir, image.id), Buffer.from('not the picture'));
    rmSync(storedFilePath(dataDir, sheet.id));
    const entries = await exportZip(cast.reader.client, pond.id);
    assert.deepEqual(entries.filter((entry) => entry.name.startsWith('attachments/')).map((entry) => entry.name), []);
    const markdown = parsePage(entries.find((entry) => entry.name === `${page.slug}.md`)!.text).body;
    assert.equal(markdown, `![Seerose](/api/v1/media/${image.id})\n\nSiehe [Tabelle.pdf](/api/v1/media/${sheet.id})\n`);
  });

  test('relinking: paths and this instance\'s absolute URLs become the entry; other hosts, other files and text stay', () => {
    const id = '0b0c4d3e-1111-4222-8333-444455556666';
    const other = '9b0c4d3e-1111-4222-8333-444455556666';
    const file = { id, name: 'Plan (final).PDF', extension: 'pdf' };
    const entryName = attachmentEntryName(file);
    assert.equal(entryName, `attachments/${id}-plan-final.pdf`);
    assert.equal(attachmentEntryName({ id, name: '….png', extension: 'png' }), `attachments/${id}.png`);
    const attachments = [{ ...file, entryName } as ExportAttachment];
    const markdown = `[a](/api/v1/media/${id}) [b](https://teich.example/api/v1/media/${id}) [c](https://elsewhere.example/api/v1/media/${id}) [d](/api/v1/media/${other}) ![e](</api/v1/media/${id}>) text /api/v1/media/${id}`;
    assert.equal(
      relinkAttachments(markdown, attachments, 'https://teich.example/'),
      `[a](${entryName}) [b](${entryName}) [c](https://elsewhere.example/api/v1/media/${id}) [d](/api/v1/media/${other}) ![e](<${entryName}>) text /api/v1/media/${id}`,
    );
  });

  test('bytes that changed after their check fail the export instead of passing unchecked', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dt-export-'));
    try {
      const id = '0b0c4d3e-1111-4222-8333-444455556666';
      mkdirSync(dirname(storedFilePath(dataDir, id)), { recursive: true });
      writeFileSync(storedFilePath(dataDir, id), 'changed');
      const file = { id, name: 'a.txt', extension: 'txt', sha256: '0'.repeat(64), size: 7, entryName: 'attachments/a.txt' } as ExportAttachment;
      const failures: Error[] = [];
      for await (const _chunk of attachmentStream(dataDir, file, (error) => failures.push(error)));
      assert.equal(failures.length, 1);
      assert.match(failures[0]!.message, /changed while it was exported/);
      const missing = { ...file, id: '9b0c4d3e-1111-4222-8333-444455556666' };
      for await (const _chunk of attachmentStream(dataDir, missing, (error) => failures.push(error)));
      assert.equal(failures.length, 2, 'a vanished file fails too');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
