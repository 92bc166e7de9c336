import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { assertValidDocument, type DocumentJson } from '../schema/documentSchema.ts';
import { markdownToDocument } from '../markdown/markdownToDocument.ts';
import { documentToHtml } from '../html/documentToHtml.ts';
import { extract, snippetAround } from './extract.ts';

const text = (value: string, marks?: JSONContent['marks']): JSONContent => (marks ? { type: 'text', text: value, marks } : { type: 'text', text: value });
const paragraph = (...content: JSONContent[]): JSONContent => (content.length ? { type: 'paragraph', content } : { type: 'paragraph' });
const heading = (level: number, id: string | null, ...content: JSONContent[]): JSONContent => ({ type: 'heading', attrs: { level, id }, content });
const wikilink = (targetSlug: string, displayText: string | null = null): JSONContent => ({ type: 'wikilink', attrs: { targetSlug, displayText } });
const mention = (id: string, label: string): JSONContent => ({ type: 'mention', attrs: { id, label } });
const doc = (...content: JSONContent[]): DocumentJson => {
  const document: DocumentJson = { type: 'doc', content };
  assertValidDocument(document);
  return document;
};

test('a document with every kind of derived data', () => {
  const input = doc(
    heading(1, 'garden-notes', text('Garden '), text('notes', [{ type: 'italic' }])),
    paragraph(text('See '), wikilink('tomatoes', 'the tomato page'), text(' and ask '), mention('u-7', 'Ada'), text('.')),
    { type: 'transclusion', attrs: { targetSlug: 'watering-plan', displayText: null } },
    { type: 'plugin_block', attrs: { pluginId: 'charts', blockType: 'bar', data: { values: [1, 2] }, svgSnapshot: '<svg/>' } },
    heading(2, 'beds', text('Beds')),
    {
      type: 'bulletList',
      content: [
        { type: 'listItem', content: [paragraph(text('North bed: '), wikilink('tomatoes'), text(' again'))] },
        { type: 'listItem', content: [paragraph(wikilink('herbs'), { type: 'hardBreak' }, text('mint', [{ type: 'link', attrs: { href: '/api/v1/media/f1a2b3c4-0000-4000-8000-000000000002' } }]))] },
      ],
    },
    { type: 'image', attrs: { fileId: 'F1A2B3C4-0000-4000-8000-000000000001', alt: 'A sketch', title: 'Plan' } },
    { type: 'image', attrs: { fileId: 'not-an-upload', alt: null, title: null } },
    { type: 'codeBlock', attrs: { language: 'sh' }, content: [text('water --all\nsleep 5')] },
    paragraph(),
    { type: 'transclusion', attrs: { targetSlug: 'watering-plan', displayText: 'again' } },
    paragraph(mention('u-7', 'Ada'), text(' and '), mention('u-9', 'Bo')),
    { type: 'horizontalRule' },
  );
  assert.deepEqual(extract(input), {
    outline: [
      { id: 'h-garden-notes', level: 1, text: 'Garden notes' },
      { id: 'h-beds', level: 2, text: 'Beds' },
    ],
    links: [
      { targetSlug: 'tomatoes', snippet: 'Garden notes See the tomato page and ask @Ada. Beds North bed: tomatoes again herbs mint A sketch water --all…' },
      { targetSlug: 'herbs', snippet: 'Garden notes See the tomato page and ask @Ada. Beds North bed: tomatoes again herbs mint A sketch water --all sleep 5 @Ada and @Bo' },
    ],
    transclusions: ['watering-plan'],
    mentions: ['u-7', 'u-9'],
    text: 'Garden notes\nSee the tomato page and ask @Ada.\nBeds\nNorth bed: tomatoes again\nherbs\nmint\nA sketch\nwater --all\nsleep 5\n@Ada and @Bo',
    titleCandidate: 'Garden notes',
    wordCount: 25,
    fileIds: ['f1a2b3c4-0000-4000-8000-000000000002', 'f1a2b3c4-0000-4000-8000-000000000001'],
  });
});

test('an empty document has no derived data', () => {
  assert.deepEqual(extract(doc(paragraph())), {
    outline: [],
    links: [],
    transclusions: [],
    mentions: [],
    text: '',
    titleCandidate: null,
    wordCount: 0,
    fileIds: [],
  });
});

test('the title candidate is the first heading with text, at any level', () => {
  const result = extract(doc(paragraph(text('intro')), heading(3, null), heading(3, 'deep', text('  Deep  '), { type: 'hardBreak' }, text('title'))));
  assert.deepEqual(result.outline, [
    { id: 'h-heading', level: 3, text: '' },
    { id: 'h-deep', level: 3, text: 'Deep title' },
  ]);
  assert.equal(result.titleCandidate, 'Deep title');
});

test('table cells, blockquotes, task items and sections each give a line', () => {
  const cell = (type: string, value: string): JSONContent => ({ type, content: [paragraph(text(value))] });
  const result = extract(
    doc(
      { type: 'table', content: [{ type: 'tableRow', content: [cell('tableHeader', 'Name'), cell('tableHeader', 'Kind')] }, { type: 'tableRow', content: [cell('tableCell', 'Basil'), cell('tableCell', 'herb')] }] },
      { type: 'blockquote', content: [paragraph(text('quoted'))] },
      { type: 'taskList', content: [{ type: 'taskItem', attrs: { checked: true }, content: [paragraph(text('done'))] }] },
      { type: 'section', attrs: { pluginId: 'callouts', styleId: 'note' }, content: [paragraph(wikilink('inner', 'In|ner'))] },
    ),
  );
  assert.equal(result.text, 'Name\nKind\nBasil\nherb\nquoted\ndone\nIn|ner');
  assert.deepEqual(result.links, [{ targetSlug: 'inner', snippet: 'Name Kind Basil herb quoted done In|ner' }]);
  assert.equal(result.wordCount, 7);
});

test('word count skips punctuation-only tokens and counts unicode words', () => {
  const result = extract(doc(paragraph(text('Grüße — 你好 مرحبا 🙂 a-b 42 ...'))));
  assert.equal(result.wordCount, 5);
});

test('snippets are cut at word boundaries with an ellipsis on each cut side', () => {
  const before = 'alpha '.repeat(20); // 120 characters
  const after = ' omega'.repeat(20);
  const source = `${before}LINK${after}`;
  const start = before.length;
  const snippet = snippetAround(source, start, start + 4);
  assert.equal(snippet, `…${'alpha '.repeat(13).trimEnd()} LINK${' omega'.repeat(13)}…`);
});

test('a snippet window inside a word drops the partial word; a word longer than the window stays', () => {
  assert.equal(snippetAround(`${'x'.repeat(85)} mid LINK tail`, 90, 94), `…mid LINK tail`);
  assert.equal(snippetAround(`${'x'.repeat(100)}LINK`, 100, 104), `…${'x'.repeat(80)}LINK`);
  assert.equal(snippetAround('short\n\n  LINK  end', 9, 13), 'short LINK end');
});

test('a wikilink with empty display text shows its slug, and only its first occurrence counts', () => {
  const result = extract(doc(paragraph(wikilink('a', ''), text(' '), wikilink('b', 'B'), text(' '), wikilink('a', 'again'))));
  assert.equal(result.text, 'a B again');
  assert.deepEqual(result.links, [
    { targetSlug: 'a', snippet: 'a B again' },
    { targetSlug: 'b', snippet: 'a B again' },
  ]);
});

test('a page read from Markdown: every field at once', () => {
  const markdown = [
    '# Garden log',
    '',
    'Planted by [@Ada](dt-mention:user-ada) on **Monday**; see [[beds|the beds]].',
    '',
    '![[weekly-plan]]',
    '',
    '## Beds',
    '',
    '- [x] dig [[beds]] and [[tools|the *tools*]]',
    '',
    '```dt-plugin charts/line',
    '{"label":"not text"}',
    '```',
    '',
    '![North bed](/api/v1/media/file-42 "North")',
    '',
    '## Beds',
  ].join('\n');
  const snippet = 'Garden log Planted by @Ada on Monday; see the beds. Beds dig beds and the *tools* North bed Beds';
  assert.deepEqual(extract(markdownToDocument(markdown)), {
    outline: [
      { id: 'h-garden-log', level: 1, text: 'Garden log' },
      { id: 'h-beds', level: 2, text: 'Beds' },
      { id: 'h-beds-2', level: 2, text: 'Beds' },
    ],
    links: [
      { targetSlug: 'beds', snippet },
      { targetSlug: 'tools', snippet },
    ],
    transclusions: ['weekly-plan'],
    mentions: ['user-ada'],
    text: 'Garden log\nPlanted by @Ada on Monday; see the beds.\nBeds\ndig beds and the *tools*\nNorth bed\nBeds',
    titleCandidate: 'Garden log',
    wordCount: 19,
    // `file-42` is no upload's id.
    fileIds: [],
  });
});

test('outline ids are the ids of the headings in the page HTML: stored, derived, made unique, prefixed', () => {
  const input = doc(
    heading(1, 'main', text('Main')),
    heading(2, null, text('Grüße, '), wikilink('welt', 'Welt'), { type: 'hardBreak' }, mention('u-1', 'Ada')),
    { type: 'blockquote', content: [heading(2, null, text('Main'))] },
    { type: 'bulletList', content: [{ type: 'listItem', content: [paragraph(text('x')), heading(3, '  app  ', text('App'))] }] },
    { type: 'section', attrs: { pluginId: 'p', styleId: 's' }, content: [heading(4, 'main', text('Again'))] },
    heading(5, null),
  );
  const outlineIds = extract(input).outline.map((entry) => entry.id);
  assert.deepEqual(outlineIds, ['h-main', 'h-grüße-welt-ada', 'h-main-2', 'h-app', 'h-main-3', 'h-heading']);
  const htmlIds = [...documentToHtml(input).matchAll(/<h[1-6] id="([^"]*)"/g)].map((match) => match[1]);
  assert.deepEqual(htmlIds, outlineIds);
});
