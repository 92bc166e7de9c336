/**
 * `GET /-/page-screen` (pageScreenRoutes.ts): for a page render in this process, each part is
 * what its own route answers to the same caller (refusals included), the pond's and the page's
 * parts are null where the slug names nothing the caller has; from outside it is the API's 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../app.ts';
import { createInProcessFetch } from '../http/inProcessFetch.ts';
import { completeSetup } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let reads: ReturnType<typeof createInProcessFetch>;
let admin: TestClient;
let cookie: string;
let pond: { id: string; slug: string };
let page: { id: string; slug: string };

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  cookie = `dt_session=${admin.sessionCookie}`;
  reads = createInProcessFetch(await createApp(instance.services, { site: false }));
  pond = (await admin.post('/ponds', { name: 'Screen Pond' })).body;
  page = (await admin.post(`/ponds/${pond.id}/pages`, { title: 'Screen Page', markdown: 'Text' })).body;
  assert.ok(pond.id && page.id);
});
after(async () => instance?.close());

async function screen(query: string, headers: Record<string, string> = { cookie }): Promise<{ status: number; body: any }> {
  const answer = await reads.forRender()(`/api/v1/-/page-screen?${query}`, { headers: { accept: 'application/json', ...headers } });
  return { status: answer.status, body: await answer.json() };
}

/** What a route answers to the admin over HTTP, in the shape of a part. */
async function viaHttp(path: string): Promise<unknown> {
  const answer = await admin.get(path);
  return answer.status === 200 ? { ok: true, data: answer.body } : { ok: false, status: answer.status, error: answer.body.error };
}

describe('GET /-/page-screen', () => {
  test("each part of a member's screen is what its own route answers", async () => {
    const { status, body } = await screen(`pond=${pond.slug.toUpperCase()}&page=${page.slug}`);
    assert.equal(status, 200);
    assert.deepEqual(body.setup, await viaHttp('/setup'));
    // The session's expiry slides with every check: the user is what must be the same.
    assert.deepEqual(body.session.data.user, ((await viaHttp('/auth/session')) as { data: { user: unknown } }).data.user);
    assert.equal(body.session.data.user.username, 'admin');
    assert.deepEqual(body.ponds, await viaHttp('/ponds'));
    assert.deepEqual(body.pond, await viaHttp(`/ponds/${pond.id}`));
    assert.deepEqual(body.pages, await viaHttp(`/ponds/${pond.id}/pages?limit=1000`));
    assert.deepEqual(body.labels, await viaHttp(`/ponds/${pond.id}/labels`));
    assert.deepEqual(body.favorites, await viaHttp(`/ponds/${pond.id}/favorites?limit=500`));
    assert.deepEqual(body.page, await viaHttp(`/pages/${page.id}`));
    assert.equal(body.page.data.id, page.id);
  });

  test('a pond slug the caller has no pond of, or a page slug with no readable page, gives null parts', async () => {
    const noPond = await screen(`pond=nowhere&page=${page.slug}`);
    assert.equal(noPond.status, 200);
    assert.equal(noPond.body.ponds.ok, true);
    for (const part of ['pond', 'pages', 'labels', 'favorites', 'page']) assert.equal(noPond.body[part], null, part);
    const noPage = await screen(`pond=${pond.slug}&page=missing-page`);
    assert.equal(noPage.body.pond.ok, true);
    assert.equal(noPage.body.page, null);
  });

  test('a visitor gets the refusals the routes give a visitor', async () => {
    const { status, body } = await screen(`pond=${pond.slug}&page=${page.slug}`, {});
    assert.equal(status, 200);
    assert.equal(body.session.data.user, null);
    assert.deepEqual([body.ponds.ok, body.ponds.status, body.ponds.error.code], [false, 401, 'unauthenticated']);
    assert.equal(body.pond, null);
  });

  test('a render that leaves out a slug is refused as a bad request', async () => {
    for (const query of [`pond=${pond.slug}`, `page=${page.slug}`, `pond=${'x'.repeat(201)}&page=${page.slug}`]) {
      const { status, body } = await screen(query);
      assert.equal(status, 400, query);
      assert.equal(body.error.code, 'invalid_request');
    }
  });

  test("from outside it is the API's 404, whatever the query", async () => {
    for (const query of [`pond=${pond.slug}&page=${page.slug}`, '', 'pond=', `pond=${'x'.repeat(300)}`]) {
      const answer = await admin.get(`/-/page-screen?${query}`);
      assert.equal(answer.status, 404, query);
      assert.equal(answer.body.error.code, 'not_found');
    }
  });
});
