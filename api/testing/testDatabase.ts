/**
 * A fresh database per test instance, cloned from the migrated template that the global
 * test setup built (cloning takes milliseconds; migrating would take seconds).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const TEMPLATE_DATABASE = 'dt_template';

function serverUrl(): string {
  const url = process.env.DT_TEST_DATABASE_URL;
  if (!url) throw new Error('DT_TEST_DATABASE_URL is not set: run tests through `npm test` (it starts the test Postgres)');
  return url;
}

export function databaseUrlFor(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrlFor(name),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await client.end();
    },
  };
}
