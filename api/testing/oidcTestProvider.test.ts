import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { startOidcTestProvider, type OidcTestProvider } from './oidcTestProvider.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const ada = { sub: 'ada-1', email: 'ada@example.org', email_verified: true, name: 'Ada Lovelace', preferred_username: 'ada' };

async function authorize(provider: OidcTestProvider, config: oidc.Configuration, checks: { state: string; nonce: string; verifier: string }) {
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid email profile',
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
    code_challenge_method: 'S256',
  });
  const cookies = new Map<string, string>();
  let next = url.href;
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = response.headers.get('location');
    assert.ok(location, `hop ${hop} ${next}: ${response.status} ${await response.text()}`);
    const resolved = new URL(location, next);
    if (resolved.href.startsWith(REDIRECT)) return resolved;
    next = resolved.href;
  }
  throw new Error(`no callback reached (${provider.issuer})`);
}

describe('the OpenID Connect test provider', () => {
  let provider: OidcTestProvider;
  let config: oidc.Configuration;
  before(async () => {
    provider = await startOidcTestProvider({ accounts: [ada], redirectUris: [REDIRECT] });
    config = await oidc.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, {
      execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
    });
  });
  after(() => provider.close());

  it('signs the chosen account in and puts its claims in a signed ID token', async () => {
    provider.setNextLogin(ada);
    const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const callback = await authorize(provider, config, checks);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce });
    const claims = tokens.claims();
    assert.equal(claims?.sub, 'ada-1');
    assert.equal(claims?.email, 'ada@example.org');
    assert.equal(claims?.email_verified, true);
    assert.equal(claims?.preferred_username, 'ada');
    assert.equal(provider.tokenRequests(), 1);
  });

  it('asks again on the next authorization, so another account can sign in', async () => {
    const bob = { sub: 'bob-2', email: 'bob@example.org' };
    provider.setNextLogin(bob);
    const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const tokens = await oidc.authorizationCodeGrant(config, await authorize(provider, config, checks), { pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce });
    assert.equal(tokens.claims()?.sub, 'bob-2');
  });

  it('cancels with access_denied', async () => {
    provider.setNextLogin('cancel');
    const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const callback = await authorize(provider, config, checks);
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('state'), checks.state);
  });

  it('rewrites the ID token when asked: an expired one is refused by the client', async () => {
    provider.setNextLogin(ada);
    provider.rewriteIdToken((claims) => ({ claims: { ...claims, exp: Math.floor(Date.now() / 1000) - 600 } }));
    const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const callback = await authorize(provider, config, checks);
    await assert.rejects(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce }), /timestamp/);
    provider.rewriteIdToken(null);
  });
});
