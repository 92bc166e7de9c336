import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { AUDIT_ACTIONS, AUDIT_CATALOGUE_VERSION } from './auditActions.ts';

const page = readFileSync(new URL('../../docs/audit.md', import.meta.url), 'utf8');

/** The catalogue table's rows of docs/audit.md: each action named in its first cell, with the version of its second. */
function documentedActions(): Map<string, string> {
  const documented = new Map<string, string>();
  for (const line of page.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || !cells[1]!.startsWith('`')) continue;
    for (const [, action] of cells[1]!.matchAll(/`([a-z_]+\.[a-z_]+)`/g)) documented.set(action!, cells[2]!);
  }
  return documented;
}

test('docs/audit.md lists exactly the actions of the catalogue, each with the revision that added it', () => {
  const documented = documentedActions();
  assert.deepEqual([...documented.keys()].sort(), Object.keys(AUDIT_ACTIONS).sort());
  for (const [action, since] of Object.entries(AUDIT_ACTIONS)) assert.equal(documented.get(action), since, action);
});

test('the page names the catalogue version; v1.3 is the revision of auth.identity_linked, as the spec says', () => {
  assert.match(page, new RegExp(`\\*\\*v${AUDIT_CATALOGUE_VERSION.replace('.', '\\.')}\\*\\*`));
  assert.equal(AUDIT_ACTIONS['auth.identity_linked'], '1.3');
  const newest = Object.values(AUDIT_ACTIONS).sort((a, b) => Number(a) - Number(b)).at(-1);
  assert.equal(newest, AUDIT_CATALOGUE_VERSION, 'the version is the newest revision an action carries');
});
