/**
 * `DELETE /files/:id` and the access model's two refusals (issue 34, finding 7): a file on a
 * page the caller may read but not write answers 403; a file on a page the caller cannot read
 * (hidden by a deny, or trashed) answers 404 exactly like an unknown id, even to a member who
 * sees the pond. Uploading, listing and the pond admin's delete: fileRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedGrant } from '../testing/accessFixtures.ts';
import { assertError, MISSING_UUID, usePondCast } from '../testing/pondTestSetup.ts';
import { TINY_PNG, uploadFile } from '../testing/uploadFixtures.ts';

describe('DELETE /files/:id: 403 for a readable page, 404 for an unreadable one', () => {
  const cast = usePondCast();

  async function pageWithFile(pondId: string, title: string): Promise<{ pageId: string; fileId: string }> {
    const page = await cast.editor.client.post(`/ponds/${pondId}/pages`, { title });
    assert.equal(page.status, 201, page.text);
    const file = await uploadFile(cast.editor.client, page.body.id, `${title}.png`, TINY_PNG);
    assert.equal(file.status, 201, file.text);
    return { pageId: page.body.id, fileId: file.body.id };
  }

  test('a pond reader: 403 on a page they read, 404 on a page hidden from them, on a trashed page and for a random id', async () => {
    const pond = await cast.seedTeamPond();
    const open = await pageWithFile(pond.id, 'Offen');
    const hidden = await pageWithFile(pond.id, 'Verborgen');
    const binned = await pageWithFile(pond.id, 'Papierkorb');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: hidden.pageId }, effect: 'deny' });
    const trashed = await cast.editor.client.request('DELETE', `/pages/${binned.pageId}?mode=promote`);
    assert.equal(trashed.status, 200, trashed.text);
    // The reader sees the pond (pond-scope reader grant), so the pond's own answer would be 403.
    assert.equal((await cast.reader.client.get(`/ponds/${pond.id}`)).status, 200);
    assertError(await cast.reader.client.get(`/pages/${hidden.pageId}`), 404, 'not_found');

    assertError(await cast.reader.client.request('DELETE', `/files/${open.fileId}`), 403, 'forbidden');
    for (const fileId of [hidden.fileId, binned.fileId, MISSING_UUID, 'not-a-uuid']) {
      const refused = await cast.reader.client.request('DELETE', `/files/${fileId}`);
      assertError(refused, 404, 'not_found');
      assert.deepEqual(refused.body.error.details, {}, fileId);
    }
    // Nothing was deleted by the refusals; the page's writer and the pond admin still may.
    assert.equal((await cast.editor.client.request('DELETE', `/files/${hidden.fileId}`)).status, 204);
    assert.equal((await cast.owner.client.request('DELETE', `/files/${binned.fileId}`)).status, 204);
    assert.equal((await cast.editor.client.request('DELETE', `/files/${open.fileId}`)).status, 204);
  });

  test('a pond editor with a deny on one page: 404 there, though they write the rest of the pond', async () => {
    const pond = await cast.seedTeamPond();
    const hidden = await pageWithFile(pond.id, 'Geheim');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'reader', scope: { type: 'page', id: hidden.pageId }, effect: 'deny' });
    assertError(await cast.editor.client.request('DELETE', `/files/${hidden.fileId}`), 404, 'not_found');
    assertError(await cast.outsider.client.request('DELETE', `/files/${hidden.fileId}`), 404, 'not_found');
    assert.equal((await cast.owner.client.request('DELETE', `/files/${hidden.fileId}`)).status, 204);
  });
});
