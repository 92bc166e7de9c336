/**
 * Liveness and readiness through HTTP: the healthy shape, a pending migration, a database
 * that is gone or a server that does not answer (the public probe never repeats the driver's
 * error).
 *
 * Not covered: an overall `degraded` status. Every warning-level check (converter, renderer,
 * backup, backup_remote) reports `not_configured` until its component exists, so no real
 * state can produce a warning yet; the issue that builds each component adds that case.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../app.ts';
import { createSequelize } from '../db/database.ts';
import { migrations } from '../db/migrations/index.ts';
import { freePort } from '../testing/freePort.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
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

  /**
   * A second app on the same services but another database URL, logging into `lines`.
   * (Breaking the instance's own database under its live pool would race pg's connection handling.)
   */
  async function readyzAgainst(databaseUrl: string): Promise<{ readyz: TestResponse; healthz: TestResponse; logLines: string[] }> {
    const logLines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) });
    const sequelize = createSequelize(databaseUrl, { poolMax: 2 });
    const server = createServer(await createApp({ ...instance.services, sequelize, logger }, { site: false }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const deadClient = new TestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      return { readyz: await deadClient.get('/readyz'), healthz: await deadClient.get('/healthz'), logLines };
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sequelize.close();
    }
  }

  /** What a failing probe may say: our own words only, nothing of the driver's error. */
  const FAILING_DATABASE = {
    database: { status: 'failing', message: 'the database cannot be reached' },
    migrations: { status: 'failing', message: 'the applied migrations cannot be read' },
  };

  test('a database that no longer exists makes /readyz 503 failing, in our words, while /healthz stays 200', async () => {
    const gone = await createTestDatabase();
    await gone.drop();
    const { readyz, healthz, logLines } = await readyzAgainst(gone.url);
    assert.equal(readyz.status, 503);
    assert.deepEqual(readyz.body, { status: 'failing', checks: { ...FAILING_DATABASE, converter: NOT_CONFIGURED, renderer: NOT_CONFIGURED, backup: NOT_CONFIGURED, backup_remote: NOT_CONFIGURED } });
    for (const leak of [gone.name, 'does not exist', 'dorfteich', 'error']) assert.ok(!readyz.text.includes(leak), `the probe does not say "${leak}"`);
    assert.ok(logLines.some((line) => line.includes('readiness check failed') && line.includes('does not exist')), 'the driver error goes to the log');
    assert.equal(healthz.status, 200);
    assert.equal((await client.get('/readyz')).status, 200, 'the real instance is unaffected');
  });

  test('a database server that does not answer makes /readyz 503 failing without connection details', async () => {
    const url = new URL(String(instance.services.config.databaseUrl));
    url.port = String(await freePort());
    const { readyz, healthz } = await readyzAgainst(url.toString());
    assert.equal(readyz.status, 503);
    assert.equal(readyz.body.status, 'failing');
    assert.deepEqual({ database: readyz.body.checks.database, migrations: readyz.body.checks.migrations }, FAILING_DATABASE);
    for (const leak of ['ECONNREFUSED', '127.0.0.1', url.port, 'connect']) assert.ok(!readyz.text.includes(leak), `the probe does not say "${leak}"`);
    assert.equal(healthz.status, 200);
  });
});
