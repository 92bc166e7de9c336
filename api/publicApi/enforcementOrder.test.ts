/**
 * The spec's enforcement order of the public REST API, one step at a time: instance switch
 * `api.enabled` → bearer token → per-token rate limit → scope → pond opt-in and the token's
 * pond restriction → the normal permission model (404 for what cannot be read, 403 for a write
 * on something readable). Each test makes exactly one step fail and shows that the steps after
 * it are never reached (a later refusal would have answered otherwise).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Page, Pond } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import { PublicApiClient } from '../testing/publicApiClient.ts';
import { issueToken, setInstanceSwitches, setPondSwitches, type IssuedToken } from '../testing/publicApiFixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let owner: SignedIn;
let outsider: SignedIn;
let reader: SignedIn;
let pond: Pond;
let otherPond: Pond;
let page: Page;
let ownerWrite: IssuedToken;
let ownerRead: IssuedToken;

const api = (token?: string) => new PublicApiClient(instance.baseUrl, token);

before(async () => {
  instance = await startTestInstance();
  await completeSetup(instance);
  [owner, outsider, reader] = (await signInUsers(instance, 3)) as [SignedIn, SignedIn, SignedIn];
  pond = await seedSharedPond(owner.user.id, 'Handbook');
  otherPond = await seedSharedPond(owner.user.id, 'Other');
  await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader' });
  page = await seedPage(pond.id, 'Welcome', { createdBy: owner.user.id });
  await setPondSwitches(pond.id, { api: true });
  await setPondSwitches(otherPond.id, { api: true });
  ownerWrite = await issueToken(instance, owner.user.id, { scope: 'write' });
  ownerRead = await issueToken(instance, owner.user.id, { scope: 'read' });
});

after(() => instance.close());

beforeEach(async () => {
  await setInstanceSwitches(instance, { api: true });
  await instance.services.sequelize.query(`DELETE FROM rate_limit_counters WHERE key LIKE 'pat:%'`);
});

function assertRefused(response: { status: number; body: any }, status: number, code: string): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.equal(response.body?.error?.code, code);
}

describe('1. the instance switch', () => {
  test('api.enabled off answers 404 api_disabled before looking at any token', async () => {
    await setInstanceSwitches(instance, { api: false });
    assertRefused(await api(ownerWrite.secret).get(`/ponds/${pond.slug}/pages/${page.slug}`), 404, 'api_disabled');
    assertRefused(await api().get('/me'), 404, 'api_disabled');
    assertRefused(await api('garbage').post(`/ponds/${pond.slug}/pages`, { title: 'x' }), 404, 'api_disabled');
  });

  test('switched on, the same token reads', async () => {
    const response = await api(ownerWrite.secret).get(`/ponds/${pond.slug}/pages/${page.slug}`);
    assert.equal(response.status, 200);
    assert.equal(response.body.slug, page.slug);
  });
});

describe('2. the bearer token', () => {
  test('no token: 401 with a Bearer challenge; a session cookie does not stand in for it', async () => {
    const response = await api().get('/me');
    assertRefused(response, 401, 'unauthenticated');
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer /);
    const withCookie = await api().get('/me', { headers: { cookie: `dt_session=${owner.client.sessionCookie}` } });
    assertRefused(withCookie, 401, 'unauthenticated');
  });

  test('a garbage, an expired and a revoked token each get their own 401', async () => {
    assertRefused(await api('dt_pat_not-a-real-token').get('/me'), 401, 'access_token_invalid');
    assertRefused(await api('something else entirely').get('/me'), 401, 'access_token_invalid');
    const expired = await issueToken(instance, owner.user.id, { expiresAt: new Date(Date.now() + 60_000) });
    assert.equal((await api(expired.secret).get('/me')).status, 200);
    await instance.services.sequelize.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = :id`, { replacements: { id: expired.id } });
    assertRefused(await api(expired.secret).get('/me'), 401, 'access_token_expired');
    const revoked = await issueToken(instance, owner.user.id);
    assert.equal((await api(revoked.secret).get('/me')).status, 200);
    const revoke = await owner.client.request('DELETE', `/users/me/api-tokens/${revoked.id}`);
    assert.equal(revoke.status, 204);
    assertRefused(await api(revoked.secret).get('/me'), 401, 'access_token_revoked');
  });

  test('a token never mints tokens: the token routes are session-only', async () => {
    const response = await fetch(`${instance.baseUrl}/api/v1/users/me/api-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerWrite.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'minted', scope: 'write' }),
    });
    assert.equal(response.status, 401);
  });

  test('token writes need no Origin: no cookie rides along, so no CSRF check applies', async () => {
    const response = await api(ownerWrite.secret).post(`/ponds/${pond.slug}/pages`, { title: 'Without origin' });
    assert.equal(response.status, 201);
  });
});

describe('3. the per-token rate limit', () => {
  test('over the limit: 429 with Retry-After, before the scope is looked at', async () => {
    const limit = instance.services.config.apiRateLimit.limit;
    await instance.services.sequelize.query(`INSERT INTO rate_limit_counters (key, window_started_at, hits) VALUES (:key, now(), :hits)`, {
      replacements: { key: `pat:${ownerRead.id}`, hits: limit },
    });
    const write = await api(ownerRead.secret).post(`/ponds/${pond.slug}/pages`, { title: 'Refused' });
    assertRefused(write, 429, 'rate_limited');
    assert.ok(Number(write.headers.get('retry-after')) >= 1);
    // The budget is the token's: another token of the same owner still works.
    assert.equal((await api(ownerWrite.secret).get('/me')).status, 200);
  });
});

describe('4. the scope', () => {
  test('a read token writing gets 403 scope_required, even where the pond step would refuse', async () => {
    assertRefused(await api(ownerRead.secret).post(`/ponds/${pond.slug}/pages`, { title: 'No' }), 403, 'scope_required');
    assertRefused(await api(ownerRead.secret).patch(`/ponds/${pond.slug}/pages/${page.slug}`, { title: 'No' }), 403, 'scope_required');
    assertRefused(await api(ownerRead.secret).delete(`/ponds/${pond.slug}/pages/${page.slug}`), 403, 'scope_required');
    await setPondSwitches(otherPond.id, { api: false });
    try {
      assertRefused(await api(ownerRead.secret).post(`/ponds/${otherPond.slug}/pages`, { title: 'No' }), 403, 'scope_required');
    } finally {
      await setPondSwitches(otherPond.id, { api: true });
    }
    assert.equal((await api(ownerRead.secret).get(`/ponds/${pond.slug}/pages/${page.slug}`)).status, 200);
  });
});

describe('5. the pond opt-in and the token pond restriction', () => {
  test('a pond that has not opted in: 404 not_found, to those who can read it as to others', async () => {
    await setPondSwitches(otherPond.id, { api: false });
    try {
      assertRefused(await api(ownerWrite.secret).get(`/ponds/${otherPond.slug}/pages`), 404, 'not_found');
      const outsiderToken = await issueToken(instance, outsider.user.id);
      assertRefused(await api(outsiderToken.secret).get(`/ponds/${otherPond.slug}/pages`), 404, 'not_found');
      const listed = await api(ownerWrite.secret).get('/ponds');
      assert.ok(!listed.body.items.some((item: { slug: string }) => item.slug === otherPond.slug), 'a pond without the opt-in is not listed');
    } finally {
      await setPondSwitches(otherPond.id, { api: true });
    }
  });

  test('a token restricted to one pond reaches only that pond', async () => {
    const restricted = await issueToken(instance, owner.user.id, { pondId: pond.id });
    assert.equal((await api(restricted.secret).get(`/ponds/${pond.slug}/pages`)).status, 200);
    const refused = await api(restricted.secret).get(`/ponds/${otherPond.slug}/pages`);
    assertRefused(refused, 404, 'not_found');
    const listed = await api(restricted.secret).get('/ponds');
    assert.deepEqual(
      listed.body.items.map((item: { slug: string }) => item.slug),
      [pond.slug],
    );
  });
});

describe('6. the permission model, unchanged', () => {
  test('a pond the owner of the token cannot see: 404, as for one that does not exist', async () => {
    const outsiderToken = await issueToken(instance, outsider.user.id);
    assertRefused(await api(outsiderToken.secret).get(`/ponds/${pond.slug}/pages/${page.slug}`), 404, 'not_found');
    assertRefused(await api(outsiderToken.secret).get(`/ponds/no-such-pond/pages`), 404, 'not_found');
  });

  test('a reader with a write token: 403 on a readable page, 404 on a hidden one', async () => {
    const readerToken = await issueToken(instance, reader.user.id);
    assert.equal((await api(readerToken.secret).get(`/ponds/${pond.slug}/pages/${page.slug}`)).status, 200);
    assertRefused(await api(readerToken.secret).patch(`/ponds/${pond.slug}/pages/${page.slug}`, { title: 'Mine now' }), 403, 'forbidden');
    const hidden = await seedPage(pond.id, 'Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader', effect: 'deny', scope: { type: 'page', id: hidden.id } });
    assertRefused(await api(readerToken.secret).patch(`/ponds/${pond.slug}/pages/${hidden.slug}`, { title: 'x' }), 404, 'not_found');
  });
});

describe('audit', () => {
  test('every token write is audited as api.write with the token named; reads are not', async () => {
    const before = await auditCount();
    await api(ownerWrite.secret).get('/me');
    assert.equal(await auditCount(), before);
    const created = await api(ownerWrite.secret).post(`/ponds/${pond.slug}/pages`, { title: 'Audited' });
    assert.equal(created.status, 201);
    const [entry] = await instance.services.sequelize.query<{ actor_id: string; details: Record<string, unknown> }>(
      `SELECT actor_id, details FROM audit_entries WHERE action = 'api.write' ORDER BY id DESC LIMIT 1`,
      { type: 'SELECT' as never },
    );
    assert.equal(entry?.actor_id, owner.user.id);
    assert.equal(entry?.details.tokenId, ownerWrite.id);
    assert.equal(entry?.details.method, 'POST');
    assert.equal(entry?.details.route, '/ponds/:pondSlug/pages');
    assert.equal(entry?.details.status, 201);
  });
});

async function auditCount(): Promise<number> {
  const [row] = await instance.services.sequelize.query<{ count: string }>(`SELECT count(*) AS count FROM audit_entries WHERE action = 'api.write'`, { type: 'SELECT' as never });
  return Number(row?.count);
}

