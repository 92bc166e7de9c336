/**
 * `GET /ponds` through HTTP: the signed-in user's ponds with their role, starting with the
 * personal pond that signup creates.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Pond } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('GET /ponds', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  test('anonymously answers 401 unauthenticated', async () => {
    const response = await new TestClient(instance.baseUrl).get('/ponds');
    assert.equal(response.status, 401);
    assert.equal(response.body.error.code, 'unauthenticated');
  });

  test('lists exactly the personal pond of a new user, with role pond_admin', async () => {
    await createVerifiedUser(instance); // someone else's personal pond must not show up
    const { client, user } = await createVerifiedUser(instance);
    const pond = await Pond.findOne({ where: { ownerId: user.id, kind: 'personal' } });
    assert.ok(pond);
    const response = await client.get('/ponds');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {
      items: [{ id: pond.id, slug: pond.slug, name: pond.name, kind: 'personal', role: 'pond_admin' }],
      nextCursor: null,
    });
  });

  test('a trashed pond is not listed', async () => {
    const { client, user } = await createVerifiedUser(instance);
    await Pond.update({ trashedAt: new Date() }, { where: { ownerId: user.id } });
    const response = await client.get('/ponds');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.items, []);
  });
});
