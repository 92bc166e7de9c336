/** Which files `npm test` takes, what kind each is, and the order they start in (scripts/testFiles.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALL_TEST_GLOBS, classifyTestFiles, expandTestGlobs, orderLongestFirst } from './testFiles.ts';

test('every test file of the project is found once, and a glob that matches nothing is an error', () => {
  const files = expandTestGlobs(ALL_TEST_GLOBS);
  assert.equal(new Set(files).size, files.length);
  assert.ok(files.includes('site/e2e/editor.test.ts') && files.includes('api/config.test.ts'));
  assert.ok(files.every((file) => file.endsWith('.test.ts') && !file.includes('node_modules')));
  assert.throws(() => expandTestGlobs(['api/no-such-dir/*.test.ts']), /no test file matches api\/no-such-dir/);
  assert.deepEqual(expandTestGlobs(['api/config.test.ts', 'api/config.test.ts']), ['api/config.test.ts']);
});

test('a file\'s kind follows what it loads, through the project\'s own imports', () => {
  const traits = classifyTestFiles(['site/e2e/editor.test.ts', 'api/routes/pageRoutes.test.ts', 'api/db/migrator.test.ts', 'api/config.test.ts', 'scripts/start.test.ts', 'api/publicPages/astroDocumentRenderer.test.ts']);
  assert.deepEqual(Object.fromEntries([...traits].map(([file, { kind }]) => [file, kind])), {
    'site/e2e/editor.test.ts': 'chromium',
    'api/routes/pageRoutes.test.ts': 'http',
    'api/db/migrator.test.ts': 'database',
    'api/config.test.ts': 'unit',
    'scripts/start.test.ts': 'http',
    'api/publicPages/astroDocumentRenderer.test.ts': 'unit',
  });
  assert.equal(traits.get('api/publicPages/astroDocumentRenderer.test.ts')!.needsSite, true, 'it renders the built site');
  assert.equal(traits.get('api/config.test.ts')!.needsSite, false);
});

test('longest first: measured seconds where known, the kind\'s guess elsewhere, ties in the order given', () => {
  const files = ['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts', 'e.test.ts'];
  const traits = new Map([
    ['a.test.ts', { kind: 'unit' as const, needsSite: false }],
    ['b.test.ts', { kind: 'chromium' as const, needsSite: true }],
    ['c.test.ts', { kind: 'http' as const, needsSite: false }],
    ['d.test.ts', { kind: 'unit' as const, needsSite: false }],
    ['e.test.ts', { kind: 'unit' as const, needsSite: false }],
  ]);
  assert.deepEqual(orderLongestFirst(files, traits, new Map([['a.test.ts', 300], ['c.test.ts', 2]])), ['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts', 'e.test.ts']);
  assert.deepEqual(orderLongestFirst(files, traits, new Map([['e.test.ts', 500]])), ['e.test.ts', 'b.test.ts', 'c.test.ts', 'a.test.ts', 'd.test.ts']);
});
