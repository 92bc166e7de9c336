/**
 * The policy module is the only place a grant is interpreted. This guard lists every source
 * file that touches the grants table; a new one fails the test until someone decides whether
 * it manages grant rows (allowed, add it below with the reason) or decides access on its
 * own (not allowed: ask api/policies instead).
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
  'api/commands/accountCreator.ts': 'creates the owner grant of a personal pond',
  'api/commands/pondCommands.ts': 'creates the owner grant of a shared pond',
  'api/commands/grantCommands.ts': 'grant CRUD',
  'api/commands/membershipCommands.ts': 'member rows and seat counts (roles as granted, not access)',
  'api/models/grant.ts': 'the model',
  'api/db/migrations/0002-access.ts': 'schema',
  'api/testing/accessFixtures.ts': 'test seeding',
  'scripts/bench/access.ts': 'benchmark seeding',
  'scripts/bench/tree.ts': 'benchmark seeding',
  'scripts/bench/collabDatabase.ts': 'benchmark and soak seeding',
  'scripts/bench/searchCorpus.ts': 'benchmark seeding',
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

test('only the policy module and grant-managing commands touch the grants table', () => {
  const directories = ['api', 'collab', 'jobs', 'content-pipeline', 'site', 'editor', 'scripts'].filter((directory) => {
    try {
      return readdirSync(path.join(ROOT, directory)).length >= 0;
    } catch {
      return false;
    }
  });
  const touching = directories.flatMap(sourceFiles).filter((file) => TOUCHES_GRANTS.test(readFileSync(path.join(ROOT, file), 'utf8')));
  assert.ok(touching.includes('api/policies/pondAccessCache.ts'), 'the scan finds the policy module itself');
  const unexpected = touching.filter((file) => !(file in ALLOWED));
  assert.deepEqual(unexpected, [], 'these files read or write grants outside the policy module');
});
