/**
 * The reads a page render sends into its own process (inProcessFetch.ts): they get what the
 * same request over HTTP gets — status, body, error code, cookies — and a render checks the
 * session cookie once for all its reads, while requests from outside and other renders each
 * check their own. The same goes for the row of the pond its reads are about.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { createApp } from '../app.ts';
import { checkSessionAhead } from '../auth/authenticateRequest.ts';
import { Page, Pond, Session } from '../models/index.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { waitFor } from '../testing/polling.ts';
import { createInProcessFetch } from './inProcessFetch.ts';

let instance: TestInstance;
let reads: ReturnType<typeof createInProcessFetch>;
let cookie: string;

before(async () => {
  instance = await startTestInstance();
  const admin = await completeSetup(instance);
  cookie = `dt_session=${admin.sessionCookie}`;
  reads = createInProcessFetch(await createApp(instance.services, { site: false }));
});
after(async () => instance?.close());

/** How many times sessions are looked up while `run` runs (a hook on the real model, removed afterwards). */
async function countSessionLookups(run: () => Promise<unknown>): Promise<number> {
  let lookups = 0;
  Session.addHook('afterFind', 'countLookups', () => void (lookups += 1));
  try {
    await run();
  } finally {
    Session.removeHook('afterFind', 'countLookups');
  }
  return lookups;
}

describe('reads of a page render, in process', () => {
  test('answer as the same request over HTTP does: body, status, error code, content type', async () => {
    const fetchApi = reads.forRender();
    for (const path of ['/api/v1/auth/session', '/api/v1/ponds', '/api/v1/setup']) {
      const inside = await fetchApi(path, { headers: { cookie, accept: 'application/json' } });
      const outside = await fetch(`${instance.baseUrl}${path}`, { headers: { cookie, accept: 'application/json' } });
      assert.equal(inside.status, outside.status, path);
      assert.equal(inside.headers.get('content-type'), outside.headers.get('content-type'), path);
      assert.deepEqual(await inside.json(), await outside.json(), path);
    }
    const session = (await (await fetchApi('/api/v1/auth/session', { headers: { cookie } })).json()) as { user: { username: string } | null };
    assert.equal(session.user?.username, 'admin');
    const missing = await fetchApi('/api/v1/ponds/00000000-0000-4000-8000-000000000000', { headers: { cookie } });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'not_found');
    const anonymous = await reads.forRender()('/api/v1/ponds', { headers: { accept: 'application/json' } });
    assert.equal(anonymous.status, 401);
    // The page request's id goes with its reads (their log lines name it).
    const named = await reads.forRender('page-request-1234')('/api/v1/setup', { headers: {} });
    assert.equal(named.headers.get('x-request-id'), 'page-request-1234');
  });

  test('a render checks the session once for all its reads; each other render and each request from outside checks its own', async () => {
    const fetchApi = reads.forRender();
    const paths = ['/api/v1/auth/session', '/api/v1/ponds', '/api/v1/auth/session', '/api/v1/ponds'];
    const oneRender = await countSessionLookups(async () => {
      const answers = await Promise.all(paths.map((path) => fetchApi(path, { headers: { cookie } })));
      assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200]);
      // And later reads of the same render too.
      assert.equal((await fetchApi('/api/v1/ponds', { headers: { cookie } })).status, 200);
    });
    assert.equal(oneRender, 1);
    const twoRenders = await countSessionLookups(async () => {
      await reads.forRender()('/api/v1/ponds', { headers: { cookie } });
      await reads.forRender()('/api/v1/ponds', { headers: { cookie } });
    });
    assert.equal(twoRenders, 2);
    const outside = await countSessionLookups(() => Promise.all(paths.map((path) => fetch(`${instance.baseUrl}${path}`, { headers: { cookie } }))));
    assert.equal(outside, paths.length);
  });

  test('a render reads the row of the pond its reads name once; another render reads its own', async () => {
    const created = await fetch(`${instance.baseUrl}/api/v1/ponds`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: instance.baseUrl },
      body: JSON.stringify({ name: 'Shared row' }),
    });
    assert.equal(created.status, 201);
    const pondId = ((await created.json()) as { id: string }).id;
    let lookups = 0;
    Pond.addHook('afterFind', 'countPondLookups', () => void (lookups += 1));
    try {
      const fetchApi = reads.forRender();
      const paths = [`/api/v1/ponds/${pondId}`, `/api/v1/ponds/${pondId}/labels`, `/api/v1/ponds/${pondId}/pages`, `/api/v1/ponds/${pondId}/favorites`];
      const answers = await Promise.all(paths.map((path) => fetchApi(path, { headers: { cookie } })));
      assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200]);
      assert.equal(((await answers[0]!.json()) as { name: string }).name, 'Shared row');
      assert.equal(lookups, 1, 'one lookup for the four reads of one render');
      assert.equal((await reads.forRender()(`/api/v1/ponds/${pondId}`, { headers: { cookie } })).status, 200);
      assert.equal(lookups, 2, 'another render looks the pond up again');
    } finally {
      Pond.removeHook('afterFind', 'countPondLookups');
    }
  });

  test('a render that listed its ponds reads none of them again; the body and the page detail share the page row', async () => {
    const created = await fetch(`${instance.baseUrl}/api/v1/ponds`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: instance.baseUrl },
      body: JSON.stringify({ name: 'Listed row' }),
    });
    const pond = (await created.json()) as { id: string; slug: string };
    const pageCreated = await fetch(`${instance.baseUrl}/api/v1/ponds/${pond.id}/pages`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: instance.baseUrl },
      body: JSON.stringify({ title: 'Shared page', parentId: null, markdown: 'Read **once**.' }),
    });
    assert.equal(pageCreated.status, 201);
    const page = (await pageCreated.json()) as { id: string; slug: string };
    const counted = { ponds: 0, pages: 0 };
    Pond.addHook('afterFind', 'countListedPonds', () => void (counted.ponds += 1));
    Page.addHook('afterFind', 'countPageRows', () => void (counted.pages += 1));
    try {
      const fetchApi = reads.forRender();
      assert.equal((await fetchApi('/api/v1/ponds', { headers: { cookie } })).status, 200);
      assert.equal(counted.ponds, 1, 'the list reads the rows');
      const detail = await fetchApi(`/api/v1/ponds/${pond.id}`, { headers: { cookie } });
      assert.equal(((await detail.json()) as { name: string }).name, 'Listed row');
      assert.equal(counted.ponds, 1, 'the pond itself comes from the list');
      const [body, pageDetail] = await Promise.all([fetchApi(`/api/v1/read/${pond.slug}/${page.slug}`, { headers: { cookie } }), fetchApi(`/api/v1/pages/${page.id}`, { headers: { cookie } })]);
      assert.match(await body.text(), /<strong>once<\/strong>/);
      assert.equal(((await pageDetail.json()) as { title: string }).title, 'Shared page');
      assert.equal(counted.pages, 1, 'one page row for both reads');
      assert.equal((await reads.forRender()(`/api/v1/pages/${page.id}`, { headers: { cookie } })).status, 200);
      assert.equal(counted.pages, 2, 'another render reads its own');
    } finally {
      Pond.removeHook('afterFind', 'countListedPonds');
      Page.removeHook('afterFind', 'countPageRows');
    }
  });

  test('a read that does not answer in time fails instead of holding the page', async () => {
    const hanging = createInProcessFetch(() => undefined, { timeoutMs: 100 }).forRender();
    const started = Date.now();
    await assert.rejects(hanging('/api/v1/setup'), /took over 100 ms/);
    assert.ok(Date.now() - started < 5_000);
  });

  test('a render whose session check starts as the page request arrives: one lookup before any read, the refresh told to its first read only', async () => {
    const app = await createApp(instance.services, { site: false });
    const ahead = createInProcessFetch(app, { beforeRender: (render, cookieHeader) => checkSessionAhead(render, cookieHeader, instance.services) });
    const [id] = cookie.slice('dt_session='.length).split('.');
    await Session.update({ expiresAt: new Date(Date.now() + 86_400_000) }, { where: { id } });
    const lookups = await countSessionLookups(async () => {
      const fetchApi = ahead.forRender(undefined, `theme=dark; ${cookie}`);
      // Started before the page asks for anything.
      const expiry = async () => ((await instance.services.sequelize.query<{ expires_at: Date }>('SELECT expires_at FROM sessions WHERE id = :id', { replacements: { id }, type: QueryTypes.SELECT }))[0]!.expires_at.getTime());
      await waitFor(async () => (await expiry()) > Date.now() + 2 * 86_400_000, 5_000, 'the session renewed by the check ahead');
      const answers = await Promise.all(['/api/v1/ponds', '/api/v1/auth/session', '/api/v1/ponds'].map((path) => fetchApi(path, { headers: { cookie } })));
      assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200]);
      const renewed = answers.flatMap((answer) => answer.headers.getSetCookie()).filter((header) => header.startsWith('dt_session='));
      assert.equal(renewed.length, 1, 'one Set-Cookie renews the session');
      assert.equal(((await answers[1]!.json()) as { user: { username: string } }).user.username, 'admin');
    });
    assert.equal(lookups, 1, 'the check ahead is the only lookup');
    const withoutCookie = await countSessionLookups(async () => {
      const answer = await ahead.forRender(undefined, 'theme=dark')('/api/v1/auth/session');
      assert.equal(((await answer.json()) as { user: unknown }).user, null);
    });
    assert.equal(withoutCookie, 0, 'no cookie, no check');
  });

  test('a session refreshed during a render is renewed by its first read only; an ended one is refused by the next render', async () => {
    const [id] = cookie.slice('dt_session='.length).split('.');
    // Less than half its lifetime left: the next check renews it.
    await Session.update({ expiresAt: new Date(Date.now() + 86_400_000) }, { where: { id } });
    const fetchApi = reads.forRender();
    const answers = await Promise.all(['/api/v1/ponds', '/api/v1/auth/session', '/api/v1/ponds'].map((path) => fetchApi(path, { headers: { cookie } })));
    const renewed = answers.flatMap((answer) => answer.headers.getSetCookie()).filter((header) => header.startsWith('dt_session='));
    assert.equal(renewed.length, 1, 'one Set-Cookie renews the session');
    assert.ok((await Session.findByPk(id))!.expiresAt.getTime() > Date.now() + 2 * 86_400_000);

    await Session.destroy({ where: { id } });
    const afterEnd = await reads.forRender()('/api/v1/auth/session', { headers: { cookie } });
    assert.equal(((await afterEnd.json()) as { user: unknown }).user, null);
    assert.match(afterEnd.headers.getSetCookie().join('\n'), /dt_session=;/, 'the ended session’s cookie is cleared');
  });
});
