/**
 * The audit log: every setup step leaves an entry with its actor, secrets never reach it,
 * an entry exists exactly when its change does, and the table refuses edits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { AuditEntry, User } from '../models/index.ts';
import { ADMIN } from '../testing/fixtures.ts';
import { closedPort, startSmtpTestServer } from '../testing/smtpTestServer.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { recordAudit } from './auditLog.ts';
// Probe actions outside the catalogue: recordAudit itself stores whatever action it is handed.
import type { AuditAction } from './auditActions.ts';

const SMTP_PASSWORD = 'relay-secret-never-audited';

describe('audit log', () => {
  let instance: TestInstance;
  let adminId: string;

  before(async () => {
    instance = await startTestInstance();
    const admin = new TestClient(instance.baseUrl);
    const smtp = await startSmtpTestServer();
    try {
      const smtpBody = { host: '127.0.0.1', secure: false, username: 'relay', password: SMTP_PASSWORD, from: 'wiki@example.org', testRecipient: 'ops@example.org' };
      assert.equal((await admin.post('/setup/admin', ADMIN)).status, 201);
      // Refused steps must not be audited as saved.
      assert.equal((await admin.post('/setup/instance', { name: 'Teich', baseUrl: 'nope', defaultLocale: 'en' })).status, 400);
      assert.equal((await admin.post('/setup/instance', { name: 'Teich', baseUrl: instance.baseUrl, defaultLocale: 'en' })).status, 200);
      assert.equal((await admin.post('/setup/smtp', { ...smtpBody, port: await closedPort() })).status, 422);
      assert.equal((await admin.post('/setup/smtp', { ...smtpBody, port: smtp.port })).status, 200);
      assert.equal((await admin.post('/setup/registration', { mode: 'closed' })).status, 200);
      assert.equal((await admin.post('/setup/complete')).status, 200);
    } finally {
      await smtp.close();
    }
    adminId = (await User.findOne({ where: { username: ADMIN.username } }))!.id;
  });
  after(() => instance.close());

  test('each setup step is recorded once, in order, with the setup admin as actor', async () => {
    const entries = await AuditEntry.findAll({ order: [['id', 'ASC']] });
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.actorId, entry.actorName]),
      [
        ['setup.admin_created', adminId, 'admin'],
        ['setup.instance_saved', adminId, 'admin'],
        ['setup.smtp_test_failed', adminId, 'admin'],
        ['setup.smtp_saved', adminId, 'admin'],
        ['setup.registration_saved', adminId, 'admin'],
        ['setup.completed', adminId, 'admin'],
      ],
    );
    for (const entry of entries) {
      assert.ok(entry.ip, `${entry.action} records the client address`);
      assert.ok(entry.createdAt instanceof Date);
    }
  });

  test('entries carry what was set', async () => {
    const details = async (action: string) => (await AuditEntry.findOne({ where: { action } }))?.details;
    assert.deepEqual(await details('setup.admin_created'), { username: ADMIN.username, email: ADMIN.email });
    assert.deepEqual(await details('setup.instance_saved'), { name: 'Teich', baseUrl: instance.baseUrl, defaultLocale: 'en' });
    assert.deepEqual(await details('setup.registration_saved'), { mode: 'closed' });
    const failed = await details('setup.smtp_test_failed');
    assert.equal(failed?.host, '127.0.0.1');
    assert.match(String(failed?.error), /ECONNREFUSED/);
    const saved = await details('setup.smtp_saved');
    assert.equal(saved?.username, 'relay');
    assert.equal(saved?.from, 'wiki@example.org');
  });

  test('no password appears in any audit entry', async () => {
    const rows = await instance.services.sequelize.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM audit_entries a', { type: QueryTypes.SELECT });
    assert.equal(rows.length, 6);
    for (const { row } of rows) {
      assert.ok(!row.includes(SMTP_PASSWORD), row);
      assert.ok(!row.includes(ADMIN.password), row);
    }
  });

  test('an UPDATE of an entry is refused by the database', async () => {
    await assert.rejects(
      instance.services.sequelize.query(`UPDATE audit_entries SET action = 'setup.forged' WHERE action = 'setup.completed'`),
      /append-only/,
    );
    assert.equal(await AuditEntry.count({ where: { action: 'setup.completed' } }), 1);
  });

  test('a DELETE of an entry is refused by the database', async () => {
    await assert.rejects(instance.services.sequelize.query('DELETE FROM audit_entries'), /append-only/);
    assert.equal(await AuditEntry.count(), 6);
  });

  test('TRUNCATE is refused as well', async () => {
    // Run in a transaction that always rolls back, so the entries survive for the other tests.
    let truncateError: unknown = null;
    await instance.services.sequelize
      .transaction(async (transaction) => {
        truncateError = await instance.services.sequelize.query('TRUNCATE audit_entries', { transaction }).then(() => null, (error: unknown) => error);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    assert.match(String(truncateError), /append-only/);
  });

  test('recordAudit inside a transaction that rolls back leaves no entry', async () => {
    await assert.rejects(
      instance.services.sequelize.transaction(async (transaction) => {
        await recordAudit({ actor: { id: adminId, name: 'admin' }, action: 'test.rolled_back' as AuditAction }, transaction);
        throw new Error('change failed');
      }),
      /change failed/,
    );
    assert.equal(await AuditEntry.count({ where: { action: 'test.rolled_back' as AuditAction } }), 0);
  });

  test('recordAudit without actor or details stores nulls and an empty object', async () => {
    await recordAudit({ actor: null, action: 'test.system' as AuditAction });
    const entry = await AuditEntry.findOne({ where: { action: 'test.system' as AuditAction } });
    assert.ok(entry);
    assert.equal(entry.actorId, null);
    assert.equal(entry.actorName, null);
    assert.equal(entry.ip, null);
    assert.deepEqual(entry.details, {});
  });
});
