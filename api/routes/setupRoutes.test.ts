/**
 * The setup wizard through HTTP: the pending gate, each step's validation and effect, the
 * live SMTP test, completion, and the 410 lock afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuditEntry, Grant, Pond, Setting, User } from '../models/index.ts';
import { ADMIN, createVerifiedUser } from '../testing/fixtures.ts';
import { closedPort, startSmtpTestServer, subjectOf, type SmtpTestServer } from '../testing/smtpTestServer.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const INSTANCE = { name: 'Testteich', baseUrl: 'https://wiki.example.org', defaultLocale: 'en' };

function fieldPaths(body: { error: { details: { fields: { path: string }[] } } }): string[] {
  return body.error.details.fields.map((field) => field.path).sort();
}

async function createSetupAdmin(instance: TestInstance): Promise<TestClient> {
  const admin = new TestClient(instance.baseUrl);
  const response = await admin.post('/setup/admin', ADMIN);
  assert.equal(response.status, 201, response.text);
  return admin;
}

describe('setup pending', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  test('GET /setup reports nothing done and no SMTP', async () => {
    const response = await new TestClient(instance.baseUrl).get('/setup');
    assert.equal(response.status, 200);
    assert.equal(response.body.completed, false);
    assert.equal(response.body.completedAt, null);
    assert.deepEqual(response.body.steps, { admin: false, instance: false, smtp: false, registration: false });
    assert.equal(response.body.smtpConfigured, false);
    assert.equal(response.body.smtpSkipped, false);
  });

  test('non-exempt routes answer 503 setup_required', async () => {
    const client = new TestClient(instance.baseUrl);
    for (const [method, path] of [['GET', '/users/me'], ['GET', '/ponds'], ['GET', '/admin/settings'], ['PATCH', '/admin/settings']] as const) {
      const response = await client.request(method, path, method === 'PATCH' ? { body: { 'trash.retentionDays': 5 } } : {});
      assert.equal(response.status, 503, `${method} ${path}`);
      assert.equal(response.body.error.code, 'setup_required', `${method} ${path}`);
    }
  });

  test('health probes, the session route and GET /setup stay reachable', async () => {
    const client = new TestClient(instance.baseUrl);
    assert.equal((await client.get('/readyz')).status, 200);
    assert.equal((await client.get('/healthz')).status, 200);
    const session = await client.get('/auth/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.user, null);
    assert.equal((await client.get('/setup')).status, 200);
  });

  test('a deploy-level SMTP fallback counts as configured, the step itself stays open', async () => {
    await instance.close();
    instance = await startTestInstance({ env: { SMTP_HOST: 'mail.example.org', SMTP_FROM: 'wiki@example.org' } });
    const response = await new TestClient(instance.baseUrl).get('/setup');
    assert.equal(response.body.smtpConfigured, true);
    assert.equal(response.body.steps.smtp, false);
  });
});

describe('POST /setup/admin', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
  });
  after(() => instance.close());

  test('rejects a short password and a bad e-mail, naming both fields, and creates nobody', async () => {
    const response = await new TestClient(instance.baseUrl).post('/setup/admin', { ...ADMIN, password: 'short', email: 'not-an-address' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(fieldPaths(response.body), ['email', 'password']);
    assert.equal(await User.count(), 0);
  });

  test('creates an active Site Admin with a personal pond and signs the creator in', async () => {
    const admin = new TestClient(instance.baseUrl);
    const response = await admin.post('/setup/admin', ADMIN);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.user.username, ADMIN.username);
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('dt_session='));
    assert.ok(cookie, 'session cookie set');
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);

    const user = await User.findOne({ where: { username: ADMIN.username } });
    assert.ok(user);
    assert.equal(user.isSiteAdmin, true);
    assert.equal(user.status, 'ACTIVE');
    assert.notEqual(user.emailVerifiedAt, null);
    const pond = await Pond.findOne({ where: { ownerId: user.id } });
    assert.equal(pond?.kind, 'personal');
    const grants = await Grant.findAll({ where: { pondId: pond!.id } });
    assert.deepEqual(
      grants.map((grant) => [grant.subjectUserId, grant.role, grant.scopeType, grant.effect]),
      [[user.id, 'pond_admin', 'pond', 'allow']],
    );

    const session = await admin.get('/auth/session');
    assert.equal(session.body.user.id, user.id);
    assert.equal((await admin.get('/setup')).body.steps.admin, true);
  });

  test('a second admin is refused with 409 setup_admin_exists', async () => {
    const response = await new TestClient(instance.baseUrl).post('/setup/admin', { ...ADMIN, username: 'other', email: 'other@example.org' });
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'setup_admin_exists');
    assert.equal(await User.count(), 1);
  });

  test('two concurrent calls create exactly one admin', async () => {
    await instance.close();
    instance = await startTestInstance();
    const [first, second] = await Promise.all([
      new TestClient(instance.baseUrl).post('/setup/admin', { ...ADMIN, username: 'first', email: 'first@example.org' }),
      new TestClient(instance.baseUrl).post('/setup/admin', { ...ADMIN, username: 'second', email: 'second@example.org' }),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [201, 409]);
    assert.equal(await User.count(), 1);
    assert.equal(await Pond.count(), 1);
  });
});

describe('later setup steps', () => {
  let instance: TestInstance;
  let admin: TestClient;
  before(async () => {
    instance = await startTestInstance();
    admin = await createSetupAdmin(instance);
  });
  after(() => instance.close());

  test('need a session: 401 unauthenticated', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    for (const [path, body] of [['/setup/instance', INSTANCE], ['/setup/smtp', {}], ['/setup/smtp/skip', undefined], ['/setup/registration', { mode: 'open' }], ['/setup/complete', undefined]] as const) {
      const response = await anonymous.post(path, body);
      assert.equal(response.status, 401, path);
      assert.equal(response.body.error.code, 'unauthenticated', path);
    }
  });

  test('/setup/instance rejects an unknown locale and a bad base URL', async () => {
    const response = await admin.post('/setup/instance', { name: 'X', baseUrl: 'ftp://wiki.example.org', defaultLocale: 'fr' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    assert.deepEqual(fieldPaths(response.body), ['baseUrl', 'defaultLocale']);
    assert.equal((await admin.get('/setup')).body.steps.instance, false);
  });

  test('/setup/complete before the instance step is 409 setup_incomplete naming it', async () => {
    const response = await admin.post('/setup/complete');
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'setup_incomplete');
    assert.deepEqual(response.body.error.details.missing, ['instance']);
    assert.equal(await Setting.count({ where: { key: 'setup.completedAt' } }), 0);
  });

  test('/setup/instance saves name, base URL origin and default locale', async () => {
    const response = await admin.post('/setup/instance', { name: 'Dorfwiki', baseUrl: 'https://wiki.example.org/some/path', defaultLocale: 'de' });
    assert.equal(response.status, 200, response.text);
    const state = (await admin.get('/setup')).body;
    assert.equal(state.steps.instance, true);
    assert.deepEqual(state.instance, { name: 'Dorfwiki', baseUrl: 'https://wiki.example.org', defaultLocale: 'de' });
  });

  test('/setup/registration validates and saves open and closed', async () => {
    const bad = await admin.post('/setup/registration', { mode: 'sometimes' });
    assert.equal(bad.status, 400);
    assert.deepEqual(fieldPaths(bad.body), ['mode']);
    assert.equal((await admin.post('/setup/registration', { mode: 'closed' })).status, 200);
    assert.equal((await admin.get('/setup')).body.registrationMode, 'closed');
    assert.equal((await admin.post('/setup/registration', { mode: 'open' })).status, 200);
    const state = (await admin.get('/setup')).body;
    assert.equal(state.registrationMode, 'open');
    assert.equal(state.steps.registration, true);
  });

  test('a signed-in user who is not the setup admin gets 403 forbidden', async () => {
    const { client } = await createVerifiedUser(instance);
    const response = await client.post('/setup/registration', { mode: 'closed' });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, 'forbidden');
    assert.equal((await admin.get('/setup')).body.registrationMode, 'open');
  });
});

describe('POST /setup/smtp', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let smtp: SmtpTestServer;
  const smtpBody = (port: number) => ({ host: '127.0.0.1', port, secure: false, username: 'relay-user', password: 'relay-secret-pw', from: 'wiki@example.org', testRecipient: 'ops@example.org' });

  before(async () => {
    instance = await startTestInstance();
    admin = await createSetupAdmin(instance);
    assert.equal((await admin.post('/setup/instance', { ...INSTANCE, name: 'Smtpteich' })).status, 200);
    smtp = await startSmtpTestServer();
  });
  after(async () => {
    await smtp.close();
    await instance.close();
  });

  test('rejects an incomplete body, naming the fields', async () => {
    const response = await admin.post('/setup/smtp', { host: '', port: 'x', secure: false, from: 'wiki@example.org', testRecipient: 'nope' });
    assert.equal(response.status, 400);
    assert.deepEqual(fieldPaths(response.body), ['host', 'port', 'testRecipient']);
  });

  /**
   * Several of these reach 127.0.0.1 if handed to the resolver (dns.lookup maps them through
   * IDNA, getaddrinfo reads numbers), so a watching relay there would see them connect.
   */
  const HOSTS_THAT_ARE_NO_HOST = [
    '127.0.0.1\uFFFD',
    'mail.\uFFFDexample.org',
    '127.0.0.1\u200B',
    '127.0.0.1\u00AD',
    '127.0\uFEFF.0.1',
    '\uFF11\uFF12\uFF17.0.0.1',
    '127\u30020\u30020\u30021',
    '127.0.0.1\u0001',
    'mail.example.org\r\nRCPT TO:<x@example.org>',
    'mail example.org',
    '127.0.0.1 x',
    '127.1',
    '2130706433',
    '0x7f000001',
    '127.0.0.01',
    '[::1]',
    'fe80::1%eth0',
    '127.0.0.1:25',
    'smtp://127.0.0.1',
    '-mail.example.org',
    'mail..example.org',
    `${'a'.repeat(64)}.example.org`,
  ];

  test('a host that is no host name or IP address is 400 at the field, before any connection or lookup', async () => {
    const watching = await startSmtpTestServer();
    const failedTests = await AuditEntry.count({ where: { action: 'setup.smtp_test_failed' } });
    try {
      for (const host of HOSTS_THAT_ARE_NO_HOST) {
        const response = await admin.post('/setup/smtp', { ...smtpBody(watching.port), host }, { headers: { 'accept-language': 'de' } });
        assert.equal(response.status, 400, `${JSON.stringify(host)}: ${response.text}`);
        assert.equal(response.body.error.code, 'validation_failed');
        assert.deepEqual(response.body.error.details.fields, [{ path: 'host', code: 'invalid_host', message: 'Gib den Hostnamen (etwa mail.example.org) oder die IP-Adresse des Mailservers an, ohne Port und ohne Leer- oder Sonderzeichen.' }], JSON.stringify(host));
      }
      assert.equal(watching.connections, 0);
      assert.equal(watching.messages.length, 0);
    } finally {
      await watching.close();
    }
    // The route never reached the transport: a failed test would have been audited.
    assert.equal(await AuditEntry.count({ where: { action: 'setup.smtp_test_failed' } }), failedTests);
    assert.equal(await Setting.count({ where: { key: 'smtp.settings' } }), 0);
  });

  test('the refusal is worded in English too', async () => {
    const response = await admin.post('/setup/smtp', { ...smtpBody(smtp.port), host: 'mail example.org' }, { headers: { 'accept-language': 'en' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.details.fields[0].message, 'Enter the mail server\'s host name (such as mail.example.org) or IP address, without a port and without spaces or special characters.');
  });

  test('a refused connection is 422 smtp_test_failed with the transport error, and nothing is saved', async () => {
    const response = await admin.post('/setup/smtp', smtpBody(await closedPort()));
    assert.equal(response.status, 422);
    assert.equal(response.body.error.code, 'smtp_test_failed');
    assert.match(response.body.error.details.message, /ECONNREFUSED/);
    const state = (await admin.get('/setup')).body;
    assert.equal(state.steps.smtp, false);
    assert.equal(state.smtpConfigured, false);
    assert.equal(await Setting.count({ where: { key: 'smtp.settings' } }), 0);
  });

  test('a rejected recipient is 422 with the server message and response code, and nothing is saved', async () => {
    const rejecting = await startSmtpTestServer({ rejectRecipients: true });
    try {
      const response = await admin.post('/setup/smtp', smtpBody(rejecting.port));
      assert.equal(response.status, 422);
      assert.equal(response.body.error.code, 'smtp_test_failed');
      assert.match(response.body.error.details.message, /Mailbox ops@example\.org unavailable/);
      assert.equal(response.body.error.details.responseCode, 550);
      assert.equal(rejecting.messages.length, 0);
    } finally {
      await rejecting.close();
    }
    assert.equal((await admin.get('/setup')).body.smtpConfigured, false);
    assert.equal(await Setting.count({ where: { key: 'smtp.settings' } }), 0);
  });

  test('a working relay gets the test mail (in the caller\'s language) and the settings are saved', async () => {
    const response = await admin.post('/setup/smtp', smtpBody(smtp.port), { headers: { 'accept-language': 'de' } });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { smtpConfigured: true });
    assert.equal(smtp.messages.length, 1);
    const [mail] = smtp.messages;
    assert.deepEqual(mail!.to, ['ops@example.org']);
    assert.equal(mail!.from, 'wiki@example.org');
    assert.equal(mail!.username, 'relay-user');
    assert.equal(subjectOf(mail!.raw), 'Test-E-Mail von Smtpteich');
    const state = (await admin.get('/setup')).body;
    assert.equal(state.steps.smtp, true);
    assert.equal(state.smtpConfigured, true);
    const saved = await Setting.findByPk('smtp.settings');
    assert.deepEqual(saved?.value, { host: '127.0.0.1', port: smtp.port, secure: false, username: 'relay-user', password: 'relay-secret-pw', from: 'wiki@example.org' });
  });

  test('a host name (trimmed) still reaches the relay and is saved as given', async () => {
    const named = await startSmtpTestServer();
    try {
      const response = await admin.post('/setup/smtp', { ...smtpBody(named.port), host: ' localhost ' });
      assert.equal(response.status, 200, response.text);
      assert.equal(named.messages.length, 1);
    } finally {
      await named.close();
    }
    assert.equal(((await Setting.findByPk('smtp.settings'))?.value as { host: string }).host, 'localhost');
  });
});

describe('POST /setup/smtp/skip', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let smtp: SmtpTestServer;

  before(async () => {
    instance = await startTestInstance();
    admin = await createSetupAdmin(instance);
    assert.equal((await admin.post('/setup/instance', INSTANCE)).status, 200);
    smtp = await startSmtpTestServer();
  });
  after(async () => {
    await smtp.close();
    await instance.close();
  });

  test('a signed-in user who is not the setup admin gets 403 forbidden and skips nothing', async () => {
    assert.equal((await admin.post('/setup/registration', { mode: 'open' })).status, 200);
    const { client } = await createVerifiedUser(instance);
    const response = await client.post('/setup/smtp/skip');
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, 'forbidden');
    assert.equal((await client.get('/setup')).body.smtpSkipped, false);
  });

  test('a skipped mail step is saved: GET /setup says so to any later visit, and the skip is audited', async () => {
    const response = await admin.post('/setup/smtp/skip');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { smtpSkipped: true });
    // A reload, or another browser of the same admin: the state comes from the server.
    const state = (await new TestClient(instance.baseUrl).get('/setup')).body;
    assert.equal(state.smtpSkipped, true);
    assert.equal(state.steps.smtp, false, 'skipping saves no relay');
    assert.equal(state.smtpConfigured, false);
    assert.ok(await AuditEntry.findOne({ where: { action: 'setup.smtp_skipped' } }));
  });

  test('saving a relay afterwards clears the skip', async () => {
    assert.equal((await admin.post('/setup/smtp/skip')).status, 200);
    const saved = await admin.post('/setup/smtp', { host: '127.0.0.1', port: smtp.port, secure: false, from: 'wiki@example.org', testRecipient: 'ops@example.org' });
    assert.equal(saved.status, 200, saved.text);
    const state = (await admin.get('/setup')).body;
    assert.equal(state.smtpSkipped, false);
    assert.equal(state.steps.smtp, true);
    assert.equal(state.smtpConfigured, true);
  });
});

describe('completing setup', () => {
  let instance: TestInstance;
  let admin: TestClient;
  before(async () => {
    instance = await startTestInstance();
    admin = await createSetupAdmin(instance);
    assert.equal((await admin.post('/setup/instance', INSTANCE)).status, 200);
  });
  after(() => instance.close());

  test('POST /setup/complete sets the completion marker', async () => {
    const response = await admin.post('/setup/complete');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.completed, true);
    assert.ok(!Number.isNaN(Date.parse(response.body.completedAt)));
    const state = (await admin.get('/setup')).body;
    assert.equal(state.completed, true);
    assert.equal(state.completedAt, response.body.completedAt);
    assert.equal((await Setting.findByPk('setup.completedAt'))?.value, response.body.completedAt);
  });

  const steps = [
    ['/setup/admin', { ...ADMIN, username: 'late', email: 'late@example.org' }],
    ['/setup/admin', {}],
    ['/setup/instance', INSTANCE],
    ['/setup/smtp', { host: '127.0.0.1', port: 25, secure: false, from: 'wiki@example.org', testRecipient: 'ops@example.org' }],
    ['/setup/smtp/skip', undefined],
    ['/setup/registration', { mode: 'open' }],
    ['/setup/complete', undefined],
  ] as const;

  test('afterwards every step answers 410 setup_completed to the admin', async () => {
    for (const [path, body] of steps) {
      const response = await admin.post(path, body);
      assert.equal(response.status, 410, `${path} ${JSON.stringify(body)}`);
      assert.equal(response.body.error.code, 'setup_completed', path);
    }
  });

  test('afterwards every step answers 410 setup_completed to anonymous callers', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    for (const [path, body] of steps) {
      const response = await anonymous.post(path, body);
      assert.equal(response.status, 410, `${path} ${JSON.stringify(body)}`);
      assert.equal(response.body.error.code, 'setup_completed', path);
    }
    assert.equal(await User.count(), 1);
    assert.equal((await admin.get('/setup')).body.registrationMode, 'closed');
  });

  test('non-exempt routes work once setup is complete', async () => {
    const me = await admin.get('/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.username, ADMIN.username);
    const ponds = await admin.get('/ponds');
    assert.equal(ponds.status, 200);
    assert.deepEqual(ponds.body.items.map((pond: { kind: string }) => pond.kind), ['personal']);
    assert.equal((await admin.get('/admin/settings')).status, 200);
  });
});
