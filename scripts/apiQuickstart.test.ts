/**
 * The README's API quick start is true: scripts/api-quickstart.sh (shown in the README line for
 * line) signs in, creates a personal access token, creates a page through the public REST API
 * and reads it back through MCP, with curl and jq against a real instance.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Pond } from '../api/models/index.ts';
import { completeSetup, createVerifiedUser } from '../api/testing/fixtures.ts';
import { setInstanceSwitches, setPondSwitches } from '../api/testing/publicApiFixtures.ts';
import { startTestInstance, type TestInstance } from '../api/testing/testInstance.ts';

const root = path.resolve(import.meta.dirname, '..');
const script = path.join(root, 'scripts', 'api-quickstart.sh');
let instance: TestInstance;

before(async () => {
  instance = await startTestInstance();
  await completeSetup(instance);
});
after(() => instance.close());

test('the README shows the quick start script as it is', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const source = readFileSync(script, 'utf8');
  // From the settings on; the file's own header and its clean-up line are not part of what a reader copies.
  const steps = source.slice(source.indexOf('BASE=')).split('\n').filter((line) => line.trim() !== '' && !line.startsWith('trap '));
  for (const line of steps) assert.ok(readme.includes(line), `README lacks: ${line}`);
});

test('the script creates a page through REST and reads it back through MCP', async () => {
  const person = await createVerifiedUser(instance);
  const pond = await Pond.findOne({ where: { ownerId: person.user.id, kind: 'personal' }, rejectOnEmpty: true });
  await setInstanceSwitches(instance, { api: true, mcp: true });
  await setPondSwitches(pond.id, { api: true, mcp: true });
  const { stdout } = await promisify(execFile)('bash', [script], {
    env: { ...process.env, BASE: instance.baseUrl, LOGIN: person.credentials.username, PASSWORD: person.credentials.password, POND: pond.slug },
    timeout: 30_000,
  });
  assert.match(stdout, new RegExp(`created ${instance.baseUrl}/${pond.slug}/hello-from-a-script`));
  assert.match(stdout, /Written by \*\*curl\*\*\./);
  const [tokens] = await instance.services.sequelize.query(`SELECT count(*)::int AS n FROM api_tokens WHERE user_id = :id AND name = 'quick start'`, { replacements: { id: person.user.id } });
  assert.equal((tokens as { n: number }[])[0]?.n, 1);
});
