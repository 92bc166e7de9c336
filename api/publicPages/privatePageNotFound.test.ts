/**
 * A private page's public URL (issue 34, finding 4): the 404 is decided from the cached access
 * data before any lock or generation, so it costs what a missing page's does and a visitor
 * cannot make the server generate anything; a public grant opens it, revoking closes it again.
 * Timing itself is measured by `npm run bench:public` (phase f), not asserted here.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { completeSetup } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { onDemandGenerationCount } from './publicDocumentService.ts';
import { grantPublic, publicFixture, type PublicFixture } from './publicTestFixture.ts';

let instance: TestInstance;
let admin: TestClient;
let fixture: PublicFixture;

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  fixture = await publicFixture(instance, admin);
});

after(async () => {
  await instance.close();
});

const status = async (path: string) => (await fetch(new URL(path, instance.baseUrl))).status;

async function storedDocumentCount(pondId: string): Promise<number> {
  const [row] = await instance.services.sequelize.query<{ count: string }>(`SELECT count(*) AS count FROM public_documents WHERE pond_id = :pondId`, {
    replacements: { pondId },
    type: QueryTypes.SELECT,
  });
  return Number(row!.count);
}

test('a denied page and a page of a private pond answer 404 without generating anything, as a missing page', async () => {
  const generations = onDemandGenerationCount();
  for (let round = 0; round < 3; round += 1) {
    assert.equal(await status(`/${fixture.pond.slug}/secret`), 404);
    assert.equal(await status(`/${fixture.privatePond.slug}/notes`), 404);
    assert.equal(await status(`/api/v1/public/${fixture.privatePond.slug}/notes`), 404);
    assert.equal(await status(`/${fixture.pond.slug}/no-such-page`), 404);
  }
  assert.equal(onDemandGenerationCount(), generations, 'no generation for an unreadable page');
  assert.equal(await storedDocumentCount(fixture.privatePond.id), 0);
});

test('after a public grant the same URL answers 200; after revoking it 404 again, still without generating', async () => {
  const path = `/${fixture.privatePond.slug}/notes`;
  assert.equal(await status(path), 404);
  const grant = await grantPublic(admin, fixture.privatePond.id, { type: 'pond' });
  assert.equal(await status(path), 200);
  assert.equal((await admin.request('DELETE', `/ponds/${fixture.privatePond.id}/grants/${grant}`)).status, 204);
  assert.equal(await status(path), 404);
  const generations = onDemandGenerationCount();
  assert.equal(await status(path), 404);
  assert.equal(onDemandGenerationCount(), generations);
  assert.equal(await storedDocumentCount(fixture.privatePond.id), 0);
});
