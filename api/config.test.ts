import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, parseConfig } from './config.ts';

function withDataDir(run: (dataDir: string) => void): void {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-config-'));
  try {
    run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('defaults: port 3000, base URL on localhost, embedded Postgres', () => {
  withDataDir((dataDir) => {
    const config = parseConfig({ DATA_DIR: dataDir });
    assert.equal(config.port, 3000);
    assert.equal(config.baseUrl, 'http://localhost:3000');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.smtpFallback, null);
    assert.ok(Object.isFrozen(config));
  });
});

test('a bad variable stops start-up with a message naming it', () => {
  assert.throws(() => parseConfig({ PORT: 'eighty' }), (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message));
  assert.throws(() => parseConfig({ BASE_URL: 'ftp://example.org' }), /BASE_URL/);
  assert.throws(() => parseConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
  assert.throws(() => parseConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
  assert.throws(() => parseConfig({ SMTP_SECURE: 'maybe' }), /SMTP_SECURE/);
});

test('a missing SESSION_SECRET is generated once and persisted under DATA_DIR', () => {
  withDataDir((dataDir) => {
    const first = parseConfig({ DATA_DIR: dataDir });
    assert.ok(existsSync(path.join(dataDir, 'session-secret')));
    assert.equal(readFileSync(path.join(dataDir, 'session-secret'), 'utf8').trim(), first.sessionSecret);
    assert.equal(parseConfig({ DATA_DIR: dataDir }).sessionSecret, first.sessionSecret);
  });
});

test('the SMTP fallback needs a host and a sender', () => {
  withDataDir((dataDir) => {
    assert.equal(parseConfig({ DATA_DIR: dataDir, SMTP_HOST: 'mail.example.org' }).smtpFallback, null);
    const config = parseConfig({ DATA_DIR: dataDir, SMTP_HOST: 'mail.example.org', SMTP_FROM: 'wiki@example.org', SMTP_PORT: '465', SMTP_SECURE: 'true' });
    assert.deepEqual(config.smtpFallback, { host: 'mail.example.org', port: 465, secure: true, username: undefined, password: undefined, from: 'wiki@example.org' });
  });
});

test('BASE_URL is normalized to its origin', () => {
  withDataDir((dataDir) => {
    assert.equal(parseConfig({ DATA_DIR: dataDir, BASE_URL: 'https://wiki.example.org/' }).baseUrl, 'https://wiki.example.org');
  });
});
