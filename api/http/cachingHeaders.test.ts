/**
 * Caching headers over real HTTP (issue 34, finding 10): per-user JSON under /api/v1 is never
 * kept by a cache, routes with a policy of their own keep it, and the URLs that answer a
 * visitor the public document and a member the app vary by cookie, whichever answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { completeSetup } from '../testing/fixtures.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { PUBLIC_FEED_CACHE_CONTROL } from '../feeds/feedResponse.ts';
import { publicFixture, type PublicFixture } from '../publicPages/publicTestFixture.ts';

let instance: TestInstance;
let admin: TestClient;
let fixture: PublicFixture;

before(async () => {
  instance = await startTestInstance({ site: true });
  admin = await completeSetup(instance);
  fixture = await publicFixture(instance, admin);
});

after(async () => {
  await instance.close();
});

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL(path, instance.baseUrl), { headers, redirect: 'manual' });
}

function memberCookie(): Record<string, string> {
  return { cookie: `dt_session=${admin.sessionCookie}` };
}

function varyList(response: Response): string[] {
  return (response.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());
}

describe('Cache-Control under /api/v1', () => {
  test('per-user JSON says private, no-store', async () => {
    const ponds = await get('/api/v1/ponds', memberCookie());
    assert.equal(ponds.status, 200);
    assert.equal(ponds.headers.get('cache-control'), 'private, no-store');
    const me = await get('/api/v1/auth/me', memberCookie());
    assert.equal(me.headers.get('cache-control'), 'private, no-store', `status ${me.status}`);
  });

  test('an error answer and an unknown route say private, no-store too', async () => {
    assert.equal((await get('/api/v1/ponds/00000000-0000-4000-8000-000000000000', memberCookie())).headers.get('cache-control'), 'private, no-store');
    assert.equal((await get('/api/v1/no-such-route')).headers.get('cache-control'), 'private, no-store');
  });

  test('a route with its own policy keeps it', async () => {
    const feed = await get(`/api/v1/public/${fixture.pond.slug}/feed.xml`);
    assert.equal(feed.status, 200);
    assert.equal(feed.headers.get('cache-control'), PUBLIC_FEED_CACHE_CONTROL);
    const health = await get('/api/v1/readyz');
    assert.equal(health.headers.get('cache-control'), 'no-store');
    const legal = await get('/api/v1/legal/imprint');
    assert.equal(legal.headers.get('cache-control'), 'public, no-cache');
  });
});

describe('Vary: Cookie where a session gets the app', () => {
  const paths = () => ['/', `/${fixture.pond.slug}`, `/${fixture.pond.slug}/guide`];

  test('the public document varies by cookie (200 and 304)', async () => {
    for (const path of paths()) {
      const document = await get(path);
      assert.equal(document.status, 200, path);
      assert.ok(varyList(document).includes('cookie'), `${path}: ${document.headers.get('vary')}`);
      const revalidated = await get(path, { 'if-none-match': document.headers.get('etag')! });
      assert.equal(revalidated.status, 304, path);
      assert.ok(varyList(revalidated).includes('cookie'), `${path} 304: ${revalidated.headers.get('vary')}`);
    }
  });

  test("the member's app at the same URLs varies by cookie", async () => {
    for (const path of paths()) {
      const app = await get(path, memberCookie());
      assert.ok(varyList(app).includes('cookie'), `${path} (${app.status}): ${app.headers.get('vary')}`);
    }
  });

  test("a visitor's 404 at a private page varies by cookie", async () => {
    const hidden = await get(`/${fixture.pond.slug}/secret`);
    assert.equal(hidden.status, 404);
    assert.ok(varyList(hidden).includes('cookie'), hidden.headers.get('vary') ?? '');
  });

  test('URLs that answer everyone alike do not vary by cookie', async () => {
    for (const path of [`/${fixture.pond.slug}/guide.md`, `/api/v1/public/${fixture.pond.slug}/guide`, '/legal/imprint']) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      assert.ok(!varyList(response).includes('cookie'), `${path}: ${response.headers.get('vary')}`);
    }
  });
});
