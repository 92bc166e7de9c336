/**
 * Feed tokens through HTTP: status, create, rotate, revoke (session routes with the CSRF
 * check), the secret's form and storage, the audit trail, and what a token opens: its own
 * owner's feeds, while it lives and while the account does, and nothing but feeds.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { LAST_USED_THROTTLE_MS } from '../feeds/feedTokens.ts';
import { AuditEntry, User } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const TOKEN_FORM = /^dt_feed_[A-Za-z0-9_-]{43}$/;

describe('feed token routes', () => {
  let instance: TestInstance;
  let admin: TestClient;
  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  const stored = async (userId: string) =>
    instance.services.sequelize.query<{ token_hash: Buffer; created_at: Date; last_used_at: Date | null }>(`SELECT token_hash, created_at, last_used_at FROM feed_tokens WHERE user_id = $1`, {
      bind: [userId],
      type: QueryTypes.SELECT,
    });
  const feedOf = (slug: string, token?: string) => new TestClient(instance.baseUrl).get(`/public/${slug}/feed.xml${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`);
  const auditActions = async (userId: string) => (await AuditEntry.findAll({ where: { actorId: userId }, order: [['id', 'ASC']] })).map((entry) => entry.action).filter((action) => action.startsWith('auth.feed_token'));

  /** A private pond of `userId` with one page, readable with a token only. */
  async function privatePond(userId: string) {
    const pond = await seedSharedPond(userId);
    await seedPage(pond.id, 'Private page', { createdBy: userId });
    return pond;
  }

  test('without a session every route answers 401', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await anonymous.request(method, '/users/me/feed-token');
      assert.equal(response.status, 401, `${method}: ${response.text}`);
      assert.equal(response.body.error.code, 'unauthenticated');
    }
  });

  test('create: 201 with the secret once, its SHA-256 stored, the feed URLs of the own ponds; the status never shows the secret', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await seedSharedPond(user.id, 'Team notes');
    const before = await client.get('/users/me/feed-token');
    assert.deepEqual(before.body, { exists: false, createdAt: null, lastUsedAt: null });

    const created = await client.post('/users/me/feed-token');
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.token, TOKEN_FORM);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    const [row] = await stored(user.id);
    assert.deepEqual(row!.token_hash, createHash('sha256').update(created.body.token).digest(), 'only the hash is kept');
    assert.equal(new Date(created.body.createdAt).getTime(), row!.created_at.getTime());
    const feeds = created.body.feeds as { pondSlug: string; pondName: string; url: string }[];
    const team = feeds.find((feed) => feed.pondSlug === pond.slug);
    assert.equal(team?.pondName, 'Team notes');
    assert.equal(team?.url, `${instance.baseUrl}/api/v1/public/${pond.slug}/feed.xml?token=${created.body.token}`);
    assert.ok(feeds.length >= 2, 'the personal pond is listed too');

    const status = await client.get('/users/me/feed-token');
    assert.equal(status.status, 200);
    assert.deepEqual(Object.keys(status.body).sort(), ['createdAt', 'exists', 'lastUsedAt']);
    assert.equal(status.body.exists, true);
    assert.equal(status.body.createdAt, created.body.createdAt);
    assert.equal(status.body.lastUsedAt, null);
    assert.ok(!status.text.includes(created.body.token.slice(8)), 'the status never carries the secret');
    assert.deepEqual(await auditActions(user.id), ['auth.feed_token_created']);
    const entry = await AuditEntry.findOne({ where: { actorId: user.id, action: 'auth.feed_token_created' } });
    assert.ok(!JSON.stringify(entry).includes(created.body.token.slice(8)), 'the audit entry never carries the secret');
  });

  test('writes need our own origin (CSRF): a foreign or missing Origin is refused and nothing changes', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const foreign = await client.post('/users/me/feed-token', undefined, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.body.error.code, 'csrf_failed');
    const missing = await client.post('/users/me/feed-token', undefined, { origin: null });
    assert.equal(missing.status, 403, missing.text);
    assert.equal((await stored(user.id)).length, 0);
    assert.equal((await client.post('/users/me/feed-token')).status, 201);
    const revoke = await client.request('DELETE', '/users/me/feed-token', { origin: 'https://evil.example' });
    assert.equal(revoke.status, 403, revoke.text);
    assert.equal((await stored(user.id)).length, 1, 'the token survives a forged revoke');
  });

  test('rotate: a new secret, the old one stops working at once, and the rotation is audited', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await privatePond(user.id);
    const first = (await client.post('/users/me/feed-token')).body.token as string;
    assert.equal((await feedOf(pond.slug, first)).status, 200);
    const second = await client.post('/users/me/feed-token');
    assert.equal(second.status, 201);
    assert.notEqual(second.body.token, first);
    assert.equal((await feedOf(pond.slug, first)).status, 404, 'the old token opens nothing');
    assert.equal((await feedOf(pond.slug, second.body.token)).status, 200);
    assert.equal((await stored(user.id)).length, 1, 'one token per user');
    assert.deepEqual(await auditActions(user.id), ['auth.feed_token_created', 'auth.feed_token_rotated']);
  });

  test('revoke: 204, idempotent, the token 404s afterwards, one audit entry', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await privatePond(user.id);
    const token = (await client.post('/users/me/feed-token')).body.token as string;
    assert.equal((await client.request('DELETE', '/users/me/feed-token')).status, 204);
    assert.equal((await client.request('DELETE', '/users/me/feed-token')).status, 204, 'again: still 204');
    assert.equal((await stored(user.id)).length, 0);
    const feed = await feedOf(pond.slug, token);
    assert.equal(feed.status, 404);
    assert.equal(feed.body.error.code, 'not_found');
    assert.deepEqual((await client.get('/users/me/feed-token')).body, { exists: false, createdAt: null, lastUsedAt: null });
    assert.deepEqual(await auditActions(user.id), ['auth.feed_token_created', 'auth.feed_token_revoked']);
  });

  test('a disabled or deleted account\'s token opens nothing; enabled again, it works again', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await privatePond(user.id);
    const token = (await client.post('/users/me/feed-token')).body.token as string;
    assert.equal((await admin.post(`/admin/users/${user.id}/disable`)).status, 200);
    assert.equal((await feedOf(pond.slug, token)).status, 404);
    assert.equal((await admin.post(`/admin/users/${user.id}/enable`)).status, 200);
    assert.equal((await feedOf(pond.slug, token)).status, 200);
    await User.update({ status: 'deleted' }, { where: { id: user.id } });
    assert.equal((await feedOf(pond.slug, token)).status, 404);
  });

  test('an invalid token answers exactly as a pond that does not exist', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await privatePond(user.id);
    const token = (await client.post('/users/me/feed-token')).body.token as string;
    const missingPond = await feedOf('no-such-pond', token);
    for (const wrong of [`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'dt_feed_', '', 'x'.repeat(5000)]) {
      const response = await feedOf(pond.slug, wrong);
      assert.equal(response.status, 404, wrong.slice(0, 20));
      assert.equal(response.text, missingPond.text);
    }
    const twice = await new TestClient(instance.baseUrl).get(`/public/${pond.slug}/feed.xml?token=${token}&token=${token}`);
    assert.equal(twice.status, 404, 'a repeated parameter is no token');
  });

  test('a feed token authenticates nothing but feeds, as ?token= or as a Bearer header', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await privatePond(user.id);
    const page = await seedPage(pond.id, 'Another private page', { createdBy: user.id });
    const token = (await client.post('/users/me/feed-token')).body.token as string;
    const bare = new TestClient(instance.baseUrl);
    const query = `?token=${encodeURIComponent(token)}`;
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    for (const [path, status] of [['/users/me', 401], ['/users/me/feed-token', 401], ['/ponds', 401], [`/ponds/${pond.id}`, 404], [`/pages/${page.id}`, 404]] as const) {
      assert.equal((await bare.get(`${path}${query}`)).status, status, `${path}?token=`);
      assert.equal((await bare.get(path, bearer)).status, status, `${path} with Bearer`);
    }
    const post = await bare.post(`/users/me/feed-token${query}`, undefined, bearer);
    assert.equal(post.status, 401, 'no rotation with the token itself');
    // Nor does a Bearer header open a feed: the token counts as ?token= only.
    assert.equal((await bare.get(`/public/${pond.slug}/feed.xml`, bearer)).status, 404);
  });

  test('last use is recorded, at most once a minute', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await privatePond(user.id);
    const token = (await client.post('/users/me/feed-token')).body.token as string;
    assert.equal((await feedOf(pond.slug, token)).status, 200);
    const first = (await stored(user.id))[0]!.last_used_at;
    assert.ok(first, 'recorded on first use');
    assert.equal((await client.get('/users/me/feed-token')).body.lastUsedAt, first.toISOString());
    assert.equal((await feedOf(pond.slug, token)).status, 200);
    assert.equal((await stored(user.id))[0]!.last_used_at?.getTime(), first.getTime(), 'not rewritten within the minute');
    await instance.services.sequelize.query(`UPDATE feed_tokens SET last_used_at = last_used_at - make_interval(secs => $2) WHERE user_id = $1`, {
      bind: [user.id, LAST_USED_THROTTLE_MS / 1000 + 1],
    });
    assert.equal((await feedOf(pond.slug, token)).status, 200);
    assert.ok((await stored(user.id))[0]!.last_used_at!.getTime() >= first.getTime(), 'rewritten once the minute is over');
  });

  test('a token reads what its owner may read, and a public pond needs none', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const { user: other } = await createVerifiedUser(instance);
    const othersPond = await privatePond(other.id);
    const publicPond = await privatePond(other.id);
    await seedGrant(publicPond.id, { subject: { type: 'public' }, role: 'reader' });
    const token = (await client.post('/users/me/feed-token')).body.token as string;
    assert.equal((await feedOf(othersPond.slug, token)).status, 404, 'another user\'s private pond stays closed');
    assert.equal((await feedOf(othersPond.slug)).status, 404);
    assert.equal((await feedOf(publicPond.slug)).status, 200);
    assert.equal((await feedOf(publicPond.slug, token)).status, 200);
    assert.ok(user.id);
  });
});
