/**
 * The README's API quick start is true: scripts/api-quickstart.sh (shown in the README line for
 * line) signs in, creates a personal access token that expires within a day (or reuses the one
 * in TOKEN), creates a page through the public REST API and reads it back through MCP, with
 * curl and jq against a real instance. Refused (a personal pond that has not opted in, the
 * instance's API off), it prints the server's own message and the switch to turn on.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { errorMessagesEn, messageVariantsEn } from '../api/i18n/errorMessages.en.ts';
import { Pond } from '../api/models/index.ts';
import { completeSetup, createVerifiedUser } from '../api/testing/fixtures.ts';
import { issueToken, setInstanceSwitches, setPondSwitches } from '../api/testing/publicApiFixtures.ts';
import { startTestInstance, type TestInstance } from '../api/testing/testInstance.ts';

const root = path.resolve(import.meta.dirname, '..');
const script = path.join(root, 'scripts', 'api-quickstart.sh');
const DAY_MS = 24 * 60 * 60 * 1000;
let instance: TestInstance;

before(async () => {
  instance = await startTestInstance();
  await completeSetup(instance);
});
after(() => instance.close());

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function runScript(env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile('bash', [script], { env: { ...process.env, BASE: instance.baseUrl, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A person with a personal pond, and the script's settings for them. */
async function personWithPond(): Promise<{ userId: string; pondId: string; env: Record<string, string> }> {
  const person = await createVerifiedUser(instance);
  const pond = await Pond.findOne({ where: { ownerId: person.user.id, kind: 'personal' }, rejectOnEmpty: true });
  return { userId: person.user.id, pondId: pond.id, env: { LOGIN: person.credentials.username, PASSWORD: person.credentials.password, POND: pond.slug } };
}

async function quickStartTokens(userId: string): Promise<{ expires_at: Date | null; created_at: Date }[]> {
  const [rows] = await instance.services.sequelize.query(`SELECT expires_at, created_at FROM api_tokens WHERE user_id = :id AND name = 'quick start'`, { replacements: { id: userId } });
  return rows as { expires_at: Date | null; created_at: Date }[];
}

function assertExpiresWithinADay(token: { expires_at: Date | null; created_at: Date } | undefined): void {
  assert.ok(token?.expires_at, 'the token expires');
  const lifetime = token.expires_at.getTime() - token.created_at.getTime();
  assert.ok(lifetime > 0 && lifetime <= DAY_MS + 60_000, `lifetime ${lifetime} ms is at most a day`);
}

test('the README shows the quick start script as it is', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const source = readFileSync(script, 'utf8');
  // From the settings on; the file's own header and its clean-up line are not part of what a reader copies.
  const steps = source.slice(source.indexOf('BASE=')).split('\n').filter((line) => line.trim() !== '' && !line.startsWith('trap '));
  for (const line of steps) assert.ok(readme.includes(line), `README lacks: ${line}`);
});

test('the script creates a page through REST and reads it back through MCP, with a token that expires within a day', async () => {
  const { userId, pondId, env } = await personWithPond();
  await setInstanceSwitches(instance, { api: true, mcp: true });
  await setPondSwitches(pondId, { api: true, mcp: true });
  assert.equal(env.POND, env.LOGIN, 'the README\'s example: a personal pond\'s slug is its owner\'s username');
  const outcome = await runScript(env);
  assert.equal(outcome.code, 0, outcome.stderr);
  assert.match(outcome.stdout, new RegExp(`created ${instance.baseUrl}/${env.POND}/hello-from-a-script`));
  assert.match(outcome.stdout, /Written by \*\*curl\*\*\./);
  const tokens = await quickStartTokens(userId);
  assert.equal(tokens.length, 1);
  assertExpiresWithinADay(tokens[0]);
});

test('with TOKEN set, a second run reuses that token and creates none', async () => {
  const { userId, pondId, env } = await personWithPond();
  await setInstanceSwitches(instance, { api: true, mcp: true });
  await setPondSwitches(pondId, { api: true, mcp: true });
  const kept = await issueToken(instance, userId, { scope: 'write', name: 'kept from the first run' });
  const outcome = await runScript({ POND: env.POND!, TOKEN: kept.secret });
  assert.equal(outcome.code, 0, outcome.stderr);
  assert.match(outcome.stdout, /Written by \*\*curl\*\*\./);
  assert.deepEqual(await quickStartTokens(userId), [], 'no new token');
});

test('a personal pond that has not opted in: the server\'s message and the pond switch to turn on, no bare curl error', async () => {
  const { userId, env } = await personWithPond();
  await setInstanceSwitches(instance, { api: true, mcp: true });
  const outcome = await runScript(env);
  assert.equal(outcome.code, 1);
  assert.equal(outcome.stdout, '', 'nothing was created');
  assert.ok(outcome.stderr.includes(`refused (HTTP 404): ${messageVariantsEn.pond_unreachable}`), outcome.stderr);
  assert.match(outcome.stderr, new RegExp(`in the settings of pond ${env.POND}, under "Access for programs", allow the public REST API`));
  assert.doesNotMatch(outcome.stderr, /curl: \(22\)/);
  // The token this run created lapses by itself.
  const tokens = await quickStartTokens(userId);
  assert.equal(tokens.length, 1);
  assertExpiresWithinADay(tokens[0]);
});

test('the instance\'s API switched off: the server\'s message and the site admin\'s switch', async () => {
  const { pondId, env } = await personWithPond();
  await setPondSwitches(pondId, { api: true, mcp: true });
  await setInstanceSwitches(instance, { api: false });
  try {
    const outcome = await runScript(env);
    assert.equal(outcome.code, 1);
    assert.ok(outcome.stderr.includes(`refused (HTTP 404): ${errorMessagesEn.api_disabled}`), outcome.stderr);
    assert.match(outcome.stderr, /a site admin turns on "Public REST API" under Administration → Integrations/);
  } finally {
    await setInstanceSwitches(instance, { api: true });
  }
});

test('a wrong password: the server\'s message, and no token', async () => {
  const { userId, env } = await personWithPond();
  const outcome = await runScript({ ...env, PASSWORD: 'not the password' });
  assert.equal(outcome.code, 1);
  assert.match(outcome.stderr, /^refused \(HTTP 401\): \S.*$/m);
  assert.deepEqual(await quickStartTokens(userId), []);
});
