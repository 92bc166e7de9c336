/**
 * The bulk form of the policy against the database: `permittedPageIds` answers for pages of
 * several ponds at once and agrees with the one-page answer, including trashed pages and
 * unknown ponds; the per-process cache serves repeated reads and forgets a pond as soon as
 * a change to it commits (and not when the change rolls back).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { permittedPageIds, subjectAccessTo } from './accessPolicy.ts';
import type { AccessSubject } from './grantResolution.ts';
import { announceAccessChange, invalidateAllPondAccess, loadPondAccess } from './pondAccessCache.ts';

describe('permittedPageIds and the access cache', () => {
  let instance: TestInstance;
  let reader: AccessSubject;
  let pages: Page[];
  let pondA: string;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    const owner = await createVerifiedUser(instance);
    const member = await createVerifiedUser(instance);
    reader = { userId: member.user.id, signedIn: true, isSiteAdmin: false };
    pondA = (await seedSharedPond(owner.user.id)).id;
    const pondB = (await seedSharedPond(owner.user.id)).id;
    await seedGrant(pondA, { subject: { type: 'user', id: member.user.id }, role: 'reader' });
    await seedGrant(pondB, { subject: { type: 'user', id: member.user.id }, role: 'editor' });
    pages = [
      await seedPage(pondA, 'A readable'),
      await seedPage(pondA, 'A denied'),
      await seedPage(pondA, 'A trashed', { trashed: true }),
      await seedPage(pondB, 'B writable'),
      await seedPage(pondB, 'B trashed', { trashed: true }),
      await seedPage((await seedSharedPond(owner.user.id)).id, 'C foreign'),
    ];
    await seedGrant(pondA, { subject: { type: 'user', id: member.user.id }, role: 'reader', scope: { type: 'page', id: pages[1]!.id }, effect: 'deny' });
  });
  after(() => instance.close());

  test('read and write across ponds, agreeing with the one-page answer', async () => {
    const titles = (ids: Set<string>) => pages.filter((page) => ids.has(page.id)).map((page) => page.title);
    const readable = await permittedPageIds(instance.services.sequelize, reader, pages, 'read');
    assert.deepEqual(titles(readable), ['A readable', 'B writable', 'B trashed']);
    const writable = await permittedPageIds(instance.services.sequelize, reader, pages, 'write');
    assert.deepEqual(titles(writable), ['B writable', 'B trashed']);
    for (const page of pages) {
      const access = await subjectAccessTo(instance.services.sequelize, reader, page.pondId);
      assert.equal(access?.page(page, 'read').allowed ?? false, readable.has(page.id), page.title);
    }
    const unknownPond = await permittedPageIds(instance.services.sequelize, reader, [{ id: pages[0]!.id, pondId: '00000000-0000-4000-8000-000000000000', trashedAt: null }]);
    assert.equal(unknownPond.size, 0);
  });

  test('the cache serves repeated reads and forgets a pond only when its change commits', async () => {
    invalidateAllPondAccess();
    const sequelize = instance.services.sequelize;
    const first = await loadPondAccess(sequelize, pondA);
    assert.equal(await loadPondAccess(sequelize, pondA), first, 'served from the cache');

    const rolledBack = await sequelize.transaction();
    await announceAccessChange(pondA, rolledBack);
    const during = await loadPondAccess(sequelize, pondA);
    await rolledBack.rollback();
    assert.notEqual(during, first, 'reloaded while the change was open');
    assert.equal(await loadPondAccess(sequelize, pondA), during, 'a rolled-back change leaves the cache alone');

    await sequelize.transaction(async (transaction) => announceAccessChange(pondA, transaction));
    const afterCommit = await loadPondAccess(sequelize, pondA);
    assert.notEqual(afterCommit, during, 'a committed change drops the entry');
    assert.deepEqual(afterCommit?.grants.length, first?.grants.length);
  });
});
