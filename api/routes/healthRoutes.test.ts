/**
 * Liveness and readiness through HTTP: the healthy shape, a pending migration, a database
 * that cannot be reached.
 *
 * Not covered: an overall `degraded` status. Every warning-level check (converter, renderer,
 * backup, backup_remote) reports `not_configured` until its component exists, so no real
 * state can produce a warning yet; the issue that builds each component adds that case.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../app.ts';
import { createSequelize } from '../db/database.ts';
import { migrations } from '../db/migrations/index.ts';
import { TestClient } from '../testing/testClient.ts';
import { createTestDatabase } from '../testing/testDatabase.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const NOT_CONFIGURED = { status: 'not_configured' };

describe('health probes', () => {
  let instance: TestInstance;
  let client: TestClient;
  before(async () => {
    instance = await startTestInstance();
    client = new TestClient(instance.baseUrl);
  });
  after(() => instance.close());

  test('GET /healthz answers 200 ok', async () => {
    const response = await client.get('/healthz');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok' });
  });

  test('GET /readyz is ok with hard checks ok and absent components not_configured', async () => {
    const response = await client.get('/readyz');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(response.body, {
      status: 'ok',
      checks: {
        database: { status: 'ok' },
        migrations: { status: 'ok' },
        converter: NOT_CONFIGURED,
        renderer: NOT_CONFIGURED,
        backup: NOT_CONFIGURED,
        backup_remote: NOT_CONFIGURED,
      },
    });
  });

  test('probes ignore session cookies: a bogus one is neither checked nor cleared', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await client.get(path, { headers: { cookie: 'dt_session=bogus.token' } });
      assert.equal(response.status, 200, path);
      assert.deepEqual(response.headers.getSetCookie(), [], path);
    }
  });

  test('a pending migration makes /readyz 503 failing, naming the migration', async () => {
    const latest = migrations.at(-1)!.name;
    await instance.services.sequelize.query('DELETE FROM schema_migrations WHERE name = :latest', { replacements: { latest } });
    try {
      const response = await client.get('/readyz');
      assert.equal(response.status, 503);
      assert.equal(response.body.status, 'failing');
      assert.equal(response.body.checks.migrations.status, 'failing');
      assert.deepEqual(response.body.checks.migrations.details, { pending: [latest] });
      assert.deepEqual(response.body.checks.database, { status: 'ok' });
      assert.deepEqual(response.body.checks.converter, NOT_CONFIGURED);
    } finally {
      await instance.services.sequelize.query('INSERT INTO schema_migrations (name) VALUES (:latest)', { replacements: { latest } });
    }
    assert.equal((await client.get('/readyz')).status, 200);
  });

  test('an unreachable database makes /readyz 503 failing while /healthz stays 200', async () => {
    // A second app on the same services but a database that no longer exists. (Dropping the
    // instance's own database under its live pool would also race pg's connection handling.)
    const gone = await createTestDatabase();
    await gone.drop();
    const sequelize = createSequelize(gone.url, { poolMax: 2 });
    const server = createServer(await createApp({ ...instance.services, sequelize }, { site: false }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const deadClient = new TestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const response = await deadClient.get('/readyz');
      assert.equal(response.status, 503);
      assert.equal(response.body.status, 'failing');
      assert.equal(response.body.checks.database.status, 'failing');
      assert.match(response.body.checks.database.message, /does not exist/);
      assert.equal(response.body.checks.migrations.status, 'failing');
      assert.deepEqual(response.body.checks.backup, NOT_CONFIGURED);
      assert.equal((await deadClient.get('/healthz')).status, 200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sequelize.close();
    }
    assert.equal((await client.get('/readyz')).status, 200, 'the real instance is unaffected');
  });
});
