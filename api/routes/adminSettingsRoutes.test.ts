/**
 * `GET` and `PATCH /admin/settings`: access, per-key validation, unknown and locked keys,
 * the audit entry, the write-only SMTP password, and that a saved value takes effect.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuditEntry, Setting } from '../models/index.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { resolveQuota } from '../quotas/quotaLadder.ts';

describe('/admin/settings', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
  });
  after(() => instance.close());

  async function currentSettings(): Promise<Record<string, unknown>> {
    const response = await admin.get('/admin/settings');
    assert.equal(response.status, 200);
    return response.body;
  }

  test('anonymous callers get 401 unauthenticated', async () => {
    const anonymous = new TestClient(instance.baseUrl);
    for (const response of [await anonymous.get('/admin/settings'), await anonymous.patch('/admin/settings', { 'api.enabled': true })]) {
      assert.equal(response.status, 401);
      assert.equal(response.body.error.code, 'unauthenticated');
    }
    assert.equal(await Setting.count({ where: { key: 'api.enabled' } }), 0);
  });

  test('a signed-in user who is not Site Admin gets 403 forbidden', async () => {
    const { client } = await createVerifiedUser(instance);
    for (const response of [await client.get('/admin/settings'), await client.patch('/admin/settings', { 'api.enabled': true })]) {
      assert.equal(response.status, 403);
      assert.equal(response.body.error.code, 'forbidden');
    }
    assert.equal((await currentSettings())['api.enabled'], false);
  });

  test('GET lists every key with its default filled in', async () => {
    const settings = await currentSettings();
    assert.equal(settings['trash.retentionDays'], 30);
    assert.equal(settings['conversion.payloadRetentionDays'], 30);
    assert.equal(settings['upload.svgPolicy'], 'sanitize');
    assert.equal(settings['api.enabled'], false);
    assert.equal(settings['mcp.enabled'], false);
    assert.equal(settings['instance.name'], 'Testteich');
    assert.equal(settings['registration.mode'], 'open');
    assert.ok(Array.isArray(settings['upload.allowedExtensions']));
  });

  const invalidValues: [string, unknown, string][] = [
    ['trash.retentionDays', 0, 'trash.retentionDays'],
    ['conversion.payloadRetentionDays', 1.5, 'conversion.payloadRetentionDays'],
    ['upload.allowedExtensions', ['.PDF'], 'upload.allowedExtensions.0'],
    ['upload.allowedExtensions', 'pdf', 'upload.allowedExtensions'],
    ['upload.svgPolicy', 'allow', 'upload.svgPolicy'],
    ['api.enabled', 'yes', 'api.enabled'],
    ['mcp.enabled', 1, 'mcp.enabled'],
    ['registration.mode', 'invite', 'registration.mode'],
    ['instance.name', '', 'instance.name'],
    ['instance.defaultLocale', 'fr', 'instance.defaultLocale'],
    ['instance.baseUrl', 'javascript:alert(1)', 'instance.baseUrl'],
    ['home.content', 42, 'home.content'],
    ['legal.imprint', 'x'.repeat(200_001), 'legal.imprint'],
    ['quota.storage_bytes', -1, 'quota.storage_bytes'],
  ];
  for (const [key, value, path] of invalidValues) {
    test(`${key} = ${JSON.stringify(value).slice(0, 20)} is 400 validation_failed naming ${path}`, async () => {
      const before = (await currentSettings())[key];
      const response = await admin.patch('/admin/settings', { [key]: value });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, 'validation_failed');
      assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), [path]);
      assert.deepEqual((await currentSettings())[key], before);
    });
  }

  test('one bad key rejects the whole patch, every bad key named', async () => {
    const response = await admin.patch('/admin/settings', { 'trash.retentionDays': 7, 'upload.svgPolicy': 'allow', 'api.enabled': 'no' });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path).sort(), ['api.enabled', 'upload.svgPolicy']);
    assert.equal((await currentSettings())['trash.retentionDays'], 30);
  });

  test('an unknown key is 400 unknown_setting naming it, and nothing is saved', async () => {
    const response = await admin.patch('/admin/settings', { 'trash.retentionDays': 9, 'trash.retentionDayz': 9 });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'unknown_setting');
    assert.deepEqual(response.body.error.details.keys, ['trash.retentionDayz']);
    assert.equal((await currentSettings())['trash.retentionDays'], 30);
  });

  test('an empty patch is 400 validation_failed', async () => {
    const response = await admin.patch('/admin/settings', {});
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
  });

  test('setup.completedAt cannot be changed or removed: 400 setting_locked, value unchanged', async () => {
    const completedAt = (await currentSettings())['setup.completedAt'];
    assert.equal(typeof completedAt, 'string');
    for (const value of ['2001-01-01T00:00:00.000Z', null]) {
      const response = await admin.patch('/admin/settings', { 'setup.completedAt': value });
      assert.equal(response.status, 400, JSON.stringify(value));
      assert.equal(response.body.error.code, 'setting_locked');
      assert.deepEqual(response.body.error.details.keys, ['setup.completedAt']);
    }
    assert.equal((await currentSettings())['setup.completedAt'], completedAt);
    assert.equal((await Setting.findByPk('setup.completedAt'))?.value, completedAt);
    assert.equal((await new TestClient(instance.baseUrl).get('/setup')).body.completed, true);
  });

  test('the other wizard-owned keys are locked too', async () => {
    for (const key of ['setup.adminId', 'smtp.settings', 'setup.instanceSavedAt']) {
      const response = await admin.patch('/admin/settings', { [key]: null });
      assert.equal(response.status, 400, key);
      assert.equal(response.body.error.code, 'setting_locked', key);
    }
    assert.equal((await Setting.findByPk('setup.adminId'))?.value, adminId);
  });

  test('good values are saved, returned by PATCH and GET, and attributed to the admin', async () => {
    const changes = {
      'trash.retentionDays': 14,
      'conversion.payloadRetentionDays': 60,
      'upload.allowedExtensions': ['pdf', 'odt'],
      'upload.svgPolicy': 'reject',
      'api.enabled': true,
      'mcp.enabled': true,
      'home.content': '# Willkommen',
      'legal.privacy': 'Privacy text',
      'quota.storage_bytes': null,
      'quota.max_file_bytes': 1024,
    };
    const response = await admin.patch('/admin/settings', changes);
    assert.equal(response.status, 200, response.text);
    const settings = await currentSettings();
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) continue;
      assert.deepEqual(response.body[key], value, key);
      assert.deepEqual(settings[key], value, key);
    }
    const row = await Setting.findByPk('trash.retentionDays');
    assert.equal(row?.updatedBy, adminId);
  });

  test('null resets a key to its default', async () => {
    assert.equal((await admin.patch('/admin/settings', { 'trash.retentionDays': 3 })).status, 200);
    const response = await admin.patch('/admin/settings', { 'trash.retentionDays': null });
    assert.equal(response.status, 200);
    assert.equal(response.body['trash.retentionDays'], 30);
    assert.equal(await Setting.count({ where: { key: 'trash.retentionDays' } }), 0);
  });

  test('a default quota set to null is unlimited, stored as such, and the quota ladder reads it; its default number brings the default back', async () => {
    const response = await admin.patch('/admin/settings', { 'quota.readers_per_pond': null, 'quota.storage_bytes': null });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body['quota.readers_per_pond'], null);
    assert.equal(response.body['quota.storage_bytes'], null);
    assert.equal((await admin.get('/admin/settings')).body['quota.readers_per_pond'], null);
    assert.equal(await Setting.count({ where: { key: 'quota.readers_per_pond' } }), 1, 'stored, not reset');
    assert.deepEqual(await resolveQuota('storage_bytes', { pondId: null, userId: null }), { limit: null, source: 'instance' });
    const back = await admin.patch('/admin/settings', { 'quota.readers_per_pond': 1000, 'quota.storage_bytes': 5 * 1024 ** 3 });
    assert.equal(back.body['quota.readers_per_pond'], 1000);
    assert.deepEqual(await resolveQuota('storage_bytes', { pondId: null, userId: null }), { limit: 5 * 1024 ** 3, source: 'instance' });
  });

  test('a change is audited as settings.changed with the actor; long texts by length only', async () => {
    const longText = 'Impressum '.repeat(50);
    assert.equal((await admin.patch('/admin/settings', { 'upload.svgPolicy': 'sanitize', 'legal.imprint': longText })).status, 200);
    const entry = await AuditEntry.findOne({ where: { action: 'settings.changed' }, order: [['id', 'DESC']] });
    assert.ok(entry);
    assert.equal(entry.actorId, adminId);
    assert.equal(entry.actorName, 'admin');
    assert.deepEqual(entry.details, { changes: { 'upload.svgPolicy': 'sanitize', 'legal.imprint': `[${longText.length} characters]` } });
  });

  test('a refused patch writes no audit entry', async () => {
    const count = await AuditEntry.count({ where: { action: 'settings.changed' } });
    assert.equal((await admin.patch('/admin/settings', { 'trash.retentionDays': -5 })).status, 400);
    assert.equal((await admin.patch('/admin/settings', { 'no.such': 1 })).status, 400);
    assert.equal(await AuditEntry.count({ where: { action: 'settings.changed' } }), count);
  });

  test('the SMTP password is never returned', async () => {
    const password = 'smtp-password-never-shown';
    await instance.services.sequelize.transaction((transaction) =>
      setSetting('smtp.settings', { host: 'mail.example.org', port: 587, secure: false, username: 'relay', password, from: 'wiki@example.org' }, { actorId: adminId, transaction }),
    );
    const read = await admin.get('/admin/settings');
    assert.ok(!read.text.includes(password));
    assert.deepEqual(read.body['smtp.settings'], { host: 'mail.example.org', port: 587, secure: false, username: 'relay', from: 'wiki@example.org', passwordSet: true });
    const written = await admin.patch('/admin/settings', { 'api.enabled': false });
    assert.equal(written.status, 200);
    assert.ok(!written.text.includes(password));
  });

  test('registration.mode takes effect on signup', async () => {
    const signup = (n: number) =>
      new TestClient(instance.baseUrl).post('/auth/signup', { username: `newcomer${n}`, email: `newcomer${n}@example.org`, password: 'a long enough password' });
    assert.equal((await admin.patch('/admin/settings', { 'registration.mode': 'closed' })).status, 200);
    const refused = await signup(1);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'registration_closed');
    assert.equal((await admin.patch('/admin/settings', { 'registration.mode': 'open' })).status, 200);
    assert.equal((await signup(2)).status, 201);
  });
});
