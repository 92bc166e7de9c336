/**
 * Lost races on unique indexes answer like the checks before them: the table maps each
 * index to its stable code, commands add details, and a violation that reaches the error
 * handler uncaught is still a typed 409, never a 500. The races are made deterministic by
 * holding the conflicting row in an open transaction until the request waits on the index.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { Label, Pond, User } from '../models/index.ts';
import { seedLabel, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, waitForLockWaiter } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { ERROR_STATUS } from '../http/errorCodes.ts';
import { UNIQUE_INDEX_ERRORS, uniqueViolationError, violatedUniqueIndex } from './uniqueViolations.ts';

/** The error `write` fails with (it must fail). */
async function failureOf(write: () => Promise<unknown>): Promise<unknown> {
  try {
    await write();
  } catch (error) {
    return error;
  }
  assert.fail('the write succeeded');
}

describe('unique violations', () => {
  let instance: TestInstance;
  let owner: { client: TestClient; user: { id: string } };

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    owner = await createVerifiedUser(instance);
  });
  after(() => instance.close());

  test('every mapped index exists in the schema and maps to a 409 code', async () => {
    const rows = await instance.services.sequelize.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`, { type: QueryTypes.SELECT });
    const indexes = new Set(rows.map((row) => row.indexname));
    for (const [index, code] of Object.entries(UNIQUE_INDEX_ERRORS)) {
      assert.ok(indexes.has(index), `${index} is no index of the schema`);
      assert.equal(ERROR_STATUS[code], 409, `${index} → ${code}`);
    }
  });

  test('a duplicate slug, label name, username or address maps to its code with the details given', async () => {
    const pond = await seedSharedPond(owner.user.id);
    const slugError = uniqueViolationError(await failureOf(() => Pond.create({ slug: pond.slug.toUpperCase(), name: 'Twin', kind: 'shared', ownerId: owner.user.id })), { slug: 'x' });
    assert.deepEqual([slugError?.code, slugError?.status, slugError?.details], ['slug_taken', 409, { slug: 'x' }]);
    await seedLabel(pond.id, 'Projects');
    const labelError = uniqueViolationError(await failureOf(() => seedLabel(pond.id, 'PROJECTS')));
    assert.deepEqual([labelError?.code, labelError?.status], ['label_name_taken', 409]);
    const existing = (await User.findByPk(owner.user.id))!;
    const twin = { displayName: 'Twin', locale: null, status: 'ACTIVE' as const, passwordHash: null, emailVerifiedAt: null };
    assert.equal(uniqueViolationError(await failureOf(() => User.create({ ...twin, username: existing.username.toUpperCase(), email: 'other@example.org' })))?.code, 'username_taken');
    assert.equal(uniqueViolationError(await failureOf(() => User.create({ ...twin, username: 'someoneelse', email: existing.email.toUpperCase() })))?.code, 'email_taken');
  });

  test('other errors and unmapped indexes stay unexpected', async () => {
    const personal = await Pond.findOne({ where: { ownerId: owner.user.id, kind: 'personal' } });
    assert.ok(personal);
    const secondPersonal = await failureOf(() => Pond.create({ slug: 'second-personal', name: 'Second', kind: 'personal', ownerId: owner.user.id }));
    assert.equal(violatedUniqueIndex(secondPersonal), 'ponds_one_personal_per_owner');
    assert.equal(uniqueViolationError(secondPersonal), null);
    assert.equal(uniqueViolationError(new Error('ponds_slug_key')), null);
    assert.equal(violatedUniqueIndex(await failureOf(() => Label.create({ pondId: personal.id, name: 'x', parentId: '00000000-0000-4000-8000-000000000000', color: '#000000' }))), null);
  });

  test('a pond slug taken while the request was between check and insert answers 409 slug_taken', async () => {
    const sequelize = instance.services.sequelize;
    const transaction = await sequelize.transaction();
    let response: Promise<{ status: number; body: any }> | null = null;
    try {
      await Pond.create({ slug: 'contested', name: 'First', kind: 'shared', ownerId: owner.user.id }, { transaction });
      // The request's check cannot see the uncommitted row; its insert waits on the index.
      response = owner.client.post('/ponds', { name: 'Second', slug: 'contested' });
      await waitForLockWaiter(instance);
    } finally {
      await transaction.commit();
    }
    const answer = await response!;
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.error.code, 'slug_taken');
    assert.deepEqual(answer.body.error.details, { slug: 'contested' });
  });

  test('a label name a concurrent writer holds answers 409 label_name_taken once it commits (the pond lock orders the check after it)', async () => {
    const pond = await seedSharedPond(owner.user.id);
    const transaction = await instance.services.sequelize.transaction();
    let response: Promise<{ status: number; body: any }> | null = null;
    try {
      await Label.create({ pondId: pond.id, name: 'Contested', parentId: null, color: '#3366cc' }, { transaction });
      response = owner.client.post(`/ponds/${pond.id}/labels`, { name: 'contested', color: '#112233' });
      await waitForLockWaiter(instance);
    } finally {
      await transaction.commit();
    }
    const answer = await response!;
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'label_name_taken');
    assert.deepEqual(answer.body.error.details, { name: 'contested', parentId: null });
  });
});
