/**
 * Linking and unlinking single sign-on identities (spec: Authentication 2): the e-mail match
 * refused, then the owner signs in with the password, links at `GET /auth/oidc/link`
 * (`auth.identity_linked`) and signs in through the provider from then on; an identity linked
 * to another account (`oidc_identity_taken`); `GET /users/me/identities` and
 * `DELETE /users/me/identities/:id` with the last-way-in rule (409
 * `identity_last_sign_in_method`), 404 for an unknown or another user's identity, 401 for
 * anonymous callers, `auth.identity_unlinked`; an admin deletion removing the identities.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { AuditEntry, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits, signInAdmin } from '../testing/fixtures.ts';
import { finishCallback, signInThroughProvider, walkToCallback } from '../testing/oidcBrowser.ts';
import type { OidcTestProvider } from '../testing/oidcTestProvider.ts';
import { assertError, MISSING_UUID } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('single sign-on: linking and identities', () => {
  let instance: TestInstance;
  let provider: OidcTestProvider;
  before(async () => {
    instance = await startTestInstance({ oidc: {}, env: { OIDC_PROVIDER_LABEL: 'Dorf-ID' } });
    provider = instance.oidc!;
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  const unlink = (client: TestClient, id: string) => client.request('DELETE', `/users/me/identities/${encodeURIComponent(id)}`);

  /** A new account made by a first SSO login; its browser is signed in. */
  async function ssoUser(sub: string) {
    const browser = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub, email: `${sub}@example.org`, email_verified: true });
    assert.equal(await signInThroughProvider(browser, '/auth/oidc/start'), '/');
    return { browser, userId: (await browser.get('/auth/session')).body.user.id as string };
  }

  test('e-mail match → oidc_link_required → password login → link → SSO login opens the same account', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const email = (await User.findByPk(user.id))!.email;
    provider.setNextLogin({ sub: 'sub-owner', email, email_verified: true, name: 'The Owner' });

    const stranger = new TestClient(instance.baseUrl);
    assert.equal(await signInThroughProvider(stranger, '/auth/oidc/start'), '/login?error=oidc_link_required');

    assert.equal(await signInThroughProvider(client, '/auth/oidc/link'), '/settings?linked=1');
    const linked = await AuditEntry.findOne({ where: { action: 'auth.identity_linked', actorId: user.id } });
    assert.deepEqual(linked!.details, { provider: `oidc:${provider.issuer}`, subject: 'sub-owner' });
    assert.equal((await client.get('/auth/session')).body.user.id, user.id, 'linking keeps the session');

    const later = new TestClient(instance.baseUrl);
    assert.equal(await signInThroughProvider(later, '/auth/oidc/start?next=/settings'), '/settings');
    assert.equal((await later.get('/auth/session')).body.user.id, user.id);

    const list = await client.get('/users/me/identities');
    assert.equal(list.status, 200);
    assert.equal(list.body.hasPassword, true);
    assert.equal(list.body.items.length, 1);
    const [item] = list.body.items;
    assert.deepEqual(Object.keys(item).sort(), ['email', 'id', 'label', 'linkedAt', 'provider']);
    assert.equal(item.provider, `oidc:${provider.issuer}`);
    assert.equal(item.label, 'Dorf-ID');
    assert.equal(item.email, email);
    assert.ok(!Number.isNaN(Date.parse(item.linkedAt)));

    // Linking it again changes nothing and records nothing.
    assert.equal(await signInThroughProvider(client, '/auth/oidc/link'), '/settings?linked=1');
    assert.equal(await AuditEntry.count({ where: { action: 'auth.identity_linked', actorId: user.id } }), 1);
  });

  test('an identity linked to another account answers oidc_identity_taken on the settings page', async () => {
    await ssoUser('sub-taken');
    const { client, user } = await createVerifiedUser(instance);
    provider.setNextLogin({ sub: 'sub-taken', email: 'sub-taken@example.org', email_verified: true });
    assert.equal(await signInThroughProvider(client, '/auth/oidc/link'), '/settings?error=oidc_identity_taken');
    assert.deepEqual((await client.get('/users/me/identities')).body.items, []);
    assert.equal(await AuditEntry.count({ where: { action: 'auth.identity_linked', actorId: user.id } }), 0);
  });

  test('a cancelled link lands on the settings page with oidc_cancelled', async () => {
    const { client } = await createVerifiedUser(instance);
    provider.setNextLogin('cancel');
    assert.equal(await signInThroughProvider(client, '/auth/oidc/link'), '/settings?error=oidc_cancelled');
  });

  test('a link flow finished by another signed-in account (or none) is refused', async () => {
    const { client } = await createVerifiedUser(instance);
    provider.setNextLogin({ sub: 'sub-switched', email: 'switched@example.org', email_verified: true });
    // The link began for this account; the browser signed out before the provider sent it back.
    const callback = await walkToCallback(client, '/auth/oidc/link');
    await client.post('/auth/logout');
    assert.equal(await finishCallback(client, callback), '/settings?error=oidc_state_invalid');
  });

  test('anonymous GET /auth/oidc/link goes to the login page', async () => {
    const response = await new TestClient(instance.baseUrl).get('/auth/oidc/link');
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), '/login?next=%2Fsettings');
  });

  test('the identity routes need a session (401)', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    assertError(await anonymous.get('/users/me/identities'), 401, 'unauthenticated');
    assertError(await unlink(anonymous, MISSING_UUID), 401, 'unauthenticated');
  });

  test('unlinking the only way in is refused (409) until a second identity exists; then it goes (204, audited)', async () => {
    const { browser, userId } = await ssoUser('sub-only');
    const list = await browser.get('/users/me/identities');
    assert.equal(list.body.hasPassword, false);
    const [only] = list.body.items;
    assertError(await unlink(browser, only.id), 409, 'identity_last_sign_in_method');
    assert.equal((await browser.get('/users/me/identities')).body.items.length, 1);

    provider.setNextLogin({ sub: 'sub-only-second', email: 'second@example.org', email_verified: true });
    assert.equal(await signInThroughProvider(browser, '/auth/oidc/link'), '/settings?linked=1');
    assert.equal((await unlink(browser, only.id)).status, 204);
    const remaining = (await browser.get('/users/me/identities')).body.items;
    assert.deepEqual(remaining.map((item: { email: string }) => item.email), ['second@example.org']);
    assertError(await unlink(browser, remaining[0].id), 409, 'identity_last_sign_in_method');
    const audit = await AuditEntry.findOne({ where: { action: 'auth.identity_unlinked', actorId: userId } });
    assert.deepEqual(audit!.details, { identityId: only.id, provider: `oidc:${provider.issuer}`, subject: 'sub-only' });
  });

  test('with a password set the last identity may go (204); the provider then meets the taken address again: oidc_link_required', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const email = (await User.findByPk(user.id))!.email;
    provider.setNextLogin({ sub: 'sub-pw', email, email_verified: true });
    assert.equal(await signInThroughProvider(client, '/auth/oidc/link'), '/settings?linked=1');
    const [identity] = (await client.get('/users/me/identities')).body.items;
    assert.equal((await unlink(client, identity.id)).status, 204);
    assert.equal(await signInThroughProvider(new TestClient(instance.baseUrl), '/auth/oidc/start'), '/login?error=oidc_link_required');
  });

  test("an unknown id, a malformed id and another user's identity answer 404 and change nothing", async () => {
    const owner = await ssoUser('sub-someone');
    const [theirs] = (await owner.browser.get('/users/me/identities')).body.items;
    const { client } = await createVerifiedUser(instance);
    assertError(await unlink(client, theirs.id), 404, 'not_found');
    assertError(await unlink(client, MISSING_UUID), 404, 'not_found');
    assertError(await unlink(client, 'not-a-uuid'), 404, 'not_found');
    assert.equal((await owner.browser.get('/users/me/identities')).body.items.length, 1);
  });

  test('a cross-origin unlink is refused by the CSRF check', async () => {
    const { browser } = await ssoUser('sub-csrf');
    const [identity] = (await browser.get('/users/me/identities')).body.items;
    const forged = await browser.request('DELETE', `/users/me/identities/${identity.id}`, { origin: 'https://evil.example' });
    assert.equal(forged.status, 403, forged.text);
    assert.equal((await browser.get('/users/me/identities')).body.items.length, 1);
  });

  test('an admin deletion removes the identities: the next SSO login makes a new account', async () => {
    const { userId } = await ssoUser('sub-deleted');
    const admin = await signInAdmin(instance);
    assert.equal((await admin.request('DELETE', `/admin/users/${userId}`)).status, 204);
    const [row] = await instance.services.sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM login_identities WHERE user_id = $1`, {
      bind: [userId],
      type: QueryTypes.SELECT,
    });
    assert.equal(row!.count, 0);
    const again = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub: 'sub-deleted', email: 'sub-deleted@example.org', email_verified: true });
    assert.equal(await signInThroughProvider(again, '/auth/oidc/start'), '/');
    const fresh = (await again.get('/auth/session')).body.user;
    assert.notEqual(fresh.id, userId);
    assert.equal((await User.findByPk(fresh.id))!.status, 'ACTIVE');
  });
});

describe('single sign-on: account creation switches', () => {
  test('OIDC_AUTO_CREATE=false refuses an unknown identity with registration_closed; OIDC_REQUIRE_VERIFIED_EMAIL refuses an unverified address', async () => {
    const instance = await startTestInstance({ oidc: {}, env: { OIDC_AUTO_CREATE: 'false' } });
    try {
      await completeSetup(instance);
      const before = await User.count();
      instance.oidc!.setNextLogin({ sub: 'sub-new', email: 'new@example.org', email_verified: true });
      assert.equal(await signInThroughProvider(new TestClient(instance.baseUrl), '/auth/oidc/start'), '/login?error=registration_closed');
      assert.equal(await User.count(), before);
    } finally {
      await instance.close();
    }
    const strict = await startTestInstance({ oidc: {}, env: { OIDC_REQUIRE_VERIFIED_EMAIL: 'true' } });
    try {
      await completeSetup(strict);
      strict.oidc!.setNextLogin({ sub: 'sub-unverified', email: 'unverified@example.org', email_verified: false });
      assert.equal(await signInThroughProvider(new TestClient(strict.baseUrl), '/auth/oidc/start'), '/login?error=oidc_email_unverified');
      strict.oidc!.setNextLogin({ sub: 'sub-verified', email: 'verified@example.org', email_verified: true });
      assert.equal(await signInThroughProvider(new TestClient(strict.baseUrl), '/auth/oidc/start'), '/');
    } finally {
      await strict.close();
    }
  });
});
