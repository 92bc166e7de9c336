/** The front matter of an exported page: YAML whose values are JSON, safe for any title. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frontMatter, pondMarkdownZipName, yamlString } from './pondMarkdownZip.ts';

test('front matter: the five keys in order, an empty line, then the body', () => {
  const text = frontMatter({ title: 'Plan', slug: 'plan', parent: null, labels: [], updated: '2025-06-15T12:00:00.000Z' });
  assert.equal(text, '---\ntitle: "Plan"\nslug: "plan"\nparent: null\nlabels: []\nupdated: "2025-06-15T12:00:00.000Z"\n---\n\n');
  const nested = frontMatter({ title: 'Setup', slug: 'setup', parent: 'handbook', labels: ['A', 'B: c'], updated: '2025-06-15T12:00:00.000Z' });
  assert.match(nested, /\nparent: "handbook"\nlabels: \["A", "B: c"\]\n/);
});

test('yamlString: quotes, backslashes, line breaks and YAML-only breaks are escaped; the value reads back', () => {
  const tricky = 'a "quoted" \\ back\nslash: #not a comment\u2028\u2029\u0085\u007f\u009f é 🙂 --- ';
  const quoted = yamlString(tricky);
  assert.doesNotMatch(quoted, /[\n\u2028\u2029\u0085\u007f\u009f]/);
  assert.ok(quoted.startsWith('"') && quoted.endsWith('"'));
  assert.equal(JSON.parse(quoted), tricky);
  assert.equal(yamlString('yes'), '"yes"', 'never a bare scalar YAML could read as a boolean');
});

test('the download is named after the pond slug', () => {
  assert.equal(pondMarkdownZipName({ slug: 'team-notes' }), 'team-notes-markdown.zip');
});
