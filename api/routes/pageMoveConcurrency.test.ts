/**
 * Concurrent conflicting moves through HTTP: 50 pairs of sibling pages, and for every pair
 * "A under B" and "B under A" sent at the same time (100 requests in flight). Exactly one of
 * each pair wins; the other gets 409 `page_cycle`; the tree has no cycle afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { completeSetup } from '../testing/fixtures.ts';
import { seedTeamPondFor, signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { treeViolations, type TreeSnapshotRow } from '../testing/treeInvariants.ts';

const PAIRS = 50;
const ROUNDS = 2;

describe('concurrent moves', () => {
  let instance: TestInstance;
  let owner: SignedIn;
  let editor: SignedIn;
  let reader: SignedIn;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    [owner, editor, reader] = (await signInUsers(instance, 3)) as [SignedIn, SignedIn, SignedIn];
  });
  after(() => instance.close());

  for (let round = 1; round <= ROUNDS; round += 1) {
    test(`round ${round}: 2 × ${PAIRS} conflicting moves never make a cycle; the losers get page_cycle`, async () => {
      const pond = await seedTeamPondFor(owner.user.id, editor.user.id, reader.user.id);
      const pairs: [string, string][] = [];
      for (let index = 0; index < PAIRS; index += 1) {
        const a = await editor.client.post(`/ponds/${pond.id}/pages`, { title: `A${index}` });
        const b = await editor.client.post(`/ponds/${pond.id}/pages`, { title: `B${index}` });
        pairs.push([a.body.id, b.body.id]);
      }
      const responses = await Promise.all(
        pairs.flatMap(([a, b]) => [
          editor.client.request('PATCH', `/pages/${a}/position`, { body: { parentId: b } }),
          editor.client.request('PATCH', `/pages/${b}/position`, { body: { parentId: a } }),
        ]),
      );
      for (let index = 0; index < PAIRS; index += 1) {
        const outcome = [responses[2 * index]!, responses[2 * index + 1]!].map((response) => (response.status === 200 ? 'moved' : response.body?.error?.code)).sort();
        assert.deepEqual(outcome, ['moved', 'page_cycle'], `pair ${index}`);
      }
      const rows = await instance.services.sequelize.query<TreeSnapshotRow>(
        `SELECT id, parent_id, position, trashed_at, home_parent_id, search_vector IS NOT NULL AS has_vector FROM pages WHERE pond_id = :pondId`,
        { replacements: { pondId: pond.id }, type: QueryTypes.SELECT },
      );
      assert.deepEqual(treeViolations(rows), []);
      assert.equal(rows.filter((row) => row.parent_id === null).length, PAIRS);
    });
  }
});
