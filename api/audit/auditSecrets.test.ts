/**
 * No secret reaches the audit log: the flows that handle passwords, reset links, access and
 * feed tokens and sessions run against a real instance, each leaving its entry, and no entry's
 * actor name or details holds any of those secrets (nor their hashes' inputs in any spelling).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
before(async () => {
  instance = await startTestInstance();
});
after(async () => {
  await instance?.close();
});

test('passwords, reset links, access and feed tokens and session cookies never appear in an audit entry', async () => {
  const admin = await completeSetup(instance);
  const { client, user } = await createVerifiedUser(instance);
  const secrets: string[] = ['correct horse battery', 'a long enough password', admin.sessionCookie!, client.sessionCookie!];

  // A refused sign-in with a password typed into the login field by mistake, and a wrong current password.
  const mistyped = new TestClient(instance.baseUrl);
  await mistyped.post('/auth/login', { login: user.username, password: 'wrong secret 1' });
  secrets.push('wrong secret 1');
  assert.equal((await client.post('/users/me/password', { currentPassword: 'wrong secret 2', newPassword: 'another long password 1' })).body.error.code, 'current_password_wrong');
  secrets.push('wrong secret 2', 'another long password 1');
  // A password change that works.
  const changed = await client.post('/users/me/password', { currentPassword: 'a long enough password', newPassword: 'the new long password 3' });
  assert.ok(changed.status < 300, changed.text);
  secrets.push('the new long password 3');

  // An access token and a feed token.
  const token = await client.post('/users/me/api-tokens', { name: 'Script', scope: 'write' });
  assert.equal(token.status, 201, token.text);
  secrets.push(token.body.secret as string);
  const feed = await client.post('/users/me/feed-token');
  assert.equal(feed.status, 201, feed.text);
  secrets.push(feed.body.token as string);

  // A reset link a Site Admin hands over, and its use.
  const link = await admin.post(`/admin/users/${user.id}/reset-link`);
  assert.equal(link.status, 201, link.text);
  const resetToken = new URL(link.body.link as string).searchParams.get('token') ?? (link.body.link as string).split('/').at(-1)!;
  secrets.push(link.body.link as string, resetToken);
  assert.equal((await new TestClient(instance.baseUrl).post('/auth/reset-password', { token: resetToken, password: 'the reset long password 4' })).status, 200);
  secrets.push('the reset long password 4');

  const entries = await instance.services.sequelize.query<{ action: string; text: string }>(
    `SELECT action, coalesce(actor_name, '') || ' ' || details::text AS text FROM audit_entries ORDER BY id`,
    { type: QueryTypes.SELECT },
  );
  const actions = new Set(entries.map((entry) => entry.action));
  for (const action of ['auth.login_failed', 'auth.password_change_failed', 'auth.password_changed', 'api.token_created', 'auth.feed_token_created', 'admin.user_reset_link_created', 'auth.password_reset']) {
    assert.ok(actions.has(action), `${action} was recorded`);
  }
  for (const secret of secrets) {
    assert.ok(secret.length >= 8, 'each secret is long enough to be told apart from other text');
    const holders = entries.filter((entry) => entry.text.includes(secret) || entry.text.includes(JSON.stringify(secret).slice(1, -1)));
    assert.deepEqual(holders.map((entry) => entry.action), [], `a secret (${secret.slice(0, 4)}…) in the audit log`);
  }
});
