/**
 * The label set of a page through HTTP (PUT /pages/:id/labels): the exact set replaces the old
 * one, who may set it, the refusals (labels of another pond, malformed ids, more than 50), and
 * a reader's access changing at once when an assigned label carries a deny.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Pond } from '../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, resetRateLimits } from '../testing/fixtures.ts';
import { assertError, assertFieldError, assignedLabelIds, createLabel, putLabels, seedTeamPondFor, signedInPerson, type Person } from '../testing/pondTestSetup.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('page labels', () => {
  let instance: TestInstance;
  let owner: Person;
  let editor: Person;
  let reader: Person;

  const person = (): Promise<Person> => signedInPerson(instance);

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    owner = await person();
    editor = await person();
    reader = await person();
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  /** A shared pond of `owner` with `editor` as editor and `reader` as reader. */
  const pondWithMembers = (): Promise<Pond> => seedTeamPondFor(owner.id, editor.id, reader.id);

  describe('PUT /pages/:id/labels', () => {
    test('sets the exact set: duplicates collapse, ids come back sorted with their views in tree order', async () => {
      const pond = await pondWithMembers();
      const page = await seedPage(pond.id, 'Page');
      const zulu = await createLabel(owner.client, pond.id, 'Zulu');
      const alpha = await createLabel(owner.client, pond.id, 'Alpha');
      const child = await createLabel(owner.client, pond.id, 'Child', zulu.id);
      const first = await putLabels(editor.client, page.id, [zulu.id, child.id.toUpperCase(), zulu.id]);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.pageId, page.id);
      assert.deepEqual(first.body.labelIds, [zulu.id, child.id].sort());
      assert.deepEqual(
        first.body.labels.map((label: { id: string; depth: number }) => [label.id, label.depth]),
        [
          [zulu.id, 1],
          [child.id, 2],
        ],
      );
      assert.deepEqual(await assignedLabelIds(page), [zulu.id, child.id].sort());
      const second = await putLabels(editor.client, page.id, [alpha.id, child.id]);
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(await assignedLabelIds(page), [alpha.id, child.id].sort());
      assert.deepEqual(second.body.labels.map((label: { name: string }) => label.name), ['Alpha', 'Child']);
      const cleared = await putLabels(editor.client, page.id, []);
      assert.equal(cleared.status, 200);
      assert.deepEqual(cleared.body, { pageId: page.id, labelIds: [], labels: [] });
      assert.deepEqual(await assignedLabelIds(page), []);
    });

    test('an editor of one page only may label that page', async () => {
      const pond = await pondWithMembers();
      const page = await seedPage(pond.id, 'Shared page');
      const other = await seedPage(pond.id, 'Other page');
      const guest = await person();
      await seedGrant(pond.id, { subject: { type: 'user', id: guest.id }, role: 'editor', scope: { type: 'page', id: page.id } });
      const label = await createLabel(owner.client, pond.id, 'Topic');
      assert.equal((await putLabels(guest.client, page.id, [label.id])).status, 200);
      assertError(await putLabels(guest.client, other.id, [label.id]), 404, 'not_found');
      assertError(await guest.client.post(`/ponds/${pond.id}/labels`, { name: 'Mine', color: '#000000' }), 403, 'forbidden');
    });

    test('PUT /pages/:id/labels refuses labels of another pond, malformed ids and more than 50 labels', async () => {
      const pond = await pondWithMembers();
      const page = await seedPage(pond.id, 'Page');
      const own = await seedLabel(pond.id, 'Own');
      const foreign = await seedLabel((await seedSharedPond(owner.id)).id, 'Foreign');
      const response = await putLabels(editor.client, page.id, [own.id, foreign.id]);
      assertFieldError(response, 'labelIds');
      assert.deepEqual(response.body.error.details.fields[0].labelIds, [foreign.id]);
      assertFieldError(await putLabels(editor.client, page.id, ['not-a-uuid']), 'labelIds.0');
      assertFieldError(await editor.client.request('PUT', `/pages/${page.id}/labels`, { body: {} }), 'labelIds');
      const many = await Promise.all(Array.from({ length: 51 }, (_, index) => seedLabel(pond.id, `Many ${index}`)));
      assertFieldError(await putLabels(editor.client, page.id, many.map((label) => label.id)), 'labelIds');
      assert.deepEqual(await assignedLabelIds(page), []);
    });

    test('after PUT /pages/:id/labels a reader’s access changes at once when the label carries a deny', async () => {
      const pond = await pondWithMembers();
      const viewer = await person();
      await seedGrant(pond.id, { subject: { type: 'user', id: viewer.id }, role: 'reader' });
      const hidden = await createLabel(owner.client, pond.id, 'Hidden');
      await seedGrant(pond.id, { subject: { type: 'user', id: viewer.id }, role: 'reader', scope: { type: 'label', id: hidden.id }, effect: 'deny' });
      const page = await seedPage(pond.id, 'Page');
      // The first read caches the pond's access data; the assignment must drop it.
      const status = async () => (await viewer.client.get(`/pages/${page.id}`)).status;
      assert.equal(await status(), 200);
      const assigned = await putLabels(owner.client, page.id, [hidden.id]);
      assert.equal(assigned.status, 200, assigned.text);
      assert.equal(await status(), 404);
      assert.equal((await putLabels(owner.client, page.id, [])).status, 200);
      assert.equal(await status(), 200);
    });
  });
});
