/**
 * Single sign-on through HTTP against a real oidc-provider 9 (api/testing/oidcTestProvider.ts):
 * the methods the login page asks for, the first login creating an ACTIVE account with its
 * personal pond, a known identity signing in again, the e-mail rules (never adopting an
 * account, link_required only for a verified address), a disabled account, `next` kept to our
 * origin, the flow cookie's attributes, and every refusal of the flow cookie and the state.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { AuditEntry, Pond, User } from '../models/index.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import { signFlow } from '../sso/flowCookie.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { finishCallback, signInThroughProvider, walkToCallback } from '../testing/oidcBrowser.ts';
import type { OidcTestProvider } from '../testing/oidcTestProvider.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const SECRET = 'test-session-secret-that-is-long-enough-0123456789';

describe('single sign-on: login', () => {
  let instance: TestInstance;
  let provider: OidcTestProvider;
  before(async () => {
    instance = await startTestInstance({ oidc: {}, env: { OIDC_PROVIDER_LABEL: 'Dorf-ID' } });
    provider = instance.oidc!;
    await completeSetup(instance, { registration: 'closed' });
  });
  after(() => instance.close());
  beforeEach(async () => {
    await resetRateLimits(instance);
    provider.rewriteIdToken(null);
  });

  const registration = (mode: 'open' | 'closed') =>
    instance.services.sequelize.transaction((transaction) => setSetting('registration.mode', mode, { actorId: null, transaction }));
  const identitiesOf = (userId: string) =>
    instance.services.sequelize.query<{ provider: string; subject: string; email: string | null }>(`SELECT provider, subject, email FROM login_identities WHERE user_id = $1`, {
      bind: [userId],
      type: QueryTypes.SELECT,
    });

  test('GET /auth/methods names the provider by its label', async () => {
    const response = await new TestClient(instance.baseUrl).get('/auth/methods');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { password: true, oidc: { label: 'Dorf-ID' } });
  });

  test('the first login creates an ACTIVE, mail-verified account with its personal pond, even with closed registration, and signs it in', async () => {
    const browser = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub: 'sub-maria', email: 'Maria.Keller@example.org', email_verified: true, name: 'Maria Keller', preferred_username: 'Maria K' });
    const start = await browser.get('/auth/oidc/start?next=/help');
    assert.equal(start.status, 302);
    const authorize = new URL(start.headers.get('location')!);
    assert.equal(authorize.origin, provider.issuer);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('redirect_uri'), `${instance.baseUrl}/api/v1/auth/oidc/callback`);
    assert.equal(authorize.searchParams.get('scope'), 'openid email profile');
    assert.ok(authorize.searchParams.get('state') && authorize.searchParams.get('nonce'));
    const cookie = start.headers.getSetCookie().find((line) => line.startsWith('dt_oidc='))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Max-Age=600/i);
    assert.doesNotMatch(cookie, /Secure/i, 'http BASE_URL: no Secure flag');
    for (const secret of [authorize.searchParams.get('state')!, authorize.searchParams.get('nonce')!]) assert.ok(!cookie.includes(secret), 'the cookie is not readable JSON');

    browser.cookies.delete('dt_oidc');
    const landing = await signInThroughProvider(browser, '/auth/oidc/start?next=/help');
    assert.equal(landing, '/help');
    assert.equal(browser.cookies.has('dt_oidc'), false, 'the flow cookie is cleared');
    const session = await browser.get('/auth/session');
    assert.equal(session.body.user.username, 'maria-k');
    assert.equal(session.body.user.displayName, 'Maria Keller');
    const user = await User.findByPk(session.body.user.id);
    assert.equal(user!.status, 'ACTIVE');
    assert.equal(user!.email, 'maria.keller@example.org');
    assert.ok(user!.emailVerifiedAt, 'verified: the provider asserted it');
    assert.equal(user!.passwordHash, null);
    const pond = await Pond.findOne({ where: { ownerId: user!.id, kind: 'personal' } });
    assert.ok(pond, 'a personal pond');
    assert.deepEqual(await identitiesOf(user!.id), [{ provider: `oidc:${provider.issuer}`, subject: 'sub-maria', email: 'maria.keller@example.org' }]);
    const signup = await AuditEntry.findOne({ where: { action: 'auth.signup', actorId: user!.id } });
    assert.equal((signup!.details as { method: string }).method, 'oidc');
    const login = await AuditEntry.findOne({ where: { action: 'auth.login', actorId: user!.id } });
    assert.deepEqual(login!.details, { method: 'oidc', provider: `oidc:${provider.issuer}` });
  });

  test('a known identity signs its account in again; an unverified address makes an unverified account; the username is made unique', async () => {
    const first = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub: 'sub-maria', email: 'maria.keller@example.org', email_verified: true });
    assert.equal(await signInThroughProvider(first, '/auth/oidc/start'), '/');
    assert.equal((await first.get('/auth/session')).body.user.username, 'maria-k');

    const other = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub: 'sub-maria-2', email: 'maria-k@example.net', email_verified: false, preferred_username: 'maria-k' });
    assert.equal(await signInThroughProvider(other, '/auth/oidc/start'), '/');
    const created = (await other.get('/auth/session')).body.user;
    assert.equal(created.username, 'maria-k-2');
    assert.equal((await User.findByPk(created.id))!.emailVerifiedAt, null);
  });

  test('an existing account is never adopted: a verified address answers oidc_link_required, an unverified one oidc_email_unverified', async () => {
    await registration('open');
    const { user } = await createVerifiedUser(instance);
    await registration('closed');
    const local = await User.findByPk(user.id);
    const browser = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub: 'sub-intruder', email: local!.email.toUpperCase(), email_verified: true });
    assert.equal(await signInThroughProvider(browser, '/auth/oidc/start?next=/x'), '/login?error=oidc_link_required');
    provider.setNextLogin({ sub: 'sub-intruder', email: local!.email, email_verified: false });
    assert.equal(await signInThroughProvider(browser, '/auth/oidc/start'), '/login?error=oidc_email_unverified');
    assert.equal((await browser.get('/auth/session')).body.user, null);
    assert.deepEqual(await identitiesOf(user.id), []);
    const refusals = await AuditEntry.findAll({ where: { action: 'auth.login_failed', actorId: null }, order: [['createdAt', 'ASC']] });
    assert.deepEqual(
      refusals.map((entry) => entry.details).filter((details) => (details as { subject?: string }).subject === 'sub-intruder'),
      ['oidc_link_required', 'oidc_email_unverified'].map((reason) => ({ method: 'oidc', reason, provider: `oidc:${provider.issuer}`, subject: 'sub-intruder' })),
    );
    const [row] = await instance.services.sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM login_identities WHERE subject = 'sub-intruder'`, { type: QueryTypes.SELECT });
    assert.equal(row!.count, 0);
  });

  test('no e-mail claim answers oidc_email_missing and creates nothing', async () => {
    const before = await User.count();
    provider.setNextLogin({ sub: 'sub-anonymous', name: 'No Mail' });
    assert.equal(await signInThroughProvider(new TestClient(instance.baseUrl), '/auth/oidc/start'), '/login?error=oidc_email_missing');
    assert.equal(await User.count(), before);
  });

  test('a disabled account is refused with account_disabled', async () => {
    const browser = new TestClient(instance.baseUrl);
    provider.setNextLogin({ sub: 'sub-disabled', email: 'disabled@example.org', email_verified: true });
    await signInThroughProvider(browser, '/auth/oidc/start');
    const userId = (await browser.get('/auth/session')).body.user.id;
    await User.update({ status: 'disabled' }, { where: { id: userId } });
    const again = new TestClient(instance.baseUrl);
    assert.equal(await signInThroughProvider(again, '/auth/oidc/start'), '/login?error=account_disabled');
    assert.equal((await again.get('/auth/session')).body.user, null);
    const refusal = await AuditEntry.findOne({ where: { action: 'auth.login_failed', actorId: userId } });
    assert.deepEqual(refusal!.details, { method: 'oidc', reason: 'account_disabled', provider: `oidc:${provider.issuer}`, subject: 'sub-disabled' });
  });

  test('the provider cancelling answers oidc_cancelled', async () => {
    provider.setNextLogin('cancel');
    assert.equal(await signInThroughProvider(new TestClient(instance.baseUrl), '/auth/oidc/start'), '/login?error=oidc_cancelled');
    // Where the sign-in was headed is kept for the password sign-in after it.
    assert.equal(
      await signInThroughProvider(new TestClient(instance.baseUrl), `/auth/oidc/start?next=${encodeURIComponent('/team/roadmap?tab=1')}`),
      `/login?error=oidc_cancelled&next=${encodeURIComponent('/team/roadmap?tab=1')}`,
    );
  });

  test('next stays on our origin: other origins, protocol-relative and backslash paths land on /', async () => {
    provider.setNextLogin({ sub: 'sub-maria', email: 'maria.keller@example.org', email_verified: true });
    for (const [next, expected] of [
      ['https://evil.example/x', '/'],
      ['//evil.example/x', '/'],
      ['/\\evil.example', '/'],
      ['relative', '/'],
      ['/ponds/a?tab=b', '/ponds/a?tab=b'],
    ] as const) {
      assert.equal(await signInThroughProvider(new TestClient(instance.baseUrl), `/auth/oidc/start?next=${encodeURIComponent(next)}`), expected, next);
    }
  });

  describe('the flow cookie and the state', () => {
    beforeEach(() => provider.setNextLogin({ sub: 'sub-maria', email: 'maria.keller@example.org', email_verified: true }));

    test('a missing cookie answers oidc_state_invalid', async () => {
      const browser = new TestClient(instance.baseUrl);
      const callback = await walkToCallback(browser, '/auth/oidc/start');
      browser.cookies.delete('dt_oidc');
      assert.equal(await finishCallback(browser, callback), '/login?error=oidc_state_invalid');
      assert.equal((await browser.get('/auth/session')).body.user, null);
    });

    test('a tampered cookie answers oidc_state_invalid', async () => {
      const browser = new TestClient(instance.baseUrl);
      const callback = await walkToCallback(browser, '/auth/oidc/start');
      const [payload, mac] = browser.cookies.get('dt_oidc')!.split('.');
      const flow = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      browser.cookies.set('dt_oidc', `${Buffer.from(JSON.stringify({ ...flow, next: '/elsewhere' })).toString('base64url')}.${mac}`);
      assert.equal(await finishCallback(browser, callback), '/login?error=oidc_state_invalid');
      assert.equal((await browser.get('/auth/session')).body.user, null);
    });

    test('an expired cookie (signed correctly, older than 10 minutes) answers oidc_state_invalid', async () => {
      const browser = new TestClient(instance.baseUrl);
      const callback = await walkToCallback(browser, '/auth/oidc/start');
      const flow = JSON.parse(Buffer.from(browser.cookies.get('dt_oidc')!.split('.')[0]!, 'base64url').toString('utf8'));
      browser.cookies.set('dt_oidc', signFlow(SECRET, { ...flow, issuedAt: Date.now() - 10 * 60 * 1000 - 1000 }));
      assert.equal(await finishCallback(browser, callback), '/login?error=oidc_state_invalid');
      // The same flow re-signed as fresh goes through: it was the age that failed.
      const fresh = new TestClient(instance.baseUrl);
      const freshCallback = await walkToCallback(fresh, '/auth/oidc/start');
      const freshFlow = JSON.parse(Buffer.from(fresh.cookies.get('dt_oidc')!.split('.')[0]!, 'base64url').toString('utf8'));
      fresh.cookies.set('dt_oidc', signFlow(SECRET, { ...freshFlow, issuedAt: Date.now() - 9 * 60 * 1000 }));
      assert.equal(await finishCallback(fresh, freshCallback), '/');
    });

    test('a wrong state answers oidc_state_invalid and exchanges no code', async () => {
      const browser = new TestClient(instance.baseUrl);
      const callback = new URL(await walkToCallback(browser, '/auth/oidc/start'));
      callback.searchParams.set('state', 'not-the-state');
      const exchanges = provider.tokenRequests();
      assert.ok(browser.cookies.has('dt_oidc'));
      assert.equal(await finishCallback(browser, callback.href), '/login?error=oidc_state_invalid');
      assert.equal(provider.tokenRequests(), exchanges);
      assert.equal(browser.cookies.has('dt_oidc'), false, 'the flow cookie is cleared on a refusal too');
    });

    test('a replayed callback (cookie and code used once already) cannot sign in twice', async () => {
      const browser = new TestClient(instance.baseUrl);
      const callback = await walkToCallback(browser, '/auth/oidc/start');
      const cookie = browser.cookies.get('dt_oidc')!;
      assert.equal(await finishCallback(browser, callback), '/');
      const attacker = new TestClient(instance.baseUrl);
      attacker.cookies.set('dt_oidc', cookie);
      assert.equal(await finishCallback(attacker, callback), '/login?error=oidc_exchange_failed');
      assert.equal((await attacker.get('/auth/session')).body.user, null);
    });
  });
});

describe('single sign-on: not configured', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());

  test('GET /auth/methods says password only, and the flow routes do not exist', async () => {
    const client = new TestClient(instance.baseUrl);
    assert.deepEqual((await client.get('/auth/methods')).body, { password: true, oidc: null });
    for (const path of ['/auth/oidc/start', '/auth/oidc/callback?state=x&code=y', '/auth/oidc/link']) assert.equal((await client.get(path)).status, 404, path);
  });
});
