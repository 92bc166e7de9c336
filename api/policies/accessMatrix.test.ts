/**
 * The access matrix through HTTP: every valid grant (subject × role × scope × effect, with
 * the scope at pond, at a label of the page, at that label's parent, or at the page), on a
 * closed and on an open pond, checked for a member, another signed-in user and an anonymous
 * caller against the spec's rules (api/testing/accessOracle.ts):
 * - read: `GET /pages/:id` answers 200, or 404 (existence hidden);
 * - write: `PATCH /pages/:id` answers 200, 403 when the page is readable, else 404;
 * - the bulk form: `GET /ponds/:id/pages` lists the page exactly when it is readable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Grant } from '../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels, seedSharedPond, type SeedGrantProps } from '../testing/accessFixtures.ts';
import { BACKGROUNDS, describeGrant, everyValidGrant, expectedVerdict, type OracleActor, type OracleGrant } from '../testing/accessOracle.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { invalidateAllPondAccess } from './pondAccessCache.ts';

describe('access matrix over HTTP', () => {
  let instance: TestInstance;
  let clients: Record<OracleActor, TestClient>;
  let memberId: string;
  let pondId: string;
  let pageId: string;
  let labelId: string;
  let ancestorLabelId: string;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    const owner = await createVerifiedUser(instance);
    const member = await createVerifiedUser(instance);
    const other = await createVerifiedUser(instance);
    await resetRateLimits(instance);
    memberId = member.user.id;
    clients = { member: member.client, other: other.client, anonymous: new TestClient(instance.baseUrl) };
    pondId = (await seedSharedPond(owner.user.id)).id;
    const ancestor = await seedLabel(pondId, 'Ancestor');
    const label = await seedLabel(pondId, 'Child', { parentId: ancestor.id });
    ancestorLabelId = ancestor.id;
    labelId = label.id;
    const page = await seedPage(pondId, 'The page');
    pageId = page.id;
    await seedPageLabels(page, [label]);
  });
  after(() => instance.close());

  function toSeed(grant: OracleGrant): SeedGrantProps {
    const scope =
      grant.scope === 'pond'
        ? ({ type: 'pond' } as const)
        : grant.scope === 'page'
          ? ({ type: 'page', id: pageId } as const)
          : ({ type: 'label', id: grant.scope === 'label' ? labelId : ancestorLabelId } as const);
    const subject = grant.subject === 'member' ? ({ type: 'user', id: memberId } as const) : ({ type: grant.subject } as const);
    return { subject, role: grant.role, scope, effect: grant.effect };
  }

  /** One (subject, role, scope) holds one grant: skip a tested grant that would collide with the background. */
  function collides(grant: OracleGrant, background: OracleGrant[]): boolean {
    return background.some((other) => other.subject === grant.subject && other.role === grant.role && other.scope === grant.scope);
  }

  for (const [backgroundName, background] of Object.entries(BACKGROUNDS)) {
    test(`${backgroundName}: every grant, every caller`, async () => {
      let checked = 0;
      for (const grant of everyValidGrant()) {
        if (collides(grant, background)) continue;
        const grants = [...background, grant];
        const seeded = [];
        for (const each of grants) seeded.push(await seedGrant(pondId, toSeed(each)));
        try {
          for (const actor of ['member', 'other', 'anonymous'] as const) {
            const canRead = expectedVerdict(grants, actor, 'read');
            const canWrite = expectedVerdict(grants, actor, 'write');
            const where = `${describeGrant(grant)}, ${actor}`;
            const read = await clients[actor].get(`/pages/${pageId}`);
            assert.equal(read.status, canRead ? 200 : 404, `read: ${where}`);
            const listing = await clients[actor].get(`/ponds/${pondId}/pages`);
            const listed = listing.status === 200 && listing.body.items.some((item: { id: string }) => item.id === pageId);
            assert.equal(listed, canRead, `listing: ${where} (status ${listing.status})`);
            if (actor === 'anonymous') continue;
            const write = await clients[actor].patch(`/pages/${pageId}`, { title: 'The page' });
            assert.equal(write.status, canWrite ? 200 : canRead ? 403 : 404, `write: ${where}`);
            checked += 1;
          }
        } finally {
          await Grant.destroy({ where: { id: seeded.map((row) => row.id) } });
          invalidateAllPondAccess();
        }
      }
      assert.ok(checked >= 90, `checked ${checked} combinations`);
    });
  }

  test('deny at page beats allow at pond; allow at page beats deny at label', async () => {
    const seeded = [
      await seedGrant(pondId, { subject: { type: 'user', id: memberId }, role: 'editor', scope: { type: 'pond' } }),
      await seedGrant(pondId, { subject: { type: 'user', id: memberId }, role: 'reader', scope: { type: 'page', id: pageId }, effect: 'deny' }),
    ];
    try {
      assert.equal((await clients.member.get(`/pages/${pageId}`)).status, 404);
      await Grant.destroy({ where: { id: seeded[1]!.id } });
      seeded.pop();
      seeded.push(await seedGrant(pondId, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'label', id: ancestorLabelId }, effect: 'deny' }));
      assert.equal((await clients.member.get(`/pages/${pageId}`)).status, 404, 'the ancestor label deny beats the pond allow');
      seeded.push(await seedGrant(pondId, { subject: { type: 'user', id: memberId }, role: 'reader', scope: { type: 'page', id: pageId } }));
      assert.equal((await clients.member.get(`/pages/${pageId}`)).status, 200, 'the page allow beats the label deny');
      assert.equal((await clients.member.patch(`/pages/${pageId}`, { title: 'Nope' })).status, 403, 'a reader allow at page level does not give write');
    } finally {
      await Grant.destroy({ where: { id: seeded.map((row) => row.id) } });
      invalidateAllPondAccess();
    }
  });
});
