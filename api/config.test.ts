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

test('TRUST_PROXY: false by default (0, no and empty the same), a hop count, or a list of addresses and CIDRs', () => {
  withDataDir((dataDir) => {
    const trustProxy = (value?: string) => parseConfig({ DATA_DIR: dataDir, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).trustProxy;
    assert.equal(trustProxy(), false);
    for (const value of ['false', '0', 'no', '']) assert.equal(trustProxy(value), false, value);
    assert.equal(trustProxy('1'), 1);
    assert.equal(trustProxy('2'), 2);
    assert.deepEqual(trustProxy('10.0.0.1'), ['10.0.0.1']);
    assert.deepEqual(trustProxy(' 10.0.0.0/8, 192.168.1.2 ,fd00::/8,::1/128, 2001:DB8::1 '), ['10.0.0.0/8', '192.168.1.2', 'fd00::/8', '::1/128', '2001:db8::1']);
    assert.deepEqual(trustProxy('loopback,uniquelocal'), ['loopback', 'uniquelocal']);
  });
});

test('TRUST_PROXY=true is refused (any client could forge its address), as are /0 and anything that is no address', () => {
  const refused = (value: string, pattern: RegExp) =>
    assert.throws(() => parseConfig({ TRUST_PROXY: value }), (error: unknown) => error instanceof ConfigError && /TRUST_PROXY/.test(error.message) && pattern.test(error.message), value);
  refused('true', /forge/);
  refused('yes', /forge/);
  refused('0.0.0.0/0', /every address/);
  refused('10.0.0.0/8,::/0', /every address/);
  refused('11', /hop count/);
  refused('-1', /not a hop count/);
  refused('proxy.example.org', /not a hop count/);
  refused('10.0.0.0/33', /prefix/);
  refused('2001:db8::/129', /prefix/);
  refused('10.0.0.1,,10.0.0.2', /not a hop count/);
  refused('10.0.0.0/8/1', /not a hop count/);
});

test('PASSWORD_HASH_COST defaults to 17 (scrypt N = 2^17, OWASP) and stays within 10..20', () => {
  withDataDir((dataDir) => {
    assert.equal(parseConfig({ DATA_DIR: dataDir }).passwordHashCost, 17);
    assert.equal(parseConfig({ DATA_DIR: dataDir, PASSWORD_HASH_COST: '12' }).passwordHashCost, 12);
  });
  assert.throws(() => parseConfig({ PASSWORD_HASH_COST: '9' }), /PASSWORD_HASH_COST/);
  assert.throws(() => parseConfig({ PASSWORD_HASH_COST: '21' }), /PASSWORD_HASH_COST/);
});

test('OIDC: off without OIDC_ISSUER; with issuer and client id the defaults (scopes, label, auto-create on, verified e-mail not required)', () => {
  withDataDir((dataDir) => {
    assert.equal(parseConfig({ DATA_DIR: dataDir, SESSION_SECRET: 'x'.repeat(32) }).oidc, null);
    const config = parseConfig({ DATA_DIR: dataDir, SESSION_SECRET: 'x'.repeat(32), OIDC_ISSUER: 'https://id.example.org/realms/dorf/', OIDC_CLIENT_ID: 'dorfteich', OIDC_CLIENT_SECRET: 's3cret' });
    assert.deepEqual(config.oidc, {
      issuer: 'https://id.example.org/realms/dorf/',
      clientId: 'dorfteich',
      clientSecret: 's3cret',
      scopes: 'openid email profile',
      providerLabel: 'Single sign-on',
      autoCreate: true,
      requireVerifiedEmail: false,
    });
    assert.ok(Object.isFrozen(config.oidc));
    const tuned = parseConfig({
      DATA_DIR: dataDir,
      SESSION_SECRET: 'x'.repeat(32),
      OIDC_ISSUER: 'https://id.example.org',
      OIDC_CLIENT_ID: 'dorfteich',
      OIDC_SCOPES: ' openid  email ',
      OIDC_PROVIDER_LABEL: 'Dorf-ID',
      OIDC_AUTO_CREATE: 'false',
      OIDC_REQUIRE_VERIFIED_EMAIL: 'yes',
    }).oidc;
    assert.equal(tuned?.scopes, 'openid email');
    assert.equal(tuned?.providerLabel, 'Dorf-ID');
    assert.equal(tuned?.autoCreate, false);
    assert.equal(tuned?.requireVerifiedEmail, true);
    assert.equal(tuned?.clientSecret, undefined);
  });
});

test('OIDC is all or nothing: an issuer without a client id, or a client id without an issuer, names both variables', () => {
  const both = (error: unknown) => error instanceof ConfigError && /OIDC_ISSUER/.test(error.message) && /OIDC_CLIENT_ID/.test(error.message);
  assert.throws(() => parseConfig({ SESSION_SECRET: 'x'.repeat(32), OIDC_ISSUER: 'https://id.example.org' }), both);
  assert.throws(() => parseConfig({ SESSION_SECRET: 'x'.repeat(32), OIDC_CLIENT_ID: 'dorfteich' }), both);
  assert.throws(() => parseConfig({ SESSION_SECRET: 'x'.repeat(32), OIDC_CLIENT_SECRET: 'lonely' }), both);
});

test('OIDC_ISSUER must be https (http only on localhost); the scopes must include openid; the switches take booleans', () => {
  const base = { SESSION_SECRET: 'x'.repeat(32), OIDC_CLIENT_ID: 'dorfteich' };
  assert.throws(() => parseConfig({ ...base, OIDC_ISSUER: 'http://id.example.org' }), /OIDC_ISSUER/);
  assert.throws(() => parseConfig({ ...base, OIDC_ISSUER: 'not a url' }), /OIDC_ISSUER/);
  for (const local of ['http://localhost:8080', 'http://127.0.0.1:9000/realms/x', 'http://[::1]:9000']) assert.ok(parseConfig({ ...base, OIDC_ISSUER: local }).oidc, local);
  assert.throws(() => parseConfig({ ...base, OIDC_ISSUER: 'https://id.example.org', OIDC_SCOPES: 'email profile' }), /OIDC_SCOPES/);
  assert.throws(() => parseConfig({ ...base, OIDC_ISSUER: 'https://id.example.org', OIDC_AUTO_CREATE: 'maybe' }), /OIDC_AUTO_CREATE/);
  assert.throws(() => parseConfig({ ...base, OIDC_ISSUER: 'https://id.example.org', OIDC_REQUIRE_VERIFIED_EMAIL: 'sometimes' }), /OIDC_REQUIRE_VERIFIED_EMAIL/);
});
