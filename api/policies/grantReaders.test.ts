/**
 * The policy module is the only place a grant is interpreted. These guards list every source
 * file that touches the grants table or reads a grant's subject, scope or effect; a new one
 * fails the test until someone decides whether it manages grant rows (allowed, add it below
 * with the reason) or decides access on its own (not allowed: ask api/policies instead).
 * And the policy module stands below the commands: it imports none of them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

const ALLOWED: Record<string, string> = {
  'api/policies/accessPolicy.ts': 'policy: candidate ponds of a member and of a search',
  'api/policies/pondAccessCache.ts': 'policy: loads the grants the resolver interprets',
  'api/policies/accessExplanation.ts': 'policy: names the deciding grant',
  'api/policies/membership.ts': 'policy: the listed members of a pond',
  'api/commands/accountCreator.ts': 'creates the owner grant of a personal pond',
  'api/commands/pondCommands.ts': 'creates the owner grant of a shared pond',
  'api/commands/grantCommands.ts': 'grant CRUD',
  'api/commands/sectionGrantCommands.ts': 'creates the label-scope grant of a page and its sub-pages, or keeps the identical one',
  'api/commands/membershipCommands.ts': 'member rows and seat counts (roles as granted, not access)',
  'api/commands/accountDeletion.ts': 'removes every grant naming a deleted account',
  'api/models/grant.ts': 'the model',
  'api/db/migrations/0002-access.ts': 'schema',
  'api/testing/accessFixtures.ts': 'test seeding',
  'scripts/bench/access.ts': 'benchmark seeding',
  'scripts/bench/tree.ts': 'benchmark seeding',
  'scripts/bench/collabDatabase.ts': 'benchmark and soak seeding',
  'scripts/bench/searchCorpus.ts': 'benchmark seeding',
  'scripts/bench/publicSeed.ts': 'benchmark seeding',
  'scripts/bench/notify.ts': 'benchmark seeding',
  'scripts/bench/notifyDigest.ts': 'benchmark seeding',
  'scripts/bench/apiSeed.ts': 'benchmark seeding',
};

const TOUCHES_GRANTS = /\bGrant\.(?:create|find\w*|destroy|update|count|bulkCreate|upsert|sequelize)\b|\b(?:FROM|JOIN|INTO|UPDATE)\s+grants\b/;

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, directory), { withFileTypes: true })) {
    const relative = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') files.push(...sourceFiles(relative));
    } else if (/\.(ts|svelte|astro|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) files.push(relative);
  }
  return files;
}

function allSourceFiles(): string[] {
  const directories = ['api', 'collab', 'jobs', 'content-pipeline', 'site', 'editor', 'scripts'].filter((directory) => {
    try {
      return readdirSync(path.join(ROOT, directory)).length >= 0;
    } catch {
      return false;
    }
  });
  return directories.flatMap(sourceFiles);
}

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

test('only the policy module and grant-managing commands touch the grants table', () => {
  const touching = allSourceFiles().filter((file) => TOUCHES_GRANTS.test(read(file)));
  assert.ok(touching.includes('api/policies/pondAccessCache.ts'), 'the scan finds the policy module itself');
  const unexpected = touching.filter((file) => !(file in ALLOWED));
  assert.deepEqual(unexpected, [], 'these files read or write grants outside the policy module');
});

/**
 * Deciding on a grant's subject, scope or effect, or on the resolver's raw parts
 * (`hasScopedAllow`, the pond's grant list), is interpreting grants: policy work.
 */
const INTERPRETS_GRANTS = /\.(?:subjectType|scopeType|effect)\s*[!=]==|\.hasScopedAllow\b|\.data\.grants\b|\bdata\.grants\b/;

const MAY_READ_GRANT_FIELDS: Record<string, string> = {
  'api/presenters/grantPresenter.ts': 'shows a grant as it is (subject, scope), deciding nothing',
  'api/testing/accessOracle.ts': 'the tests\' independent reading of the spec',
  'api/routes/grantRoutes.ts': 'checks the effective-permissions query (its subjectType names who to explain)',
  'editor/src/ponds/AccessRules.svelte': 'words a rule as the API described it (allow or deny), deciding nothing',
  'editor/src/ponds/PermissionExplainer.svelte': 'words the deciding rule the API named (allow or deny), deciding nothing',
  'editor/src/ponds/accessViews.ts': 'words a rule as the API described it (allow or deny), for both of the above',
  'api/commands/sectionGrantCommands.ts': 'a rule of the other effect on the same label is a uniqueness conflict (409), deciding no access',
};

test('no file outside the policy module interprets grants', () => {
  const interpreting = allSourceFiles().filter((file) => !file.startsWith(`api${path.sep}policies${path.sep}`) && INTERPRETS_GRANTS.test(read(file)));
  assert.deepEqual(interpreting.filter((file) => !(file in MAY_READ_GRANT_FIELDS)), []);
});

test('the policy module imports no commands', () => {
  const policies = sourceFiles(path.join('api', 'policies'));
  assert.ok(policies.length > 3, 'the scan finds the policy module');
  const importing = policies.filter((file) => /from\s+'\.\.\/commands\//.test(read(file)));
  assert.deepEqual(importing, []);
});
