/**
 * Labels through the public REST API: the nested tree, create / rename / recolour / move /
 * delete, assign and unassign (idempotent), the exact replace MCP's `set_page_labels` uses, and
 * who may: a read token never writes (403 `scope_required`), a label id of another pond or none
 * is a 404, a page the caller cannot read is a 404, a reader's write token is refused with 403
 * as the internal routes refuse the reader. Every answer is checked against the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Label } from '../../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels } from '../../testing/accessFixtures.ts';
import { assignedLabelIds, MISSING_UUID } from '../../testing/pondTestSetup.ts';
import { assertApiError, seedForeignPond, useRestCast } from '../../testing/restApiCast.ts';
import { setApiPageLabels } from '../operations/labelOperations.ts';

describe('public REST labels', () => {
  const cast = useRestCast();

  test('the tree nests children under their parents, each level by name', async () => {
    const pond = await cast.seedApiPond();
    const api = await cast.client(cast.editor, 'write');
    const create = async (name: string, parentId?: string) => {
      const response = await api.post(`/ponds/${pond.slug}/labels`, { name, color: '#AA0000', ...(parentId ? { parentId } : {}) });
      assert.equal(response.status, 201, response.text);
      return response.body as { id: string; depth: number; color: string; parentId: string | null };
    };
    const projects = await create('Projects');
    const archive = await create('archive');
    const y2025 = await create('2025', projects.id);
    const alpha = await create('Alpha', projects.id);
    const q1 = await create('Q1', y2025.id);
    assert.deepEqual([projects.depth, y2025.depth, q1.depth], [1, 2, 3]);
    assert.equal(projects.color, '#aa0000');
    assert.equal(q1.parentId, y2025.id);

    const reader = await cast.client(cast.reader, 'read');
    const tree = await reader.get(`/ponds/${pond.slug}/labels`);
    assert.equal(tree.status, 200, tree.text);
    assert.equal(tree.body.nextCursor, null);
    type Node = { id: string; name: string; children: Node[] };
    const shape = (nodes: Node[]): unknown[] => nodes.map((node) => (node.children.length ? [node.name, shape(node.children)] : node.name));
    assert.deepEqual(shape(tree.body.items), ['archive', ['Projects', [['2025', ['Q1']], 'Alpha']]]);
    assert.equal(tree.body.items[1].children[0].children[0].id, q1.id);
    assert.ok(archive.id && alpha.id);
  });

  test('rename, recolour, move and delete; nothing to change is a 400; a sibling name is a 409', async () => {
    const pond = await cast.seedApiPond();
    const api = await cast.client(cast.editor, 'write');
    const parent = await seedLabel(pond.id, 'Parent');
    const label = await seedLabel(pond.id, 'Old', { parentId: parent.id });
    const child = await seedLabel(pond.id, 'Child', { parentId: label.id });
    await seedLabel(pond.id, 'Taken');

    const renamed = await api.patch(`/ponds/${pond.slug}/labels/${label.id}`, { name: 'New', color: '#00FF00' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.body, { id: label.id, name: 'New', color: '#00ff00', parentId: parent.id, depth: 2 });
    const moved = await api.patch(`/ponds/${pond.slug}/labels/${label.id}`, { parentId: null });
    assert.equal(moved.body.parentId, null);
    assert.equal(moved.body.depth, 1);
    assertApiError(await api.patch(`/ponds/${pond.slug}/labels/${label.id}`, {}), 400, 'validation_failed');
    assertApiError(await api.patch(`/ponds/${pond.slug}/labels/${label.id}`, { name: 'taken' }), 409, 'label_name_taken');
    assertApiError(await api.patch(`/ponds/${pond.slug}/labels/${label.id}`, { parentId: child.id }), 409, 'label_cycle');

    const deleted = await api.delete(`/ponds/${pond.slug}/labels/${label.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(await Label.count({ where: { id: [label.id, child.id] } }), 0, 'the subtree goes with it');
    assert.ok(await Label.findByPk(parent.id));
  });

  test('a read token is refused every write with 403 scope_required, and nothing changes', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const label = await seedLabel(pond.id, 'Kept');
    const api = await cast.client(cast.owner, 'read');
    const base = `/ponds/${pond.slug}`;
    for (const response of [
      await api.post(`${base}/labels`, { name: 'X', color: '#000000' }),
      await api.patch(`${base}/labels/${label.id}`, { name: 'Y' }),
      await api.delete(`${base}/labels/${label.id}`),
      await api.put(`${base}/pages/${page.slug}/labels/${label.id}`),
      await api.delete(`${base}/pages/${page.slug}/labels/${label.id}`),
    ]) {
      assertApiError(response, 403, 'scope_required');
    }
    assert.equal((await Label.findByPk(label.id))?.name, 'Kept');
    assert.deepEqual(await assignedLabelIds(page), []);
    assert.equal((await cast.writesOf(api.tokenId)).length, 0);
  });

  test('a label id of another pond, an unknown one and a malformed one are 404', async () => {
    const pond = await cast.seedApiPond();
    const other = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const foreign = await seedLabel(other.id, 'Elsewhere');
    const api = await cast.client(cast.owner, 'write');
    for (const id of [foreign.id, MISSING_UUID, 'not-a-uuid']) {
      assertApiError(await api.patch(`/ponds/${pond.slug}/labels/${id}`, { name: 'Mine' }), 404, 'not_found');
      assertApiError(await api.delete(`/ponds/${pond.slug}/labels/${id}`), 404, 'not_found');
      assertApiError(await api.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${id}`), 404, 'not_found');
      assertApiError(await api.delete(`/ponds/${pond.slug}/pages/${page.slug}/labels/${id}`), 404, 'not_found');
    }
    assert.equal((await Label.findByPk(foreign.id))?.name, 'Elsewhere');
  });

  test('assign and unassign are idempotent and answer the page’s labels', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const topic = await seedLabel(pond.id, 'Topic');
    const sub = await seedLabel(pond.id, 'Sub', { parentId: topic.id });
    const api = await cast.client(cast.editor, 'write');
    const path = (labelId: string) => `/ponds/${pond.slug}/pages/${page.slug}/labels/${labelId}`;
    const first = await api.put(path(sub.id));
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { page: page.slug, labels: [{ id: sub.id, name: 'Sub', color: sub.color }] });
    const again = await api.put(path(sub.id.toUpperCase()));
    assert.equal(again.status, 200, 'assigning an assigned label is no error');
    assert.deepEqual(again.body, first.body);
    const both = await api.put(path(topic.id));
    assert.deepEqual(both.body.labels.map((label: { name: string }) => label.name), ['Topic', 'Sub'], 'tree order');
    assert.deepEqual(await assignedLabelIds(page), [topic.id, sub.id].sort());
    const removed = await api.delete(path(topic.id));
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body.labels.map((label: { id: string }) => label.id), [sub.id]);
    const removedAgain = await api.delete(path(topic.id));
    assert.equal(removedAgain.status, 200, 'unassigning a label the page does not carry is no error');
    assert.deepEqual(await assignedLabelIds(page), [sub.id]);
  });

  test('the 51st label of a page is refused', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Crowded');
    const labels = [];
    for (let i = 0; i < 51; i += 1) labels.push(await seedLabel(pond.id, `L${i}`));
    await seedPageLabels(page, labels.slice(0, 50));
    const api = await cast.client(cast.editor, 'write');
    const refused = await api.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${labels[50]!.id}`);
    assertApiError(refused, 400, 'validation_failed');
    assert.equal(refused.body.error.details.fields[0].code, 'too_many_labels');
    assert.equal((await assignedLabelIds(page)).length, 50);
    assert.equal((await api.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${labels[0]!.id}`)).status, 200, 'one it carries is still fine');
  });

  test('who may: the tree for readers, changes for pond writers, labelling for page writers, governing labels for pond admins', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const hidden = await seedPage(pond.id, 'Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    const label = await seedLabel(pond.id, 'Plain');
    const reader = await cast.client(cast.reader, 'write');
    assert.equal((await reader.get(`/ponds/${pond.slug}/labels`)).status, 200);
    assertApiError(await reader.post(`/ponds/${pond.slug}/labels`, { name: 'X', color: '#000000' }), 403, 'forbidden');
    assertApiError(await reader.patch(`/ponds/${pond.slug}/labels/${label.id}`, { name: 'Y' }), 403, 'forbidden');
    assertApiError(await reader.delete(`/ponds/${pond.slug}/labels/${label.id}`), 403, 'forbidden');
    assertApiError(await reader.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${label.id}`), 403, 'forbidden');
    assertApiError(await reader.put(`/ponds/${pond.slug}/pages/${hidden.slug}/labels/${label.id}`), 404, 'not_found');

    const outsider = await cast.client(cast.outsider, 'write');
    assertApiError(await outsider.get(`/ponds/${pond.slug}/labels`), 404, 'not_found');
    assertApiError(await outsider.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${label.id}`), 404, 'not_found');
    const foreign = await seedForeignPond(cast);
    assertApiError(await (await cast.client(cast.owner, 'read')).get(`/ponds/${foreign.slug}/labels`), 404, 'not_found');

    // A label a grant is scoped on governs access: only a pond admin may put it on or take it off.
    const governing = await seedLabel(pond.id, 'Confidential');
    await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'label', id: governing.id }, effect: 'deny' });
    const editor = await cast.client(cast.editor, 'write');
    assertApiError(await editor.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${governing.id}`), 403, 'label_governs_access');
    assert.equal((await (await cast.client(cast.owner, 'write')).put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${governing.id}`)).status, 200);
  });

  test('a pond that has not switched the API on answers 404 not_found, even to its members', async () => {
    const pond = await cast.seedApiPond({ apiEnabled: false });
    const api = await cast.client(cast.owner, 'write');
    assertApiError(await api.get(`/ponds/${pond.slug}/labels`), 404, 'not_found');
    assertApiError(await api.post(`/ponds/${pond.slug}/labels`, { name: 'X', color: '#000000' }), 404, 'not_found');
    assert.equal(await Label.count({ where: { pondId: pond.id } }), 0);
  });

  test('every write is audited as api.write with the token, the route and the status', async () => {
    const pond = await cast.seedApiPond();
    const page = await seedPage(pond.id, 'Page');
    const api = await cast.client(cast.editor, 'write');
    const created = await api.post(`/ponds/${pond.slug}/labels`, { name: 'Audited', color: '#123456' });
    await api.patch(`/ponds/${pond.slug}/labels/${created.body.id}`, { color: '#654321' });
    await api.put(`/ponds/${pond.slug}/pages/${page.slug}/labels/${created.body.id}`);
    await api.delete(`/ponds/${pond.slug}/pages/${page.slug}/labels/${created.body.id}`);
    await api.delete(`/ponds/${pond.slug}/labels/${created.body.id}`);
    await api.get(`/ponds/${pond.slug}/labels`);
    const writes = await cast.writesOf(api.tokenId);
    assert.deepEqual(
      writes.map((entry) => [entry.details.method, entry.details.route, entry.details.status]),
      [
        ['POST', '/ponds/:pondSlug/labels', 201],
        ['PATCH', '/ponds/:pondSlug/labels/:labelId', 200],
        ['PUT', '/ponds/:pondSlug/pages/:pageSlug/labels/:labelId', 200],
        ['DELETE', '/ponds/:pondSlug/pages/:pageSlug/labels/:labelId', 200],
        ['DELETE', '/ponds/:pondSlug/labels/:labelId', 204],
      ],
    );
    assert.ok(writes.every((entry) => entry.actorId === cast.editor.user.id && entry.details.channel === 'rest'));
    assert.equal((writes[1]!.details.params as Record<string, string>).labelId, created.body.id);
  });

  describe('setApiPageLabels (MCP set_page_labels)', () => {
    test('replaces the set exactly; duplicates collapse, ids in any case', async () => {
      const pond = await cast.seedApiPond();
      const page = await seedPage(pond.id, 'Page');
      const [a, b, c] = [await seedLabel(pond.id, 'A'), await seedLabel(pond.id, 'B'), await seedLabel(pond.id, 'C')];
      await seedPageLabels(page, [a, b]);
      const call = await cast.callAs(cast.editor, 'write');
      const result = await setApiPageLabels(call, pond.slug, page.slug, [c.id, b.id.toUpperCase(), c.id]);
      assert.deepEqual(result, { page: page.slug, labels: [{ id: b.id, name: 'B', color: b.color }, { id: c.id, name: 'C', color: c.color }] });
      assert.deepEqual(await assignedLabelIds(page), [b.id, c.id].sort());
      assert.deepEqual((await setApiPageLabels(call, pond.slug, page.slug, [])).labels, []);
      assert.deepEqual(await assignedLabelIds(page), []);
    });

    test('a label of another pond is a 400 and nothing changes; a reader is refused', async () => {
      const pond = await cast.seedApiPond();
      const page = await seedPage(pond.id, 'Page');
      const own = await seedLabel(pond.id, 'Own');
      const foreign = await seedLabel((await cast.seedApiPond()).id, 'Foreign');
      const call = await cast.callAs(cast.editor, 'write');
      await assert.rejects(setApiPageLabels(call, pond.slug, page.slug, [own.id, foreign.id]), (error: any) => error.code === 'validation_failed' && error.status === 400);
      assert.deepEqual(await assignedLabelIds(page), []);
      await assert.rejects(setApiPageLabels(await cast.callAs(cast.reader, 'write'), pond.slug, page.slug, [own.id]), (error: any) => error.code === 'forbidden' && error.status === 403);
    });
  });
});
