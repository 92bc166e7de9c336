/**
 * The pipeline is the one place that parses Markdown or builds HTML from documents: no other
 * package imports unified, remark, rehype, mdast or hast tooling, or the document schema's
 * internals: they import `index.ts`, or the browser editor's lean surface `browser.ts` (no
 * Markdown or HTML tooling up front). The benchmark's plain baseline is the only exception.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUTSIDE = ['api', 'collab', 'jobs', 'site', 'editor', 'scripts'];
const ALLOWED = new Set(['scripts/bench/pipeline.ts']);
const PIPELINE_TOOLING = /from\s+['"](?:unified|remark-[\w-]+|rehype-[\w-]+|mdast-util-[\w-]+|hast-util-[\w-]+|micromark[\w-]*)['"]/;
const PIPELINE_INTERNALS = /(?:from\s+|import\(\s*)['"][./]*content-pipeline\/(?!(?:index|browser)\.ts['"])/;

function sourceFiles(directory: string): string[] {
  let entries;
  try {
    entries = readdirSync(path.join(ROOT, directory), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const relative = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(relative);
    return /\.(ts|svelte|astro|mjs)$/.test(entry.name) ? [relative] : [];
  });
}

test('only content-pipeline/ uses Markdown and HTML tooling; others import content-pipeline/index.ts', () => {
  const files = OUTSIDE.flatMap(sourceFiles);
  assert.ok(files.includes('api/routes/legalRoutes.ts'), 'the scan reaches the API');
  const offenders = files.filter((file) => {
    if (ALLOWED.has(file)) return false;
    const source = readFileSync(path.join(ROOT, file), 'utf8');
    return PIPELINE_TOOLING.test(source) || PIPELINE_INTERNALS.test(source);
  });
  assert.deepEqual(offenders, []);
});
