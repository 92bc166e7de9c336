/**
 * Personal access tokens through HTTP (`/users/me/api-tokens`): session routes with the CSRF
 * check, the secret once at creation and never again (list, audit, logs), validation (name,
 * scope, expiry in the future, a pond restriction the user can see), another user's token
 * looking missing, revoked tokens leaving the list, expired ones shown as such, and the audit
 * trail of creation and revocation.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { checkPresentedAccessToken, MAX_LIVE_API_TOKENS } from '../auth/accessTokens.ts';
import { AuditEntry } from '../models/index.ts';
import { invalidateAllPondAccess } from '../policies/pondAccessCache.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { capturingLogger } from '../testing/mailRelay.ts';
import { assertError, assertFieldError, MISSING_UUID } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const SECRET_FORM = /^dt_pat_[A-Za-z0-9_-]{43}$/;
const VIEW_KEYS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'pond', 'scope', 'status'];
const PATH = '/users/me/api-tokens';

describe('personal access token routes', () => {
  let instance: TestInstance;
  const log = capturingLogger('api');
  before(async () => {
    instance = await startTestInstance({ logger: log.logger });
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  const stored = (userId: string) =>
    instance.services.sequelize.query<{ id: string; token_hash: Buffer; revoked_at: Date | null }>(`SELECT id, token_hash, revoked_at FROM api_tokens WHERE user_id = $1 ORDER BY created_at`, {
      bind: [userId],
      type: QueryTypes.SELECT,
    });
  const audited = async (userId: string) =>
    (await AuditEntry.findAll({ where: { actorId: userId }, order: [['id', 'ASC']] })).filter((entry) => entry.action.startsWith('api.token_'));
  const create = (client: TestClient, body: Record<string, unknown> = {}) => client.post(PATH, { name: 'CLI', scope: 'read', ...body });
  const revoke = (client: TestClient, id: string, origin?: string) => client.request('DELETE', `${PATH}/${encodeURIComponent(id)}`, origin === undefined ? {} : { origin });

  test('without a session every route answers 401', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    for (const [method, path] of [['GET', PATH], ['POST', PATH], ['DELETE', `${PATH}/${MISSING_UUID}`]] as const) {
      const response = await anonymous.request(method, path, method === 'POST' ? { body: { name: 'x', scope: 'read' } } : {});
      assertError(response, 401, 'unauthenticated');
    }
  });

  test('a token can never mint, list or revoke tokens: a Bearer header opens none of these routes', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const { token, secret } = (await create(client, { scope: 'write' })).body;
    const bearer = new TestClient(instance.baseUrl);
    const headers = { authorization: `Bearer ${secret}` };
    assertError(await bearer.get(PATH, { headers }), 401, 'unauthenticated');
    assertError(await bearer.post(PATH, { name: 'Minted', scope: 'write' }, { headers }), 401, 'unauthenticated');
    assertError(await bearer.request('DELETE', `${PATH}/${token.id}`, { headers }), 401, 'unauthenticated');
    assert.equal((await stored(user.id)).length, 1);
  });

  test('create: 201 with the secret once (no-store), only its hash kept; the list shows the token without it', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assert.deepEqual((await client.get(PATH)).body, { items: [] });
    const created = await create(client, { name: '  Deploy bot  ', scope: 'write' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    assert.deepEqual(Object.keys(created.body).sort(), ['secret', 'token']);
    const { token, secret } = created.body;
    assert.match(secret, SECRET_FORM);
    assert.deepEqual(Object.keys(token).sort(), VIEW_KEYS);
    assert.deepEqual({ ...token, id: undefined, createdAt: undefined }, { id: undefined, createdAt: undefined, name: 'Deploy bot', scope: 'write', pond: null, expiresAt: null, lastUsedAt: null, status: 'active' });
    const [row] = await stored(user.id);
    assert.equal(row?.id, token.id);
    assert.deepEqual(row!.token_hash, createHash('sha256').update(secret).digest());

    const list = await client.get(PATH);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items, [token]);
    assert.ok(!list.text.includes(secret.slice(7)), 'the list never carries the secret');
    assert.equal((await checkPresentedAccessToken(instance.services.sequelize, secret)).status, 'valid');
  });

  test('validation: name trimmed 1..100, scope read|write, no unknown fields, pondId a uuid', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assertFieldError(await create(client, { name: '   ' }), 'name');
    assertFieldError(await create(client, { name: 'x'.repeat(101) }), 'name');
    assert.equal((await create(client, { name: ` ${'x'.repeat(100)} ` })).status, 201, '100 characters after trimming');
    assertFieldError(await create(client, { scope: 'admin' }), 'scope');
    assertFieldError(await client.post(PATH, { name: 'No scope' }), 'scope');
    assertFieldError(await create(client, { secret: 'dt_pat_mine' }), '');
    assertFieldError(await create(client, { pondId: 'not-a-uuid' }), 'pondId');
    assertFieldError(await create(client, { expiresAt: 'tomorrow' }), 'expiresAt');
    assert.equal((await stored(user.id)).length, 1);
  });

  test('expiry: in the future is kept; now or in the past answers token_expiry_past; a lapsed token lists as expired', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const future = await create(client, { name: 'Month', expiresAt });
    assert.equal(future.status, 201, future.text);
    assert.equal(future.body.token.expiresAt, expiresAt);
    assert.equal(future.body.token.status, 'active');
    for (const past of [new Date(Date.now() - 1000).toISOString(), '2001-01-01', '2001-01-01T00:00:00+02:00']) {
      const refused = await create(client, { expiresAt: past });
      assertError(refused, 400, 'token_expiry_past');
    }
    assert.equal((await create(client, { name: 'Forever', expiresAt: null })).body.token.expiresAt, null);

    await instance.services.sequelize.query(`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, { bind: [future.body.token.id] });
    const items = (await client.get(PATH)).body.items as { name: string; status: string }[];
    assert.deepEqual(items.map((item) => [item.name, item.status]), [['Forever', 'active'], ['Month', 'expired']]);
    assert.equal((await stored(user.id)).length, 2, 'refused requests stored nothing');
  });

  test('pond restriction: a pond the user can see is named in the view; an unseen, missing or (for a reader) trashed one answers 404', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const { user: other } = await createVerifiedUser(instance);
    const own = await seedSharedPond(user.id, 'Own pond');
    const unseen = await seedSharedPond(other.id, 'Unseen pond');
    const pageShared = await seedSharedPond(other.id, 'Page-shared pond');
    const page = await seedPage(pageShared.id, 'Shared page', { createdBy: other.id });
    await seedGrant(pageShared.id, { subject: { type: 'user', id: user.id }, role: 'reader', scope: { type: 'page', id: page.id } });
    const publicPond = await seedSharedPond(other.id, 'Public pond');
    await seedGrant(publicPond.id, { subject: { type: 'public' }, role: 'reader' });

    const restricted = await create(client, { pondId: own.id });
    assert.equal(restricted.status, 201, restricted.text);
    assert.deepEqual(restricted.body.token.pond, { id: own.id, slug: own.slug, name: 'Own pond' });
    assert.equal((await create(client, { pondId: pageShared.id })).status, 201, 'a pond seen through a page grant');
    assert.equal((await create(client, { pondId: publicPond.id })).status, 201, 'a public pond');

    for (const pondId of [unseen.id, MISSING_UUID]) assertError(await create(client, { pondId }), 404, 'not_found');
    // A trashed pond is visible to its pond admins only (the policy's rule): a reader's restriction to it is refused.
    const trashed = await seedSharedPond(other.id, 'Trashed pond');
    await seedGrant(trashed.id, { subject: { type: 'user', id: user.id }, role: 'reader' });
    await trashed.update({ trashedAt: new Date(), trashedBy: other.id });
    invalidateAllPondAccess();
    assertError(await create(client, { pondId: trashed.id }), 404, 'not_found');
    assert.equal((await stored(user.id)).length, 3);

    const listed = (await client.get(PATH)).body.items as { pond: { id: string } | null }[];
    assert.deepEqual(listed.map((item) => item.pond?.id).sort(), [own.id, pageShared.id, publicPond.id].sort());
  });

  test('revoke: 204, the token leaves the list and its secret answers revoked; again, unknown or malformed: 404', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const kept = (await create(client, { name: 'Kept' })).body;
    const gone = (await create(client, { name: 'Gone' })).body;
    assert.equal((await revoke(client, gone.token.id)).status, 204);
    assert.deepEqual(((await client.get(PATH)).body.items as { id: string }[]).map((item) => item.id), [kept.token.id]);
    assert.deepEqual(await checkPresentedAccessToken(instance.services.sequelize, gone.secret), { status: 'revoked' });
    assert.ok((await stored(user.id)).find((row) => row.id === gone.token.id)?.revoked_at, 'the row stays, revoked');
    for (const id of [gone.token.id, MISSING_UUID, 'not-a-uuid']) assertError(await revoke(client, id), 404, 'not_found');
    assert.equal((await checkPresentedAccessToken(instance.services.sequelize, kept.secret)).status, 'valid');
  });

  test(`at most ${MAX_LIVE_API_TOKENS} live tokens per account: one more answers 409 token_limit_reached; revoking or expiry frees a place`, async () => {
    const { client, user } = await createVerifiedUser(instance);
    const ids: string[] = [];
    for (let i = 0; i < MAX_LIVE_API_TOKENS; i += 1) {
      const created = await create(client, { name: `Bot ${i}` });
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.token.id);
    }
    const refused = await create(client, { name: 'One too many' });
    assertError(refused, 409, 'token_limit_reached');
    assert.deepEqual(refused.body.error.details, { limit: MAX_LIVE_API_TOKENS });
    assert.equal((await stored(user.id)).length, MAX_LIVE_API_TOKENS, 'nothing was stored');

    assert.equal((await revoke(client, ids[0]!)).status, 204);
    assert.equal((await create(client, { name: 'After revoking' })).status, 201);
    assertError(await create(client, { name: 'Full again' }), 409, 'token_limit_reached');

    await instance.services.sequelize.query(`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, { bind: [ids[1]] });
    assert.equal((await create(client, { name: 'After one expired' })).status, 201);
  });

  test('another user\'s token: 404 on DELETE and absent from the list; it keeps working', async () => {
    const owner = await createVerifiedUser(instance);
    const stranger = await createVerifiedUser(instance);
    const { token, secret } = (await create(owner.client)).body;
    assertError(await revoke(stranger.client, token.id), 404, 'not_found');
    assert.deepEqual((await stranger.client.get(PATH)).body.items, []);
    assert.equal((await checkPresentedAccessToken(instance.services.sequelize, secret)).status, 'valid');
    assert.equal((await audited(stranger.user.id)).length, 0);
  });

  test('writes need our own origin (CSRF): a foreign or missing Origin is refused and nothing changes', async () => {
    const { client, user } = await createVerifiedUser(instance);
    for (const origin of ['https://evil.example', null]) {
      assertError(await client.post(PATH, { name: 'Forged', scope: 'write' }, { origin }), 403, 'csrf_failed');
    }
    assert.equal((await stored(user.id)).length, 0);
    const { token } = (await create(client)).body;
    assertError(await revoke(client, token.id, 'https://evil.example'), 403, 'csrf_failed');
    assertError(await client.request('DELETE', `${PATH}/${token.id}`, { origin: null }), 403, 'csrf_failed');
    assert.equal((await stored(user.id))[0]?.revoked_at, null, 'the token survives a forged revoke');
    assert.deepEqual((await audited(user.id)).map((entry) => entry.action), ['api.token_created']);
  });

  test('creation and revocation are audited in their transaction, with the token named and its secret nowhere (nor in the logs)', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await seedSharedPond(user.id);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const { token, secret } = (await create(client, { name: 'Audited', scope: 'write', pondId: pond.id, expiresAt })).body;
    assert.equal((await revoke(client, token.id)).status, 204);
    const entries = await audited(user.id);
    assert.deepEqual(entries.map((entry) => entry.action), ['api.token_created', 'api.token_revoked']);
    assert.deepEqual(entries[0]!.details, { tokenId: token.id, name: 'Audited', scope: 'write', pondId: pond.id, expiresAt });
    assert.deepEqual(entries[1]!.details, { tokenId: token.id, name: 'Audited' });
    assert.ok(entries.every((entry) => entry.actorName === user.username && entry.ip));
    const rows = await instance.services.sequelize.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM audit_entries a', { type: QueryTypes.SELECT });
    const body = secret.slice(7);
    assert.ok(rows.every(({ row }) => !row.includes(body)), 'no audit entry carries the secret');
    assert.ok(log.lines.length > 0, 'requests were logged');
    assert.ok(log.lines.every((line) => !line.includes(body)), 'no log line carries the secret');
    // Refusals and a 404 revoke are not audited.
    await create(client, { expiresAt: '2001-01-01' });
    await revoke(client, token.id);
    assert.equal((await audited(user.id)).length, 2);
  });
});
