/**
 * The ID token is checked strictly (spec: Authentication 2): against the provider's key set,
 * only RS256 and ES256, issuer, audience, expiry and nonce. Each bad token is issued for real
 * by oidc-provider 9 (a second configuration signing with HS256) or rewritten at its token
 * endpoint (api/testing/oidcTestProvider.ts `rewriteIdToken`), and the flow lands on the
 * login page with `oidc_token_invalid` and no session. Also: an ES256 provider is accepted, a
 * refused client secret is `oidc_exchange_failed`, an unreachable issuer `oidc_discovery_failed`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { completeSetup } from '../testing/fixtures.ts';
import { capturingLogger } from '../testing/mailRelay.ts';
import { freePort } from '../testing/freePort.ts';
import { signInThroughProvider } from '../testing/oidcBrowser.ts';
import type { IdTokenRewriter, OidcTestProvider } from '../testing/oidcTestProvider.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const ada = { sub: 'sub-ada', email: 'ada@example.org', email_verified: true, name: 'Ada' };

async function landing(instance: TestInstance): Promise<{ landing: string; signedIn: boolean }> {
  const browser = new TestClient(instance.baseUrl);
  const where = await signInThroughProvider(browser, '/auth/oidc/start?next=/welcome');
  return { landing: where, signedIn: (await browser.get('/auth/session')).body.user !== null };
}

describe('ID token checks (RS256 provider)', () => {
  let instance: TestInstance;
  let provider: OidcTestProvider;
  const log = capturingLogger('api');
  /** Why the last refusal happened, as the operator's log says it. */
  const lastRefusalCause = () => {
    const line = log.lines.filter((entry) => entry.includes('oidc sign-in refused')).at(-1);
    return line ? String(JSON.parse(line).cause) : '';
  };
  before(async () => {
    instance = await startTestInstance({ oidc: { accounts: [ada] }, logger: log.logger });
    provider = instance.oidc!;
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => {
    provider.rewriteIdToken(null);
    provider.setNextLogin(ada);
  });

  test('an untouched token signs in (the baseline the refusals below differ from)', async () => {
    provider.rewriteIdToken((claims) => ({ claims }));
    assert.deepEqual(await landing(instance), { landing: '/welcome', signedIn: true });
  });

  // Each with the reason the log gives, so a refusal for another reason does not pass.
  const refusals: [string, IdTokenRewriter, RegExp][] = [
    ['a wrong nonce', (claims) => ({ claims: { ...claims, nonce: 'another-flows-nonce' } }), /nonce/],
    ['an expired token', (claims) => ({ claims: { ...claims, iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) - 1800 } }), /exp/],
    ['a wrong audience', (claims) => ({ claims: { ...claims, aud: 'some-other-client' } }), /aud/],
    ['a wrong issuer', (claims) => ({ claims: { ...claims, iss: 'https://issuer.invalid' } }), /iss/],
    ['an unsigned token (alg none)', (claims) => ({ claims, signing: 'none' }), /"alg"/],
    ['an HS256 token signed with the client secret', (claims) => ({ claims, signing: 'HS256' }), /unsupported JWS algorithm/],
    ['a signature by a key outside the key set', (claims) => ({ claims, signing: 'foreign' }), /signature verification failed/],
  ];
  for (const [name, rewriter, reason] of refusals) {
    test(`${name} answers oidc_token_invalid and signs nobody in`, async () => {
      provider.rewriteIdToken(rewriter);
      assert.deepEqual(await landing(instance), { landing: '/login?error=oidc_token_invalid&next=%2Fwelcome', signedIn: false });
      assert.match(lastRefusalCause(), reason);
    });
  }
});

describe('ID token checks (other provider configurations)', () => {
  test('a provider issuing HS256 ID tokens by its own configuration is refused with oidc_token_invalid', async () => {
    const instance = await startTestInstance({ oidc: { accounts: [ada], clientOverrides: { id_token_signed_response_alg: 'HS256' } } });
    try {
      await completeSetup(instance);
      instance.oidc!.setNextLogin(ada);
      assert.deepEqual(await landing(instance), { landing: '/login?error=oidc_token_invalid&next=%2Fwelcome', signedIn: false });
    } finally {
      await instance.close();
    }
  });

  test('an ES256 provider is accepted', async () => {
    const instance = await startTestInstance({ oidc: { accounts: [ada], keyAlgorithm: 'ES256' } });
    try {
      await completeSetup(instance);
      instance.oidc!.setNextLogin(ada);
      assert.deepEqual(await landing(instance), { landing: '/welcome', signedIn: true });
    } finally {
      await instance.close();
    }
  });

  test('a client secret the provider refuses answers oidc_exchange_failed', async () => {
    const instance = await startTestInstance({ oidc: { accounts: [ada] }, env: { OIDC_CLIENT_SECRET: 'not-the-secret' } });
    try {
      await completeSetup(instance);
      instance.oidc!.setNextLogin(ada);
      assert.deepEqual(await landing(instance), { landing: '/login?error=oidc_exchange_failed&next=%2Fwelcome', signedIn: false });
    } finally {
      await instance.close();
    }
  });

  test('an unreachable issuer answers oidc_discovery_failed at start, quickly, and the instance keeps serving', async () => {
    const port = await freePort();
    const instance = await startTestInstance({ env: { OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID: 'dorfteich', OIDC_CLIENT_SECRET: 'secret' } });
    try {
      await completeSetup(instance);
      const browser = new TestClient(instance.baseUrl);
      const startedAt = Date.now();
      const start = await browser.get('/auth/oidc/start?next=/x');
      assert.equal(start.status, 302);
      assert.equal(start.headers.get('location'), '/login?error=oidc_discovery_failed');
      assert.ok(Date.now() - startedAt < 6000);
      assert.equal(browser.cookies.has('dt_oidc'), false, 'no flow begins');
      assert.deepEqual((await browser.get('/auth/methods')).body, { password: true, oidc: { label: 'Single sign-on' } });
      const health = await browser.get('/auth/session');
      assert.equal(health.status, 200);
    } finally {
      await instance.close();
    }
  });
});
