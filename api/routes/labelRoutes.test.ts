/**
 * Labels through HTTP: the pond's label tree (list, create, rename/recolour/move, delete with
 * the subtree). Labels are permission scopes, so changes that can alter access need a pond
 * admin. The label set of a page (PUT /pages/:id/labels): pageLabelRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, Grant, Label, type Pond } from '../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, resetRateLimits } from '../testing/fixtures.ts';
import { assertError, assertFieldError, assignedLabelIds, createLabel, putLabels, seedTeamPondFor, signedInPerson, type Person } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('labels', () => {
  let instance: TestInstance;
  let siteAdmin: TestClient;
  let owner: Person;
  let editor: Person;
  let reader: Person;
  let outsider: Person;
  let anonymous: TestClient;

  const person = (): Promise<Person> => signedInPerson(instance);

  before(async () => {
    instance = await startTestInstance();
    siteAdmin = await completeSetup(instance);
    owner = await person();
    editor = await person();
    reader = await person();
    outsider = await person();
    anonymous = new TestClient(instance.baseUrl);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  /** A shared pond of `owner` with `editor` as editor and `reader` as reader. */
  const pondWithMembers = (): Promise<Pond> => seedTeamPondFor(owner.id, editor.id, reader.id);

  /** A chain of labels, each under the one before; returns them root first. */
  async function createChain(pondId: string, length: number, prefix = 'Level', parentId: string | null = null) {
    const chain: { id: string; depth: number }[] = [];
    for (let level = 1; level <= length; level += 1) chain.push(await createLabel(owner.client, pondId, `${prefix} ${level}`, chain.at(-1)?.id ?? parentId));
    return chain;
  }

  describe('page counts in the list', () => {
    test('each label counts the live pages the caller may read that carry it, and with its descendants (each page once)', async () => {
      const pond = await pondWithMembers();
      const parent = await seedLabel(pond.id, 'Parent');
      const child = await seedLabel(pond.id, 'Child', { parentId: parent.id });
      const both = await seedPage(pond.id, 'Both');
      const onlyChild = await seedPage(pond.id, 'Only child');
      const hidden = await seedPage(pond.id, 'Hidden');
      const trashed = await seedPage(pond.id, 'Trashed', { trashed: true });
      await seedPageLabels(both, [parent, child]);
      await seedPageLabels(onlyChild, [child]);
      await seedPageLabels(hidden, [child]);
      await seedPageLabels(trashed, [parent]);
      await seedGrant(pond.id, { subject: { type: 'user', id: reader.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
      const countsFor = async (client: TestClient) =>
        Object.fromEntries(((await client.get(`/ponds/${pond.id}/labels`)).body.items as { name: string; pageCount: number; subtreePageCount: number }[]).map((label) => [label.name, [label.pageCount, label.subtreePageCount]]));
      assert.deepEqual(await countsFor(owner.client), { Parent: [1, 3], Child: [3, 3] });
      assert.deepEqual(await countsFor(reader.client), { Parent: [1, 2], Child: [2, 2] }, 'a page denied to the reader is not counted for them');
    });
  });

  describe('creating and listing', () => {
    test('POST answers 201 with the LabelView; the colour is stored in lower case and the name trimmed', async () => {
      const pond = await pondWithMembers();
      const response = await editor.client.post(`/ponds/${pond.id}/labels`, { name: '  Projects  ', color: '#AABBCC' });
      assert.equal(response.status, 201, response.text);
      const view = response.body;
      assert.deepEqual(Object.keys(view).sort(), ['color', 'createdAt', 'depth', 'id', 'name', 'parentId', 'pondId', 'updatedAt']);
      assert.equal(view.pondId, pond.id);
      assert.equal(view.parentId, null);
      assert.equal(view.name, 'Projects');
      assert.equal(view.color, '#aabbcc');
      assert.equal(view.depth, 1);
      assert.ok(!Number.isNaN(Date.parse(view.createdAt)));
      const stored = await Label.findByPk(view.id);
      assert.equal(stored?.color, '#aabbcc');
      assert.equal(stored?.name, 'Projects');
      const child = await createLabel(editor.client, pond.id, '2025', view.id);
      assert.equal(child.parentId, view.id);
      assert.equal(child.depth, 2);
    });

    test('GET lists depth-first, parents before children, siblings by name case-insensitively', async () => {
      const pond = await pondWithMembers();
      const beta = await createLabel(owner.client, pond.id, 'beta');
      const alpha = await createLabel(owner.client, pond.id, 'Alpha');
      const zeta = await createLabel(owner.client, pond.id, 'Zeta', alpha.id);
      const gamma = await createLabel(owner.client, pond.id, 'gamma', alpha.id);
      const deep = await createLabel(owner.client, pond.id, 'Deep', gamma.id);
      const charlie = await createLabel(owner.client, pond.id, 'Charlie');
      // Another pond's labels never show up.
      await seedLabel((await seedSharedPond(owner.id)).id, 'Elsewhere');
      const response = await reader.client.get(`/ponds/${pond.id}/labels`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.nextCursor, null);
      const listed = (response.body.items as { id: string; depth: number; parentId: string | null }[]).map((item) => [item.id, item.depth, item.parentId]);
      assert.deepEqual(listed, [
        [alpha.id, 1, null],
        [gamma.id, 2, alpha.id],
        [deep.id, 3, gamma.id],
        [zeta.id, 2, alpha.id],
        [beta.id, 1, null],
        [charlie.id, 1, null],
      ]);
    });

    test('a pond without labels lists none', async () => {
      const pond = await pondWithMembers();
      const response = await reader.client.get(`/ponds/${pond.id}/labels`);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { items: [], nextCursor: null });
    });
  });

  describe('who may', () => {
    test('anonymous writes answer 401', async () => {
      const pond = await pondWithMembers();
      const label = await seedLabel(pond.id, 'Existing');
      const page = await seedPage(pond.id, 'Page');
      assertError(await anonymous.post(`/ponds/${pond.id}/labels`, { name: 'X', color: '#000000' }), 401, 'unauthenticated');
      assertError(await anonymous.patch(`/labels/${label.id}`, { name: 'Y' }), 401, 'unauthenticated');
      assertError(await anonymous.request('DELETE', `/labels/${label.id}`), 401, 'unauthenticated');
      assertError(await putLabels(anonymous, page.id, [label.id]), 401, 'unauthenticated');
      assert.ok(await Label.findByPk(label.id));
    });

    test('a non-member gets 404 for everything of someone else’s pond, and so do malformed and unknown ids', async () => {
      const pond = await pondWithMembers();
      const label = await seedLabel(pond.id, 'Private');
      const page = await seedPage(pond.id, 'Page');
      assertError(await outsider.client.get(`/ponds/${pond.id}/labels`), 404, 'not_found');
      assertError(await anonymous.get(`/ponds/${pond.id}/labels`), 404, 'not_found');
      assertError(await outsider.client.post(`/ponds/${pond.id}/labels`, { name: 'X', color: '#000000' }), 404, 'not_found');
      assertError(await outsider.client.patch(`/labels/${label.id}`, { name: 'Mine now' }), 404, 'not_found');
      assertError(await outsider.client.request('DELETE', `/labels/${label.id}`), 404, 'not_found');
      assertError(await putLabels(outsider.client, page.id, [label.id]), 404, 'not_found');
      assert.equal((await Label.findByPk(label.id))?.name, 'Private');
      const unknown = '5b0e2a44-4c55-4f0e-9a43-0e0d1c9b7a10';
      for (const id of ['not-a-uuid', '123', unknown]) {
        assertError(await owner.client.get(`/ponds/${id}/labels`), 404, 'not_found');
        assertError(await owner.client.patch(`/labels/${id}`, { name: 'X' }), 404, 'not_found');
        assertError(await owner.client.request('DELETE', `/labels/${id}`), 404, 'not_found');
        assertError(await putLabels(owner.client, id, []), 404, 'not_found');
      }
    });

    test('a reader member may list but gets 403 on every write', async () => {
      const pond = await pondWithMembers();
      const label = await seedLabel(pond.id, 'Topic');
      const page = await seedPage(pond.id, 'Page');
      assert.equal((await reader.client.get(`/ponds/${pond.id}/labels`)).status, 200);
      assertError(await reader.client.post(`/ponds/${pond.id}/labels`, { name: 'X', color: '#000000' }), 403, 'forbidden');
      assertError(await reader.client.patch(`/labels/${label.id}`, { name: 'Renamed' }), 403, 'forbidden');
      assertError(await reader.client.request('DELETE', `/labels/${label.id}`), 403, 'forbidden');
      assertError(await putLabels(reader.client, page.id, [label.id]), 403, 'forbidden');
      assert.equal((await Label.findByPk(label.id))?.name, 'Topic');
      assert.deepEqual(await assignedLabelIds(page), []);
      assert.equal(await Label.count({ where: { pondId: pond.id } }), 1);
    });
  });

  describe('validation', () => {
    test('bad colours, empty or slashed or overlong names answer 400 naming the field', async () => {
      const pond = await pondWithMembers();
      for (const color of ['red', '#12345', '#1234567', '#12345g', '112233', '', null]) {
        assertFieldError(await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'Ok', color }), 'color');
      }
      assertFieldError(await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'Ok' }), 'color');
      for (const name of ['', '   ', 'a/b', 'x'.repeat(65), 42]) {
        assertFieldError(await editor.client.post(`/ponds/${pond.id}/labels`, { name, color: '#000000' }), 'name');
      }
      assert.equal((await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'x'.repeat(64), color: '#000000' })).status, 201);
      const label = await createLabel(editor.client, pond.id, 'Valid');
      assertFieldError(await editor.client.patch(`/labels/${label.id}`, { color: 'blue' }), 'color');
      assertFieldError(await editor.client.patch(`/labels/${label.id}`, { name: '  ' }), 'name');
      assertFieldError(await editor.client.patch(`/labels/${label.id}`, { parentId: 'nope' }), 'parentId');
      const empty = await editor.client.patch(`/labels/${label.id}`, {});
      assertError(empty, 400, 'validation_failed');
      assert.equal(empty.body.error.details.fields[0].code, 'nothing_to_change');
      assert.equal(await Label.count({ where: { pondId: pond.id } }), 2);
    });

    test('a parent from another pond answers 400 on create and on move', async () => {
      const pond = await pondWithMembers();
      const foreign = await seedLabel((await seedSharedPond(editor.id)).id, 'Foreign');
      const response = await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'Child', color: '#000000', parentId: foreign.id });
      assertFieldError(response, 'parentId');
      assert.equal(response.body.error.details.fields[0].code, 'label_not_in_pond');
      assertFieldError(await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'Child', color: '#000000', parentId: '5b0e2a44-4c55-4f0e-9a43-0e0d1c9b7a10' }), 'parentId');
      const label = await createLabel(editor.client, pond.id, 'Here');
      assertFieldError(await editor.client.patch(`/labels/${label.id}`, { parentId: foreign.id }), 'parentId');
      assert.equal((await Label.findByPk(label.id))?.parentId, null);
      assert.equal(await Label.count({ where: { pondId: pond.id } }), 1);
    });
  });

  describe('names, depth and cycles', () => {
    test('a name is unique per parent case-insensitively; the same name elsewhere is fine', async () => {
      const pond = await pondWithMembers();
      const work = await createLabel(editor.client, pond.id, 'Work');
      const home = await createLabel(editor.client, pond.id, 'Home');
      await createLabel(editor.client, pond.id, 'Ideas', work.id);
      assertError(await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'IDEAS', color: '#000000', parentId: work.id }), 409, 'label_name_taken');
      assertError(await editor.client.post(`/ponds/${pond.id}/labels`, { name: ' work ', color: '#000000' }), 409, 'label_name_taken');
      const homeIdeas = await createLabel(editor.client, pond.id, 'ideas', home.id);
      await createLabel(editor.client, pond.id, 'Ideas'); // at the root
      // Renaming into a taken name and moving next to a namesake are refused too.
      assertError(await editor.client.patch(`/labels/${home.id}`, { name: 'WORK' }), 409, 'label_name_taken');
      assertError(await editor.client.patch(`/labels/${homeIdeas.id}`, { parentId: work.id }), 409, 'label_name_taken');
      assertError(await editor.client.patch(`/labels/${homeIdeas.id}`, { parentId: null }), 409, 'label_name_taken');
      assert.equal((await Label.findByPk(homeIdeas.id))?.parentId, home.id);
      // A label may change the case of its own name.
      const renamed = await editor.client.patch(`/labels/${home.id}`, { name: 'HOME', color: '#ABCDEF' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.name, 'HOME');
      assert.equal(renamed.body.color, '#abcdef');
      assert.equal(renamed.body.depth, 1);
    });

    test('a chain of 6 is fine, a 7th level answers 409 label_depth_exceeded', async () => {
      const pond = await pondWithMembers();
      const chain = await createChain(pond.id, 6);
      assert.deepEqual(chain.map((label) => label.depth), [1, 2, 3, 4, 5, 6]);
      assertError(await editor.client.post(`/ponds/${pond.id}/labels`, { name: 'Seventh', color: '#000000', parentId: chain[5]!.id }), 409, 'label_depth_exceeded');
      assert.equal(await Label.count({ where: { pondId: pond.id } }), 6);
    });

    test('a move that would push the subtree below depth 6 answers 409; one that fits moves the whole subtree', async () => {
      const pond = await pondWithMembers();
      const chain = await createChain(pond.id, 5);
      const subtree = await createChain(pond.id, 2, 'Moved'); // a root with one child: height 2
      assertError(await editor.client.patch(`/labels/${subtree[0]!.id}`, { parentId: chain[4]!.id }), 409, 'label_depth_exceeded');
      assert.equal((await Label.findByPk(subtree[0]!.id))?.parentId, null);
      const moved = await editor.client.patch(`/labels/${subtree[0]!.id}`, { parentId: chain[3]!.id });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.parentId, chain[3]!.id);
      assert.equal(moved.body.depth, 5);
      const listed = (await editor.client.get(`/ponds/${pond.id}/labels`)).body.items as { id: string; depth: number }[];
      assert.equal(listed.find((item) => item.id === subtree[1]!.id)?.depth, 6);
      // And back to the root with parentId null.
      const back = await editor.client.patch(`/labels/${subtree[0]!.id}`, { parentId: null });
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.parentId, null);
      assert.equal(back.body.depth, 1);
    });

    test('moving a label under itself or its descendant answers 409 label_cycle', async () => {
      const pond = await pondWithMembers();
      const [top, middle, bottom] = await createChain(pond.id, 3);
      assertError(await editor.client.patch(`/labels/${top!.id}`, { parentId: top!.id }), 409, 'label_cycle');
      assertError(await editor.client.patch(`/labels/${top!.id}`, { parentId: middle!.id }), 409, 'label_cycle');
      assertError(await editor.client.patch(`/labels/${top!.id}`, { parentId: bottom!.id }), 409, 'label_cycle');
      assert.equal((await Label.findByPk(top!.id))?.parentId, null);
    });

    test('two concurrent crosswise moves never build a cycle', async () => {
      const pond = await pondWithMembers();
      for (let round = 0; round < 4; round += 1) {
        const first = await createLabel(owner.client, pond.id, `First ${round}`);
        const second = await createLabel(owner.client, pond.id, `Second ${round}`);
        const results = await Promise.all([
          editor.client.patch(`/labels/${first.id}`, { parentId: second.id }),
          owner.client.patch(`/labels/${second.id}`, { parentId: first.id }),
        ]);
        assert.deepEqual(results.map((result) => result.status).sort(), [200, 409], results.map((result) => result.text).join(' | '));
        assert.equal(results.find((result) => result.status === 409)?.body.error.code, 'label_cycle');
        const rows = await Label.findAll({ where: { id: [first.id, second.id] } });
        assert.equal(rows.filter((row) => row.parentId === null).length, 1, 'exactly one of them stays a root');
      }
    });
  });

  describe('deleting', () => {
    test('deletes the subtree, its page assignments and the grants scoped on it; audited with the grant count', async () => {
      const pond = await pondWithMembers();
      const [top, middle, bottom] = await createChain(pond.id, 3);
      const sibling = await createLabel(owner.client, pond.id, 'Sibling');
      const page = await seedPage(pond.id, 'Page');
      await seedPageLabels(page, [(await Label.findByPk(bottom!.id))!, (await Label.findByPk(sibling.id))!]);
      const grant = await seedGrant(pond.id, { subject: { type: 'user', id: reader.id }, role: 'reader', scope: { type: 'label', id: middle!.id }, effect: 'deny' });
      const siblingGrant = await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'label', id: sibling.id } });
      const response = await owner.client.request('DELETE', `/labels/${top!.id}`);
      assert.equal(response.status, 204, response.text);
      assert.equal(await Label.count({ where: { id: [top!.id, middle!.id, bottom!.id] } }), 0);
      assert.ok(await Label.findByPk(sibling.id));
      assert.deepEqual(await assignedLabelIds(page), [sibling.id]);
      assert.equal(await Grant.findByPk(grant.id), null);
      assert.ok(await Grant.findByPk(siblingGrant.id));
      const audit = await AuditEntry.findOne({ where: { action: 'label.deleted', actorId: owner.id }, order: [['id', 'DESC']] });
      assert.ok(audit, 'label.deleted is audited when grants went with the label');
      assert.equal(audit.details.labelId, top!.id);
      assert.equal(audit.details.deletedGrantCount, 1);
      assert.deepEqual([...(audit.details.deletedLabelIds as string[])].sort(), [top!.id, middle!.id, bottom!.id].sort());
      assertError(await owner.client.request('DELETE', `/labels/${top!.id}`), 404, 'not_found');
    });

    test('an editor may delete a label that governs nothing (not audited)', async () => {
      const pond = await pondWithMembers();
      const label = await createLabel(owner.client, pond.id, 'Plain');
      await createLabel(owner.client, pond.id, 'Plain child', label.id);
      const auditsBefore = await AuditEntry.count({ where: { action: 'label.deleted' } });
      assert.equal((await editor.client.request('DELETE', `/labels/${label.id}`)).status, 204);
      assert.equal(await Label.count({ where: { pondId: pond.id } }), 0);
      assert.equal(await AuditEntry.count({ where: { action: 'label.deleted' } }), auditsBefore);
    });
  });

  describe('labels that govern access', () => {
    /** A pond with a label `Secret` that carries a grant, its child `Inner`, and a plain label. */
    async function governedPond() {
      const pond = await pondWithMembers();
      const secret = await createLabel(owner.client, pond.id, 'Secret');
      const inner = await createLabel(owner.client, pond.id, 'Inner', secret.id);
      const plain = await createLabel(owner.client, pond.id, 'Plain');
      await seedGrant(pond.id, { subject: { type: 'user', id: reader.id }, role: 'reader', scope: { type: 'label', id: secret.id }, effect: 'deny' });
      const page = await seedPage(pond.id, 'Page');
      return { pond, secret, inner, plain, page };
    }

    test('an editor may not assign or remove a label whose ancestor carries a grant; a pond admin may', async () => {
      const { inner, plain, page } = await governedPond();
      const refused = await putLabels(editor.client, page.id, [plain.id, inner.id]);
      assertError(refused, 403, 'label_governs_access');
      assert.deepEqual(await assignedLabelIds(page), [], 'nothing changed, not even the plain label');
      const plainOnly = await putLabels(editor.client, page.id, [plain.id]);
      assert.equal(plainOnly.status, 200, plainOnly.text);
      const byAdmin = await putLabels(owner.client, page.id, [plain.id, inner.id]);
      assert.equal(byAdmin.status, 200, byAdmin.text);
      assert.deepEqual(await assignedLabelIds(page), [inner.id, plain.id].sort());
      // Removing it is refused to the editor too, while keeping it and dropping the plain one is fine.
      assertError(await putLabels(editor.client, page.id, []), 403, 'label_governs_access');
      assert.equal((await putLabels(editor.client, page.id, [inner.id])).status, 200);
      assert.deepEqual(await assignedLabelIds(page), [inner.id]);
    });

    test('an editor may not move or delete such a label, nor move another under it; renaming is fine; a pond admin and a Site Admin may', async () => {
      const { secret, inner, plain } = await governedPond();
      assertError(await editor.client.patch(`/labels/${inner.id}`, { parentId: null }), 403, 'label_governs_access');
      assertError(await editor.client.patch(`/labels/${plain.id}`, { parentId: secret.id }), 403, 'label_governs_access');
      assertError(await editor.client.request('DELETE', `/labels/${inner.id}`), 403, 'label_governs_access');
      assertError(await editor.client.request('DELETE', `/labels/${secret.id}`), 403, 'label_governs_access');
      assert.equal((await Label.findByPk(inner.id))?.parentId, secret.id);
      assert.equal((await Label.findByPk(plain.id))?.parentId, null);
      const renamed = await editor.client.patch(`/labels/${inner.id}`, { name: 'Inner circle', color: '#FF0000' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.parentId, secret.id);
      const moved = await owner.client.patch(`/labels/${plain.id}`, { parentId: secret.id });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.depth, 2);
      assert.equal((await siteAdmin.patch(`/labels/${inner.id}`, { parentId: null })).status, 200);
      assert.equal((await owner.client.request('DELETE', `/labels/${secret.id}`)).status, 204);
      assert.equal(await Label.count({ where: { id: [secret.id, plain.id] } }), 0);
      assert.ok(await Label.findByPk(inner.id));
    });
  });
});
