/**
 * Which test files a run takes, what kind each is, and the order they start in.
 *
 * Kinds (docs/testing.md), from what a file loads, followed through the project's own imports:
 * - `chromium`: drives a browser (loads `playwright-core`);
 * - `http`: starts the app or its processes and talks to them (the test instance, the collab
 *   server, `npm start` through the test client);
 * - `database`: works on a database cloned from the run's template, without a server;
 * - `unit`: none of those: no Postgres, no server, no browser (`npm run test:unit` runs these
 *   without starting Postgres at all).
 *
 * Order: longest first, so the last files to start are short ones and both slots stay busy to
 * the end. The durations of the last full run are kept in the durations file (written by the
 * slowest-files reporter); a file without a measurement is placed by its kind.
 */
import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What `npm test` runs when no file is named. */
export const ALL_TEST_GLOBS = [
  'api/**/*.test.ts',
  'collab/**/*.test.ts',
  'content-pipeline/**/*.test.ts',
  'jobs/**/*.test.ts',
  'scripts/**/*.test.ts',
  'editor/src/**/*.test.ts',
  'site/src/**/*.test.ts',
  'site/e2e/**/*.test.ts',
];

export type TestKind = 'unit' | 'database' | 'http' | 'chromium';
export const TEST_KINDS: readonly TestKind[] = ['unit', 'database', 'http', 'chromium'];

/** Seconds a file of each kind is guessed to take when no run has measured it (medians of a full run). */
const GUESSED_SECONDS: Record<TestKind, number> = { chromium: 40, http: 6, database: 4, unit: 1 };

/** Modules whose presence in a file's import graph decides its kind (the first match wins, in TEST_KINDS' reverse order). */
const KIND_MARKERS: { kind: TestKind; modules: string[] }[] = [
  { kind: 'chromium', modules: ['playwright-core'] },
  { kind: 'http', modules: ['api/testing/testInstance.ts', 'api/testing/testClient.ts', 'collab/collabServer.ts', 'collab/testing/collabProcess.ts'] },
  { kind: 'database', modules: ['api/testing/testDatabase.ts'] },
];

/** The durations of this machine's last full run, per file relative to ROOT (written by scripts/slowestTestFiles.ts). */
export const DURATIONS_FILE = path.join(ROOT, 'node_modules', '.cache', 'dorfteich-tests', 'durations.json');
/** Set for the reporter when the run's durations are the files' own (no name pattern or other runner flag). */
export const KEEP_DURATIONS_VARIABLE = 'DT_TEST_KEEP_DURATIONS';
/** Durations of a reference run, committed, for a fresh clone (rounded seconds, copied from DURATIONS_FILE after a full run). */
export const REFERENCE_DURATIONS_FILE = path.join(ROOT, 'scripts', 'testDurations.json');

const IMPORT_SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Files matched by the globs (relative to ROOT, each once, in glob order); a glob that matches nothing is an error. */
export function expandTestGlobs(globs: readonly string[]): string[] {
  const files = new Set<string>();
  for (const glob of globs) {
    const relative = path.isAbsolute(glob) ? path.relative(ROOT, glob) : glob;
    const matches = globSync(relative, { cwd: ROOT, exclude: (name) => name === 'node_modules' }).sort();
    if (matches.length === 0) throw new Error(`no test file matches ${glob}`);
    for (const match of matches) files.add(match);
  }
  return [...files];
}

export interface TestFileTraits {
  kind: TestKind;
  /** Serves or renders the built site (site/dist), so the run builds it first. */
  needsSite: boolean;
}

/** The kind of every file, from its import graph (project files followed, packages named). */
export function classifyTestFiles(files: readonly string[]): Map<string, TestFileTraits> {
  const graph = new Map<string, Set<string>>();
  const reach = (file: string): Set<string> => {
    const known = graph.get(file);
    if (known) return known;
    const reached = new Set<string>();
    graph.set(file, reached); // before the walk: import cycles end here
    let source = '';
    try {
      source = readFileSync(path.join(ROOT, file), 'utf8');
    } catch {
      return reached;
    }
    for (const match of source.matchAll(IMPORT_SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (specifier.startsWith('.')) {
        const target = path.join(path.dirname(file), specifier);
        reached.add(target);
        for (const further of reach(target)) reached.add(further);
      } else if (!specifier.startsWith('node:')) {
        reached.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
      }
    }
    return reached;
  };
  const traits = new Map<string, TestFileTraits>();
  for (const file of files) {
    const reached = reach(file);
    traits.set(file, {
      kind: KIND_MARKERS.find(({ modules }) => modules.some((module) => reached.has(module)))?.kind ?? 'unit',
      needsSite: reached.has('scripts/build-site.ts') || reached.has('api/testing/testInstance.ts'),
    });
  }
  return traits;
}

function readDurationFile(file: string): [string, number][] {
  if (!existsSync(file)) return [];
  try {
    return Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>);
  } catch {
    return []; // a broken file only costs the order
  }
}

/** This machine's last measurements over the reference ones. */
export function readDurations(files = [REFERENCE_DURATIONS_FILE, DURATIONS_FILE]): Map<string, number> {
  return new Map(files.flatMap(readDurationFile));
}

/** Longest first: measured seconds where known, the kind's guess elsewhere; ties keep glob order. */
export function orderLongestFirst(files: readonly string[], traits: ReadonlyMap<string, TestFileTraits>, durations: ReadonlyMap<string, number>): string[] {
  const expected = (file: string) => durations.get(file) ?? GUESSED_SECONDS[traits.get(file)?.kind ?? 'unit'];
  return files
    .map((file, index) => ({ file, index, seconds: expected(file) }))
    .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
    .map(({ file }) => file);
}
