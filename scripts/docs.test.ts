/**
 * The documentation travels with the code: every link in the README and in docs/ leads to a
 * file of this repository (and to a heading that exists there), none leaves it, and nothing
 * in the repository points at design files a clone does not contain.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const documents = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Markdown outside code blocks. */
function outsideCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Markdown outside code blocks and inline code, where links live. */
function prose(markdown: string): string {
  return outsideCodeBlocks(markdown).replace(/`[^`\n]*`/g, '');
}

/** Inline links `[text](target "title")`, `<target>` forms and reference definitions `[x]: target`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!.replace(/^<|>$/g, ''));
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1]!);
  return [...inline, ...references];
}

/** GitHub's heading anchors: lower case, punctuation dropped (inline code keeps its text), spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of outsideCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

test('the README and docs/ exist and link each other', () => {
  for (const required of ['architecture.md', 'access-model.md', 'operations.md', 'configuration.md', 'README.md', 'content-fidelity.md']) {
    assert.ok(existsSync(path.join(root, 'docs', required)), `docs/${required} exists`);
  }
  const readmeTargets = linkTargets(readFileSync(path.join(root, 'README.md'), 'utf8'));
  for (const page of ['docs/README.md', 'docs/architecture.md', 'docs/access-model.md', 'docs/operations.md', 'docs/configuration.md']) {
    assert.ok(readmeTargets.includes(page), `README.md links ${page}`);
  }
  const indexTargets = linkTargets(readFileSync(path.join(root, 'docs/README.md'), 'utf8'));
  for (const page of documents.filter((document) => document.startsWith('docs/') && document !== 'docs/README.md')) {
    assert.ok(indexTargets.includes(path.basename(page)), `docs/README.md links ${page}`);
  }
});

test('every link in the README and docs/ leads to a file of the repository and a heading that exists', () => {
  const problems: string[] = [];
  for (const document of documents) {
    const targets = linkTargets(readFileSync(path.join(root, document), 'utf8'));
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        // The README links nothing outside the repository; the docs only the web.
        if (document === 'README.md' || !/^https:\/\//.test(target)) problems.push(`${document}: ${target} leaves the repository`);
        continue;
      }
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? path.join(root, document) : path.resolve(root, path.dirname(document), decodeURI(file));
      if (path.relative(root, resolved).startsWith('..') || path.isAbsolute(file)) {
        problems.push(`${document}: ${target} points outside the repository`);
      } else if (!existsSync(resolved)) {
        problems.push(`${document}: ${target} does not exist`);
      } else if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md') && !headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        problems.push(`${document}: ${target} names no heading of ${path.relative(root, resolved)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('nothing in the repository points at the design files outside it', () => {
  // Tracked files and new ones not ignored: what a clone (or the next commit) contains.
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && existsSync(path.join(root, file)) && !/\.(png|jpe?g|gif|ico|woff2?|ttf|otf|lock)$/.test(file) && file !== 'package-lock.json');
  const pointers = /\.\.\/shared\/|shared\/design\/|shared\/spec\//;
  const offending = files.filter((file) => pointers.test(readFileSync(path.join(root, file), 'utf8')));
  assert.deepEqual(offending, []);
});

/** The variables `api/config.ts` reads, with the default its schema gives (as written there). */
function configuredVariables(): { name: string; defaultValue: string | undefined }[] {
  const source = readFileSync(path.join(root, 'api/config.ts'), 'utf8');
  const schema = source.slice(source.indexOf('const envSchema = z.object({'));
  const body = schema.slice(0, schema.indexOf('\n});'));
  return [...body.matchAll(/^\s+([A-Z][A-Z0-9_]+): (.*)$/gm)].map(([, name, definition]) => {
    const literal = /\.default\(([^)]*)\)/.exec(definition!)?.[1];
    return { name: name!, defaultValue: literal?.replace(/^'(.*)'$/, '$1').replaceAll('_', '') };
  });
}

test('docs/configuration.md and .env.example name every environment variable, with its default', () => {
  const variables = configuredVariables();
  assert.ok(variables.length >= 20, 'the variables were found in api/config.ts');
  const documented = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8').split('\n');
  const example = readFileSync(path.join(root, '.env.example'), 'utf8');
  const problems: string[] = [];
  for (const { name, defaultValue } of variables) {
    const row = documented.find((line) => line.startsWith('|') && line.split('|')[1]!.includes(`\`${name}\``));
    if (!row) problems.push(`docs/configuration.md has no row for ${name}`);
    else if (defaultValue !== undefined && row.split('|')[2]!.trim() !== `\`${defaultValue}\`` && !row.split('|')[2]!.includes(`\`${defaultValue}\``)) {
      problems.push(`docs/configuration.md gives ${name} another default than ${defaultValue}`);
    }
    const line = new RegExp(`^#? ?${name}=(.*)$`, 'm').exec(example);
    if (!line) problems.push(`.env.example lacks ${name}`);
    else if (defaultValue !== undefined && !line[0].startsWith('#') && line[1] !== defaultValue) problems.push(`.env.example sets ${name}=${line[1]}, not its default ${defaultValue}`);
  }
  assert.deepEqual(problems, []);
});
