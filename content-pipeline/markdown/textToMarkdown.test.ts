/**
 * Differential test of the Markdown writer's text escaping (textToMarkdown.ts): the production
 * serializer (documentToMarkdown) against a reference serializer that is the same remark
 * pipeline without our text writer, i.e. mdast-util-to-markdown's own `text` handler and
 * `safe()`. Both get the same mdast (documentToMdast), so any difference is the text writer's.
 *
 * Inputs: every corpus entry (testing/corpus.ts), every CommonMark spec example (read as
 * Markdown, then written back), and 4,000 generated documents covering every node and mark of
 * the schema, with text built from the characters Markdown reacts to (all ASCII punctuation,
 * line breaks, tabs, digits before `.`/`)`, `_` runs inside words, backslashes, character
 * references, URL- and e-mail-looking text, Unicode punctuation and whitespace, astral
 * characters), marks next to word characters and punctuation, nested lists and sections,
 * tables (cells with `|`), code fences with backtick runs, hard breaks, wikilinks and mentions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { tests as specExamples } from 'commonmark-spec';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import type { DocumentJson } from '../schema/documentSchema.ts';
import { corpus } from '../testing/corpus.ts';
import { remarkDirectiveToMarkdown } from './directiveToMarkdown.ts';
import { documentToMarkdown, MARKDOWN_STRINGIFY_OPTIONS } from './documentToMarkdown.ts';
import { documentToMdast } from './documentToMdast.ts';
import { markdownToDocument } from './markdownToDocument.ts';
import { remarkWikilinkToMarkdown } from './wikilinkToMarkdown.ts';
import { seededRandom } from '../../scripts/seededRandom.ts';

/** Test oracle only: createMarkdownSerializer without remarkTextToMarkdown. */
const referenceSerializer = unified()
  .use(remarkGfm)
  .use(remarkDirectiveToMarkdown)
  .use(remarkWikilinkToMarkdown)
  .use(remarkStringify, MARKDOWN_STRINGIFY_OPTIONS)
  .freeze();

function referenceMarkdown(doc: DocumentJson): string {
  return referenceSerializer.stringify(documentToMdast(doc));
}

function assertSameAsReference(doc: DocumentJson, what: string): void {
  assert.equal(documentToMarkdown(doc), referenceMarkdown(doc), `${what}: the text writer differs from mdast-util-to-markdown's`);
}

const ASCII_PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];
/** Pieces of text: words, every ASCII punctuation character, and runs Markdown reacts to. */
const TEXT_PIECES = [
  ...['Dorf', 'teich', 'a', 'b', 'Ente', 'x1', 'über', 'ß'],
  ...ASCII_PUNCTUATION,
  ...[' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\r', ' \n', '\n ', '\n\t'],
  ...['0', '1', '12', '1.', '1)', '123456789.'],
  ...['_', '__', '___', 'a_b', 'snake_case_name', '*', '**', '***', '~', '~~', '`', '``', '```', '~~~'],
  ...['\\', '\\\\', '\\*', '&amp;', '&#x20;', '&copy;', '&#65;', '&'],
  ...['http://x.de', 'https://example.org/a_b', 'www.example.com', 'mailto:a@b.de', 'a@b.de', 'ftp:', 'ps:/', 'w.'],
  ...['# ', '## x', '> ', '- ', '+ ', '* ', '---', '===', '| a |', ':-', '-:', '[ ]', '[x]', '<div>', '<a href="x">', '<!-- c -->', '<http://a>'],
  ...['[[x]]', '![[y]]', '[a](b)', '![i](j)', ']]', '[[', '::', ':::', ':name', ':name[x]', '{a=b}'],
  ...['\u00a0', '\u2003', '—', '„', '“', '…', '€', '😀', '\u0000', '\u007f'],
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function randomText(random: () => number, maxPieces: number): string {
  const count = 1 + Math.floor(random() * maxPieces);
  let text = '';
  for (let index = 0; index < count; index += 1) text += pick(random, TEXT_PIECES);
  return text;
}

const HREFS = ['https://example.org', 'https://example.org/a b', 'http://x.de/(a)', '', '#top', 'mailto:a@b.de', '/p/seite', 'a<b>', 'https://example.org/`x`'];

function randomMarks(random: () => number): NonNullable<JSONContent['marks']> {
  const marks: NonNullable<JSONContent['marks']> = [];
  if (random() < 0.3) marks.push({ type: 'bold' });
  if (random() < 0.3) marks.push({ type: 'italic' });
  if (random() < 0.15) marks.push({ type: 'strike' });
  if (random() < 0.1) marks.push({ type: 'code' });
  if (random() < 0.12) marks.push({ type: 'link', attrs: { href: pick(random, HREFS), title: random() < 0.3 ? randomText(random, 2) : null } });
  return marks;
}

function randomInline(random: () => number, length: number): JSONContent[] {
  const content: JSONContent[] = [];
  for (let index = 0; index < length; index += 1) {
    const roll = random();
    if (roll < 0.72) {
      const marks = randomMarks(random);
      content.push({ type: 'text', text: randomText(random, 6), ...(marks.length > 0 ? { marks } : {}) });
    } else if (roll < 0.8) content.push({ type: 'hardBreak' });
    else if (roll < 0.9) {
      const displayText = random() < 0.5 ? randomText(random, 3) : null;
      content.push({ type: 'wikilink', attrs: { targetSlug: pick(random, ['seite', 'Dorf-Teich-2', 'a', 'x|y', 'a]b']), displayText } });
    } else {
      const marks = random() < 0.3 ? randomMarks(random) : [];
      content.push({ type: 'mention', attrs: { id: '11111111-1111-4111-8111-111111111111', label: randomText(random, 2) }, ...(marks.length > 0 ? { marks } : {}) });
    }
  }
  return content;
}

function paragraph(random: () => number): JSONContent {
  return { type: 'paragraph', content: randomInline(random, 1 + Math.floor(random() * 6)) };
}

function listNode(random: () => number, depth: number): JSONContent {
  const type = pick(random, ['bulletList', 'orderedList', 'taskList'] as const);
  const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
    type: type === 'taskList' ? 'taskItem' : 'listItem',
    ...(type === 'taskList' ? { attrs: { checked: random() < 0.5 } } : {}),
    content: randomBlocks(random, depth + 1, 1 + Math.floor(random() * 2)),
  }));
  const attrs: Record<string, unknown> = { tight: random() < 0.7 };
  if (type === 'orderedList') attrs.start = pick(random, [1, 0, 3, 10, 999]);
  return { type, attrs, content: items };
}

function table(random: () => number): JSONContent {
  const columns = 1 + Math.floor(random() * 3);
  const rows = 1 + Math.floor(random() * 3);
  const align = () => pick(random, [null, 'left', 'center', 'right']);
  return {
    type: 'table',
    content: Array.from({ length: rows }, (_, row) => ({
      type: 'tableRow',
      content: Array.from({ length: columns }, () => ({
        type: row === 0 ? 'tableHeader' : 'tableCell',
        attrs: { align: align() },
        content: [{ type: 'paragraph', content: random() < 0.2 ? [] : randomInline(random, 1 + Math.floor(random() * 3)) }],
      })),
    })),
  };
}

function randomBlock(random: () => number, depth: number): JSONContent {
  const nested = depth < 3;
  const roll = random();
  if (roll < 0.4 || !nested) return paragraph(random);
  if (roll < 0.48) return { type: 'heading', attrs: { level: 1 + Math.floor(random() * 6) }, content: randomInline(random, 1 + Math.floor(random() * 3)) };
  if (roll < 0.6) return listNode(random, depth);
  if (roll < 0.65) return { type: 'blockquote', content: randomBlocks(random, depth + 1, 1 + Math.floor(random() * 2)) };
  if (roll < 0.7) return { type: 'codeBlock', attrs: { language: pick(random, ['', 'js', 'a b', '`x`', 'c~']) }, content: [{ type: 'text', text: randomText(random, 5) }] };
  if (roll < 0.73) return { type: 'horizontalRule' };
  if (roll < 0.8) return table(random);
  if (roll < 0.83) return { type: 'image', attrs: { fileId: 'f1', alt: randomText(random, 2), title: random() < 0.5 ? randomText(random, 2) : null } };
  if (roll < 0.86) return { type: 'transclusion', attrs: { targetSlug: 'seite', displayText: random() < 0.5 ? randomText(random, 2) : null } };
  if (roll < 0.9) return { type: 'plugin_block', attrs: { pluginId: 'p', blockType: 'chart', data: { text: randomText(random, 3) } } };
  return { type: 'section', attrs: { pluginId: 'p', styleId: 's' }, content: randomBlocks(random, depth + 1, 1 + Math.floor(random() * 2)) };
}

function randomBlocks(random: () => number, depth: number, count: number): JSONContent[] {
  return Array.from({ length: count }, () => randomBlock(random, depth));
}

const GENERATED_DOCUMENTS = 4000;

test('the corpus: the text writer writes what mdast-util-to-markdown writes', () => {
  for (const { name, markdown } of corpus) assertSameAsReference(markdownToDocument(markdown), name);
});

test('the CommonMark spec examples, read and written back: same bytes as the reference', () => {
  for (const example of specExamples) assertSameAsReference(markdownToDocument(example.markdown), `spec example ${example.number}`);
});

test(`${GENERATED_DOCUMENTS} generated documents (every node and mark, Markdown-active text): same bytes as the reference`, () => {
  const random = seededRandom(6);
  const seen = new Set<string>();
  const collect = (node: JSONContent) => {
    seen.add(node.type ?? '');
    for (const mark of node.marks ?? []) seen.add(`mark:${mark.type}`);
    for (const child of node.content ?? []) collect(child);
  };
  for (let index = 0; index < GENERATED_DOCUMENTS; index += 1) {
    const doc: DocumentJson = { type: 'doc', content: randomBlocks(random, 0, 1 + Math.floor(random() * 5)) };
    collect(doc);
    assertSameAsReference(doc, `generated document ${index} (${JSON.stringify(doc)})`);
  }
  // The generator reaches every node and mark of the schema.
  for (const type of ['paragraph', 'heading', 'blockquote', 'bulletList', 'orderedList', 'taskList', 'listItem', 'taskItem', 'codeBlock', 'horizontalRule', 'table', 'tableRow', 'tableHeader', 'tableCell', 'image', 'transclusion', 'plugin_block', 'section', 'text', 'hardBreak', 'wikilink', 'mention', 'mark:bold', 'mark:italic', 'mark:strike', 'mark:code', 'mark:link']) {
    assert.ok(seen.has(type), `the generator never made ${type}`);
  }
});
