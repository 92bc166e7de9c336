/**
 * documentToMarkdown: exact Markdown per node and mark, escaping, and for every case that
 * Markdown can express, document → Markdown → document gives the document back (in the
 * schema's normal form, which is what the reader returns).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { assertValidDocument, documentSchema, type DocumentJson } from '../schema/documentSchema.ts';
import { documentToMarkdown } from './documentToMarkdown.ts';
import { markdownToDocument } from './markdownToDocument.ts';

type Mark = NonNullable<JSONContent['marks']>[number];

const bold: Mark = { type: 'bold' };
const italic: Mark = { type: 'italic' };
const strike: Mark = { type: 'strike' };
const code: Mark = { type: 'code' };
const link = (href: string): Mark => ({ type: 'link', attrs: { href } });

const text = (value: string, ...marks: Mark[]): JSONContent => (marks.length > 0 ? { type: 'text', text: value, marks } : { type: 'text', text: value });
const paragraph = (...content: JSONContent[]): JSONContent => (content.length > 0 ? { type: 'paragraph', content } : { type: 'paragraph' });
const hardBreak: JSONContent = { type: 'hardBreak' };
const heading = (level: number, id: string, ...content: JSONContent[]): JSONContent => ({ type: 'heading', attrs: { level, id }, content });
const wikilink = (targetSlug: string, displayText: string | null = null): JSONContent => ({ type: 'wikilink', attrs: { targetSlug, displayText } });
const transclusion = (targetSlug: string, displayText: string | null = null): JSONContent => ({ type: 'transclusion', attrs: { targetSlug, displayText } });
const mention = (id: string, label: string): JSONContent => ({ type: 'mention', attrs: { id, label } });
const item = (...content: JSONContent[]): JSONContent => ({ type: 'listItem', content });
const taskItem = (checked: boolean, ...content: JSONContent[]): JSONContent => ({ type: 'taskItem', attrs: { checked }, content });
const bulletList = (...items: JSONContent[]): JSONContent => ({ type: 'bulletList', content: items });
const looseBulletList = (...items: JSONContent[]): JSONContent => ({ type: 'bulletList', attrs: { tight: false }, content: items });
const cell = (type: 'tableHeader' | 'tableCell', ...content: JSONContent[]): JSONContent => ({ type, content: [paragraph(...content)] });
const row = (...cells: JSONContent[]): JSONContent => ({ type: 'tableRow', content: cells });
const pluginBlock = (pluginId: string, blockType: string, data: object): JSONContent => ({ type: 'plugin_block', attrs: { pluginId, blockType, data, svgSnapshot: null } });

function doc(...content: JSONContent[]): DocumentJson {
  return { type: 'doc', content };
}

/** The schema's normal form as plain JSON (every attribute present, marks in schema order). */
function normalForm(document: DocumentJson): DocumentJson {
  return JSON.parse(JSON.stringify(documentSchema.nodeFromJSON(document).toJSON())) as DocumentJson;
}

interface Case {
  name: string;
  doc: DocumentJson;
  markdown: string;
  /** Why the document does not come back unchanged, when Markdown cannot express it. */
  lossy?: string;
}

const cases: Case[] = [
  // Blocks
  { name: 'paragraphs', doc: doc(paragraph(text('One.')), paragraph(text('Two.'))), markdown: 'One.\n\nTwo.\n' },
  {
    name: 'headings 1–6, ids not written',
    doc: doc(heading(1, 'a', text('A')), heading(2, 'b', text('B')), heading(3, 'c', text('C')), heading(4, 'd', text('D')), heading(5, 'e', text('E')), heading(6, 'f', text('F'))),
    markdown: '# A\n\n## B\n\n### C\n\n#### D\n\n##### E\n\n###### F\n',
  },
  { name: 'heading with a trailing #', doc: doc(heading(2, 'c', text('C #'))), markdown: '## C \\#\n' },
  { name: 'blockquote', doc: doc({ type: 'blockquote', content: [paragraph(text('quoted')), paragraph(text('more'))] }), markdown: '> quoted\n>\n> more\n' },
  { name: 'horizontal rule between paragraphs', doc: doc(paragraph(text('a')), { type: 'horizontalRule' }, paragraph(text('b'))), markdown: 'a\n\n---\n\nb\n' },
  { name: 'code block with language', doc: doc({ type: 'codeBlock', attrs: { language: 'ts' }, content: [text('const a = 1;')] }), markdown: '```ts\nconst a = 1;\n```\n' },
  { name: 'code block without language, backticks inside', doc: doc({ type: 'codeBlock', attrs: { language: null }, content: [text('```\nx\n```')] }), markdown: '````\n```\nx\n```\n````\n' },
  { name: 'empty code block', doc: doc({ type: 'codeBlock', attrs: { language: null } }), markdown: '```\n```\n' },
  { name: 'bullet list', doc: doc(bulletList(item(paragraph(text('a'))), item(paragraph(text('b'))))), markdown: '- a\n- b\n' },
  {
    name: 'ordered list with start, nested bullet list',
    doc: doc({ type: 'orderedList', attrs: { start: 3 }, content: [item(paragraph(text('three')), bulletList(item(paragraph(text('inner'))))), item(paragraph(text('four')))] }),
    markdown: '3. three\n   - inner\n4. four\n',
  },
  {
    name: 'task list',
    doc: doc({ type: 'taskList', content: [taskItem(true, paragraph(text('done'))), taskItem(false, paragraph(text('todo')))] }),
    markdown: '- [x] done\n- [ ] todo\n',
  },
  {
    name: 'adjacent lists of one type stay apart (second bullet)',
    doc: doc(bulletList(item(paragraph(text('a')))), bulletList(item(paragraph(text('b'))))),
    markdown: '- a\n\n* b\n',
  },
  {
    name: 'adjacent task and plain lists are written as the one list they were split from',
    doc: doc({ type: 'taskList', content: [taskItem(false, paragraph(text('task')))] }, bulletList(item(paragraph(text('plain'))))),
    markdown: '- [ ] task\n- plain\n',
  },
  {
    name: 'loose adjacent task and plain lists stay loose as one list',
    doc: doc({ type: 'taskList', attrs: { tight: false }, content: [taskItem(false, paragraph(text('task')))] }, looseBulletList(item(paragraph(text('plain'))))),
    markdown: '- [ ] task\n\n- plain\n',
  },
  {
    name: 'adjacent task and plain lists of different tightness stay apart',
    doc: doc({ type: 'taskList', content: [taskItem(false, paragraph(text('task')))] }, looseBulletList(item(paragraph(text('a'))), item(paragraph(text('b'))))),
    markdown: '- [ ] task\n\n* a\n\n* b\n',
  },
  {
    name: 'list item with two paragraphs in a loose list',
    doc: doc(looseBulletList(item(paragraph(text('a')), paragraph(text('b'))))),
    markdown: '- a\n\n  b\n',
  },
  { name: 'loose bullet list: blank lines between items', doc: doc(looseBulletList(item(paragraph(text('a'))), item(paragraph(text('b'))))), markdown: '- a\n\n- b\n' },
  {
    name: 'loose ordered list holding a tight one',
    doc: doc({ type: 'orderedList', attrs: { start: 1, tight: false }, content: [item(paragraph(text('one')), bulletList(item(paragraph(text('x'))), item(paragraph(text('y'))))), item(paragraph(text('two')))] }),
    markdown: '1. one\n\n   - x\n   - y\n\n2. two\n',
  },
  {
    name: 'tight bullet list holding a loose one',
    doc: doc(bulletList(item(paragraph(text('a')), looseBulletList(item(paragraph(text('b'))), item(paragraph(text('c'))))), item(paragraph(text('d'))))),
    markdown: '- a\n  - b\n\n  - c\n- d\n',
  },
  {
    name: 'loose task list',
    doc: doc({ type: 'taskList', attrs: { tight: false }, content: [taskItem(true, paragraph(text('done'))), taskItem(false, paragraph(text('todo')))] }),
    markdown: '- [x] done\n\n- [ ] todo\n',
  },
  {
    name: 'tight list whose item holds two paragraphs',
    doc: doc(bulletList(item(paragraph(text('a')), paragraph(text('b'))))),
    markdown: '- a\n\n  b\n',
    lossy: 'two paragraphs need a blank line between them, which makes the list loose',
  },
  {
    name: 'loose list of one item with one paragraph',
    doc: doc(looseBulletList(item(paragraph(text('a'))))),
    markdown: '- a\n',
    lossy: 'there is nothing to put a blank line between, so the list reads back tight',
  },
  {
    name: 'table: header row, alignment, pipes, inline code with a pipe, empty cell',
    doc: doc({
      type: 'table',
      content: [
        row({ type: 'tableHeader', attrs: { align: 'left' }, content: [paragraph(text('Name'))] }, { type: 'tableHeader', attrs: { align: 'right' }, content: [paragraph(text('a|b'))] }),
        row({ type: 'tableCell', attrs: { align: 'left' }, content: [paragraph(text('x|y', code))] }, { type: 'tableCell', attrs: { align: 'right' }, content: [paragraph()] }),
      ],
    }),
    markdown: '| Name   | a\\|b |\n| :----- | ---: |\n| `x\\|y` |      |\n',
  },
  {
    name: 'table cell with a hard break',
    doc: doc({ type: 'table', content: [row(cell('tableHeader', text('h'))), row(cell('tableCell', text('a'), hardBreak, text('b')))] }),
    markdown: '| h   |\n| --- |\n| a b |\n',
    lossy: 'a GFM cell is one line: the break becomes a space',
  },
  { name: 'image with alt and title', doc: doc({ type: 'image', attrs: { fileId: 'f-1', alt: 'A pond', title: 'Spring' } }), markdown: '![A pond](/api/v1/media/f-1 "Spring")\n' },
  { name: 'image without alt or title', doc: doc({ type: 'image', attrs: { fileId: 'f-2', alt: null, title: null } }), markdown: '![](/api/v1/media/f-2)\n' },

  // Our nodes
  { name: 'wikilink', doc: doc(paragraph(text('See '), wikilink('pond-rules'), text('.'))), markdown: 'See [[pond-rules]].\n' },
  { name: 'wikilink with display text', doc: doc(paragraph(wikilink('pond-rules', 'the rules'))), markdown: '[[pond-rules|the rules]]\n' },
  {
    name: 'wikilink display text with pipes, brackets and backslashes',
    doc: doc(paragraph(wikilink('a', 'x|y]z\\w]'))),
    markdown: '[[a|x\\|y\\]z\\\\w\\]]]\n',
  },
  { name: 'wikilink display text with Markdown syntax stays literal', doc: doc(paragraph(wikilink('a', '*not* `code` [[x]]'))), markdown: '[[a|*not* `code` [[x\\]\\]]]\n' },
  { name: 'wikilink after a "!" is not an embed', doc: doc(paragraph(text('Wow!'), wikilink('a'))), markdown: 'Wow\\![[a]]\n' },
  { name: 'bold wikilink', doc: doc(paragraph({ ...wikilink('a', 'A'), marks: [bold] })), markdown: '**[[a|A]]**\n' },
  {
    name: 'wikilink in a table cell: escaped separator',
    doc: doc({ type: 'table', content: [row(cell('tableHeader', wikilink('a', 'x|y'))), row(cell('tableCell', wikilink('b')))] }),
    markdown: '| [[a\\|x\\|y]] |\n| ----------- |\n| [[b]]       |\n',
  },
  { name: 'transclusion', doc: doc(transclusion('weekly-notes')), markdown: '![[weekly-notes]]\n' },
  { name: 'transclusion with display text, between paragraphs', doc: doc(paragraph(text('a')), transclusion('x', 'X|Y'), paragraph(text('b'))), markdown: 'a\n\n![[x|X\\|Y]]\n\nb\n' },
  {
    name: 'transclusion in a list item keeps its own line',
    doc: doc(looseBulletList(item(paragraph(text('a')), transclusion('x')))),
    markdown: '- a\n\n  ![[x]]\n',
  },
  {
    name: 'plugin block',
    doc: doc(pluginBlock('charts', 'bar', { values: [1, 2], label: 'Ä' })),
    markdown: '```dt-plugin charts/bar\n{\n  "values": [\n    1,\n    2\n  ],\n  "label": "Ä"\n}\n```\n',
  },
  {
    name: 'plugin block with backticks in its data: longer fence',
    doc: doc(pluginBlock('code', 'snippet', { source: '````js\nx\n````' })),
    markdown: '`````dt-plugin code/snippet\n{\n  "source": "````js\\nx\\n````"\n}\n`````\n',
  },
  {
    name: 'plugin block: the svg snapshot is not written',
    doc: doc({ type: 'plugin_block', attrs: { pluginId: 'p', blockType: 't', data: {}, svgSnapshot: '<svg></svg>' } }),
    markdown: '```dt-plugin p/t\n{}\n```\n',
    lossy: 'svgSnapshot is a cache, not content',
  },
  {
    name: 'section',
    doc: doc({ type: 'section', attrs: { pluginId: 'callouts', styleId: 'warning' }, content: [paragraph(text('Careful.'))] }),
    markdown: ':::section{plugin="callouts" style="warning"}\nCareful.\n:::\n',
  },
  {
    name: 'nested sections get longer fences',
    doc: doc({ type: 'section', attrs: { pluginId: 'a', styleId: 'b' }, content: [paragraph(text('out')), { type: 'section', attrs: { pluginId: 'c', styleId: 'd' }, content: [paragraph(text('in'))] }] }),
    markdown: '::::section{plugin="a" style="b"}\nout\n\n:::section{plugin="c" style="d"}\nin\n:::\n::::\n',
  },
  { name: 'mention', doc: doc(paragraph(text('Ask '), mention('u-42', 'Anna Teich'))), markdown: 'Ask [@Anna Teich](dt-mention:u-42)\n' },
  { name: 'mention label with Markdown syntax', doc: doc(paragraph(mention('u-1', '*star*'))), markdown: '[@\\*star\\*](dt-mention:u-1)\n' },

  // Marks
  { name: 'bold, italic, strike, code', doc: doc(paragraph(text('b', bold), text(' '), text('i', italic), text(' '), text('s', strike), text(' '), text('c', code))), markdown: '**b** *i* ~~s~~ `c`\n' },
  { name: 'link', doc: doc(paragraph(text('site', link('https://example.org/a?b=c')))), markdown: '[site](https://example.org/a?b=c)\n' },
  { name: 'link whose text is its URL: autolink', doc: doc(paragraph(text('https://example.org', link('https://example.org')))), markdown: '<https://example.org>\n' },
  { name: 'mailto link keeps its colon unescaped', doc: doc(paragraph(text('mail', link('mailto:a@example.org')))), markdown: '[mail](mailto:a@example.org)\n' },
  { name: 'nested marks share their open marks', doc: doc(paragraph(text('a ', bold), text('b', bold, italic), text(' c', bold))), markdown: '**a *b* c**\n' },
  { name: 'bold inside a link', doc: doc(paragraph(text('x', link('https://e.org')), text('y', link('https://e.org'), bold), text('z'))), markdown: '[x**y**](https://e.org)z\n' },
  { name: 'italic inside a word', doc: doc(paragraph(text('Dorf'), text('teich', italic), text('e'))), markdown: 'Dorf*teich*e\n' },
  { name: 'bold inside a word', doc: doc(paragraph(text('a'), text('b', bold), text('c'))), markdown: 'a**b**c\n' },
  { name: 'bold ending in a space before a word: encoded space', doc: doc(paragraph(text('a '), text('b ', bold), text('c'))), markdown: 'a **b&#x20;**&#x63;\n' },
  { name: 'code next to bold code', doc: doc(paragraph(text('x', code), text('y'), text('z', bold))), markdown: '`x`y**z**\n' },
  { name: 'hard break', doc: doc(paragraph(text('a'), hardBreak, text('b'))), markdown: 'a\\\nb\n' },
  { name: 'hard break inside bold', doc: doc(paragraph(text('a', bold), hardBreak, text('b', bold))), markdown: '**a\\\nb**\n' },
  { name: 'hard break after bold', doc: doc(paragraph(text('a', bold), hardBreak, text('b'))), markdown: '**a**\\\nb\n' },
  { name: 'trailing hard break is dropped', doc: doc(paragraph(text('a'), hardBreak)), markdown: 'a\n', lossy: 'a backslash at the end of a paragraph is literal text' },

  // Escaping: text that looks like syntax stays text
  { name: 'emphasis and strike markers in text', doc: doc(paragraph(text('*a* _b_ **c** ~~d~~'))), markdown: '\\*a\\* \\_b\\_ \\*\\*c\\*\\* \\~\\~d\\~\\~\n' },
  { name: 'heading, list, quote and rule markers at line start', doc: doc(paragraph(text('# no')), paragraph(text('- no')), paragraph(text('1. no')), paragraph(text('> no')), paragraph(text('---'))), markdown: '\\# no\n\n\\- no\n\n1\\. no\n\n\\> no\n\n\\---\n' },
  { name: 'wikilink and transclusion syntax in text', doc: doc(paragraph(text('[[a]] and')), paragraph(text('![[b]]'))), markdown: '\\[\\[a]] and\n\n!\\[\\[b]]\n' },
  { name: 'directive syntax in text', doc: doc(paragraph(text(':::section{plugin="x"}')), paragraph(text('a :b'))), markdown: '::\\:section{plugin="x"}\n\na \\:b\n' },
  { name: 'HTML, entities and link syntax in text', doc: doc(paragraph(text('<b>x</b> &amp; [a](b) `c`'))), markdown: '\\<b>x\\</b> \\&amp; \\[a]\\(b) \\`c\\`\n' },
  { name: 'pipes and backslashes in text', doc: doc(paragraph(text('a | b \\ c \\*'))), markdown: 'a | b \\ c \\\\\\*\n' },
  { name: 'unicode', doc: doc(paragraph(text('Grüße 🦆 水池 שָׁלוֹם e\u0301')), heading(2, 'tëich', text('Tëich 🦆'))), markdown: 'Grüße 🦆 水池 שָׁלוֹם e\u0301\n\n## Tëich 🦆\n' },
  { name: 'a leading space is encoded, a trailing one dropped', doc: doc(paragraph(text(' a '))), markdown: '&#x20;a\n', lossy: 'Markdown has no space at the end of a paragraph' },
  { name: 'the space the editor leaves after a link, at the end: dropped, no &#x20;', doc: doc(paragraph(text('file.pdf', link('/api/v1/media/0b0c4d3e-1111-4222-8333-444455556666')), text(' '))), markdown: '[file.pdf](/api/v1/media/0b0c4d3e-1111-4222-8333-444455556666)\n', lossy: 'Markdown has no space at the end of a paragraph' },
  { name: 'trailing spaces and the breaks they leave are dropped; a code span keeps its own', doc: doc(paragraph(text('a', bold), hardBreak, text(' \t')), paragraph(text('b '), text('c ', code))), markdown: '**a**\n\nb `c `\n', lossy: 'Markdown has no space at the end of a paragraph' },

  // Empty nodes
  { name: 'empty paragraphs are dropped', doc: doc(paragraph(text('a')), paragraph(), paragraph(text('b'))), markdown: 'a\n\nb\n', lossy: 'Markdown has no empty paragraph' },
  { name: 'the empty document', doc: doc(paragraph()), markdown: '' },
  { name: 'empty list item and blockquote', doc: doc(bulletList(item(paragraph()), item(paragraph(text('b')))), { type: 'blockquote', content: [paragraph()] }), markdown: '-\n- b\n\n>\n' },
  { name: 'list item starting with a nested list', doc: doc(bulletList(item(paragraph(), bulletList(item(paragraph(text('n'))))))), markdown: '- - n\n' },
  { name: 'empty heading', doc: doc(heading(1, 'heading')), markdown: '#\n' },
];

for (const { name, doc: document, markdown, lossy } of cases) {
  test(`document → Markdown: ${name}`, () => {
    assertValidDocument(document);
    assert.equal(documentToMarkdown(document), markdown);
    if (!lossy) assert.deepEqual(normalForm(markdownToDocument(markdown)), normalForm(document), 'document → Markdown → document changed the document');
  });
}

test('document → Markdown: a mention inside a link drops the link around it (links cannot nest)', () => {
  const document = doc(paragraph(text('a', link('https://e.org')), { ...mention('u', 'U'), marks: [link('https://e.org')] }));
  assert.equal(documentToMarkdown(document), '[a](https://e.org)[@U](dt-mention:u)\n');
});

test('document → Markdown: Markdown → document → Markdown is a fixed point for every case', () => {
  for (const { markdown } of cases) {
    assert.equal(documentToMarkdown(markdownToDocument(markdown)), markdown);
  }
});
