import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { databaseUrlFor } from '../testing/testDatabase.ts';
import { createSequelize } from './database.ts';
import { createMigrator, migrateToLatest, pendingMigrations } from './migrator.ts';
import { migrations } from './migrations/index.ts';

const name = `m_${randomBytes(6).toString('hex')}`;
const url = databaseUrlFor(name);

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.DT_TEST_DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

before(() => admin((client) => client.query(`CREATE DATABASE ${name}`)));
after(() => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));

test('two processes migrating an empty database at once apply each migration exactly once', async () => {
  const first = createSequelize(url, { poolMax: 2 });
  const second = createSequelize(url, { poolMax: 2 });
  try {
    assert.deepEqual(await pendingMigrations(first), migrations.map((migration) => migration.name));
    const [appliedByFirst, appliedBySecond] = await Promise.all([migrateToLatest(url, first), migrateToLatest(url, second)]);
    assert.deepEqual([...appliedByFirst, ...appliedBySecond].sort(), migrations.map((migration) => migration.name).sort());
    assert.deepEqual(await pendingMigrations(first), []);
    const rows = await first.query<{ name: string }>('SELECT name FROM schema_migrations', { type: QueryTypes.SELECT });
    assert.equal(rows.length, migrations.length);
  } finally {
    await first.close();
    await second.close();
  }
});

test('every migration can be reverted and applied again', async () => {
  const sequelize = createSequelize(url, { poolMax: 2 });
  try {
    await createMigrator(sequelize).down({ to: 0 });
    const tables = await sequelize.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`, { type: QueryTypes.SELECT });
    assert.deepEqual(tables, [], 'down leaves no tables behind');
    assert.equal((await pendingMigrations(sequelize)).length, migrations.length);
    await migrateToLatest(url, sequelize);
    assert.deepEqual(await pendingMigrations(sequelize), []);
  } finally {
    await sequelize.close();
  }
});
