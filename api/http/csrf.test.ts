/**
 * Cross-site request forgery defence, through HTTP: cookie-authenticated writes need an
 * `Origin` (or `Referer`) equal to BASE_URL; any write with a foreign `Origin` is refused;
 * anonymous writes without `Origin` (curl, API clients) pass.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Session, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const FOREIGN = 'https://evil.example';

function assertCsrfFailed(response: TestResponse, reason: 'origin_mismatch' | 'origin_missing'): void {
  assert.equal(response.status, 403, response.text);
  assert.equal(response.body.error.code, 'csrf_failed');
  assert.equal(response.body.error.details.reason, reason);
}

describe('CSRF check', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  async function displayNameOf(userId: string): Promise<string> {
    return (await User.findByPk(userId))!.displayName;
  }

  test('a cookie-authenticated write without Origin or Referer is refused and changes nothing', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const before = await displayNameOf(user.id);
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Forged' }, { origin: null }), 'origin_missing');
    assert.equal(await displayNameOf(user.id), before);
  });

  test('a cookie-authenticated logout without Origin is refused and the session survives', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assertCsrfFailed(await client.post('/auth/logout', undefined, { origin: null }), 'origin_missing');
    assert.equal(await Session.count({ where: { userId: user.id } }), 1);
    assert.equal((await client.get('/users/me')).status, 200);
  });

  test('a cookie-authenticated write with a foreign Origin is refused', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const before = await displayNameOf(user.id);
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Forged' }, { origin: FOREIGN }), 'origin_mismatch');
    assert.equal(await displayNameOf(user.id), before);
  });

  test('an Origin that differs from BASE_URL only in scheme or port is foreign', async () => {
    const { client } = await createVerifiedUser(instance);
    const base = new URL(instance.baseUrl);
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Forged' }, { origin: `https://${base.host}` }), 'origin_mismatch');
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Forged' }, { origin: `http://${base.hostname}:${Number(base.port) + 1}` }), 'origin_mismatch');
  });

  test('Origin: null is never trusted, even with a matching Referer', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { displayName: 'Forged' }, { origin: 'null', headers: { referer: `${instance.baseUrl}/settings` } });
    assertCsrfFailed(response, 'origin_missing');
  });

  test('a foreign Origin is refused even when the Referer matches', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { displayName: 'Forged' }, { origin: FOREIGN, headers: { referer: `${instance.baseUrl}/settings` } });
    assertCsrfFailed(response, 'origin_mismatch');
  });

  test('a malformed Origin does not fall back to the Referer', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { displayName: 'Forged' }, { origin: 'not a url', headers: { referer: `${instance.baseUrl}/settings` } });
    assertCsrfFailed(response, 'origin_mismatch');
  });

  test('a cookie-authenticated write with a matching Referer and no Origin is allowed', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const response = await client.patch('/users/me', { displayName: 'Via Referer' }, { origin: null, headers: { referer: `${instance.baseUrl}/settings?tab=profile` } });
    assert.equal(response.status, 200, response.text);
    assert.equal(await displayNameOf(user.id), 'Via Referer');
  });

  test('a cookie-authenticated write with a foreign Referer and no Origin is refused', async () => {
    const { client } = await createVerifiedUser(instance);
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Forged' }, { origin: null, headers: { referer: `${FOREIGN}/page` } }), 'origin_mismatch');
  });

  test('a cookie-authenticated write with our own Origin is allowed', async () => {
    const { client, user } = await createVerifiedUser(instance);
    assert.equal((await client.patch('/users/me', { displayName: 'Same Origin' })).status, 200);
    assert.equal(await displayNameOf(user.id), 'Same Origin');
  });

  test('an anonymous login with a foreign Origin is refused (login CSRF) and no session is created', async () => {
    const { credentials, user } = await createVerifiedUser(instance);
    const attacker = new TestClient(instance.baseUrl);
    const sessionsBefore = await Session.count({ where: { userId: user.id } });
    assertCsrfFailed(await attacker.post('/auth/login', { login: credentials.username, password: credentials.password }, { origin: FOREIGN }), 'origin_mismatch');
    assert.equal(attacker.sessionCookie, undefined);
    assert.equal(await Session.count({ where: { userId: user.id } }), sessionsBefore);
  });

  test('an anonymous write without Origin (curl-like) is allowed', async () => {
    const { credentials } = await createVerifiedUser(instance);
    const curl = new TestClient(instance.baseUrl);
    const response = await curl.post('/auth/login', { login: credentials.username, password: credentials.password }, { origin: null });
    assert.equal(response.status, 200, response.text);
    assert.ok(curl.sessionCookie);
  });

  test('reads need no Origin', async () => {
    const { client } = await createVerifiedUser(instance);
    assert.equal((await client.get('/users/me')).status, 200);
  });
});

describe('CSRF origins besides BASE_URL', () => {
  let instance: TestInstance;
  before(async () => {
    // As on a first `npm start`: no BASE_URL, the browser uses 127.0.0.1 instead of localhost.
    instance = await startTestInstance({ explicitBaseUrl: false });
    await completeSetup(instance);
    // So only the Host rule can admit 127.0.0.1 below.
    await instance.services.sequelize.query(`UPDATE settings SET value = '"https://elsewhere.example"' WHERE key = 'instance.baseUrl'`);
  });
  after(() => instance.close());

  test('without BASE_URL, a write from the address the browser used is allowed', async () => {
    assert.equal(instance.services.config.baseUrl.startsWith('http://localhost:'), true);
    const { client } = await createVerifiedUser(instance);
    assert.equal((await client.patch('/users/me', { displayName: 'Via IP' }, { origin: instance.baseUrl })).status, 200);
  });

  test('without BASE_URL, a foreign Origin is still refused', async () => {
    const { client } = await createVerifiedUser(instance);
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Evil' }, { origin: FOREIGN }), 'origin_mismatch');
  });

  test('the base URL saved by setup counts as our own origin', async () => {
    const { client } = await createVerifiedUser(instance);
    assertCsrfFailed(await client.patch('/users/me', { displayName: 'Proxy' }, { origin: 'https://wiki.example.org' }), 'origin_mismatch');
    await instance.services.sequelize.query(`UPDATE settings SET value = '"https://wiki.example.org"' WHERE key = 'instance.baseUrl'`);
    assert.equal((await client.patch('/users/me', { displayName: 'Proxy' }, { origin: 'https://wiki.example.org' })).status, 200);
  });
});
