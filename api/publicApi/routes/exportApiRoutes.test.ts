/**
 * `GET /ponds/:pondSlug/export.zip` of the public REST API, read back with yauzl: the pages the
 * token's owner may read (denied and trashed ones absent), flat names, front matter; the
 * refusals answer JSON before any byte; `exportApiUrl` (MCP's `export_pond`) names this route.
 * The archive's own rules (batches, quoting) are tested with the internal route
 * (api/routes/exportRoutes.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedGrant, seedPage } from '../../testing/accessFixtures.ts';
import { zipPages } from '../../testing/markdownZip.ts';
import { assertApiError, seedForeignPond, useRestCast } from '../../testing/restApiCast.ts';
import { exportApiUrl } from '../operations/exportOperations.ts';
import { PUBLIC_API_PREFIX } from '../publicApiRouter.ts';

describe('public REST export.zip', () => {
  const cast = useRestCast();

  test('the pages the token owner may read, flat, each with its front matter and Markdown', async () => {
    const pond = await cast.seedApiPond();
    const created = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Handbook', markdown: '# Welcome\n\nHello there.\n' });
    assert.equal(created.status, 201, created.text);
    const child = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Chapter', parentId: created.body.id, markdown: 'Chapter one.\n' });
    const hidden = await seedPage(pond.id, 'Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    const trashed = await seedPage(pond.id, 'Trashed', { trashed: true });

    const api = await cast.client(cast.reader, 'read');
    const response = await api.get(`/ponds/${pond.slug}/export.zip`);
    assert.equal(response.status, 200, response.text.slice(0, 300));
    assert.equal(response.headers.get('content-type'), 'application/zip');
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${pond.slug}-markdown.zip"`);
    const pages = await zipPages(response.bytes);
    assert.deepEqual([...pages.keys()].sort(), [`${created.body.slug}.md`, `${child.body.slug}.md`].sort());
    const handbook = pages.get(`${created.body.slug}.md`)!;
    assert.equal(handbook.fields.title, 'Handbook');
    assert.match(handbook.body, /Hello there\./);
    assert.equal(pages.get(`${child.body.slug}.md`)!.fields.parent, created.body.slug, 'the hierarchy lives in the front matter');
    assert.ok(!pages.has(`${hidden.slug}.md`) && !pages.has(`${trashed.slug}.md`));

    const owner = await cast.client(cast.owner, 'read');
    assert.ok((await zipPages((await owner.get(`/ponds/${pond.slug}/export.zip`)).bytes)).has(`${hidden.slug}.md`), 'the owner reads the denied page');
  });

  test('refusals answer the JSON error: unknown, foreign, not switched on or restricted pond: 404 not_found', async () => {
    const api = await cast.client(cast.owner, 'read');
    const foreign = await seedForeignPond(cast);
    assertApiError(await api.get(`/ponds/${foreign.slug}/export.zip`), 404, 'not_found');
    assertApiError(await api.get('/ponds/no-such-pond/export.zip'), 404, 'not_found');
    const off = await cast.seedApiPond({ apiEnabled: false });
    assertApiError(await api.get(`/ponds/${off.slug}/export.zip`), 404, 'not_found');
    const pond = await cast.seedApiPond();
    const restricted = await cast.client(cast.owner, 'read', { pondId: off.id });
    assertApiError(await restricted.get(`/ponds/${pond.slug}/export.zip`), 404, 'not_found');
    assertApiError(await api.get(`/ponds/${pond.slug}/export.zip`, { token: null }), 401, 'unauthenticated');
  });

  test('exportApiUrl names the archive at the public origin, and the same token downloads it', async () => {
    const pond = await cast.seedApiPond();
    await seedPage(pond.id, 'Only page');
    const call = await cast.callAs(cast.reader, 'read');
    const url = await exportApiUrl(call, pond.slug.toUpperCase());
    assert.equal(url, `${cast.instance.baseUrl}${PUBLIC_API_PREFIX}/ponds/${pond.slug}/export.zip`);
    const api = await cast.client(cast.reader, 'read');
    const response = await api.get(new URL(url).pathname);
    assert.equal(response.status, 200);
    assert.equal((await zipPages(response.bytes)).size, 1);
    await assert.rejects(exportApiUrl(call, (await seedForeignPond(cast)).slug), (error: any) => error.status === 404);
  });
});
