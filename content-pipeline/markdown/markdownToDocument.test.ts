import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertValidDocument, EMPTY_DOCUMENT } from '../schema/documentSchema.ts';
import { createHeadingSlugger, headingSlug } from './headingIds.ts';
import { createMarkdownParser, markdownToDocument } from './markdownToDocument.ts';

// --- builders for the expected JSON (canonical ProseMirror JSON, all attrs present) ---------

type Json = Record<string, unknown>;

const bold = { type: 'bold' };
const italic = { type: 'italic' };
const strike = { type: 'strike' };
const code = { type: 'code' };
const link = (href: string, title: string | null = null) => ({ type: 'link', attrs: { href, target: '_blank', rel: 'noopener noreferrer nofollow', class: null, title } });

const t = (text: string, ...marks: Json[]): Json => (marks.length > 0 ? { type: 'text', marks, text } : { type: 'text', text });
const p = (...content: Json[]): Json => (content.length > 0 ? { type: 'paragraph', content } : { type: 'paragraph' });
const h = (level: number, id: string, ...content: Json[]): Json => (content.length > 0 ? { type: 'heading', attrs: { id, level }, content } : { type: 'heading', attrs: { id, level } });
const quote = (...content: Json[]): Json => ({ type: 'blockquote', content });
const bullets = (...items: Json[]): Json => ({ type: 'bulletList', attrs: { tight: true }, content: items });
const ordered = (start: number, ...items: Json[]): Json => ({ type: 'orderedList', attrs: { tight: true, start, type: null }, content: items });
const li = (...content: Json[]): Json => ({ type: 'listItem', content });
const tasks = (...items: Json[]): Json => ({ type: 'taskList', attrs: { tight: true }, content: items });
/** The same list, loose. */
const loose = (list: Json): Json => ({ ...list, attrs: { ...(list['attrs'] as Json), tight: false } });
const task = (checked: boolean, ...content: Json[]): Json => ({ type: 'taskItem', attrs: { checked }, content });
const codeBlock = (language: string | null, text?: string): Json => (text === undefined ? { type: 'codeBlock', attrs: { language } } : { type: 'codeBlock', attrs: { language }, content: [t(text)] });
const hr = { type: 'horizontalRule' };
const br = { type: 'hardBreak' };
const image = (fileId: string, alt: string | null, title: string | null = null): Json => ({ type: 'image', attrs: { fileId, alt, title } });
const wikilink = (targetSlug: string, displayText: string | null = null, ...marks: Json[]): Json =>
  marks.length > 0 ? { type: 'wikilink', attrs: { targetSlug, displayText }, marks } : { type: 'wikilink', attrs: { targetSlug, displayText } };
const transclusion = (targetSlug: string, displayText: string | null = null): Json => ({ type: 'transclusion', attrs: { targetSlug, displayText } });
const mention = (id: string, label: string, ...marks: Json[]): Json => (marks.length > 0 ? { type: 'mention', attrs: { id, label }, marks } : { type: 'mention', attrs: { id, label } });
const pluginBlock = (pluginId: string, blockType: string, data: Json): Json => ({ type: 'plugin_block', attrs: { pluginId, blockType, data, svgSnapshot: null } });
const section = (pluginId: string, styleId: string, ...content: Json[]): Json => ({ type: 'section', attrs: { pluginId, styleId }, content });
const table = (...rows: Json[][]): Json => ({ type: 'table', content: rows.map((cells) => ({ type: 'tableRow', content: cells })) });
const cell = (type: 'tableHeader' | 'tableCell', align: string | null, ...content: Json[]): Json => ({ type, attrs: { colspan: 1, rowspan: 1, colwidth: null, align }, content: [p(...content)] });
const th = (align: string | null, ...content: Json[]) => cell('tableHeader', align, ...content);
const td = (align: string | null, ...content: Json[]) => cell('tableCell', align, ...content);

/** Reads Markdown, checks the result against the schema and returns its blocks. */
function blocks(markdown: string): unknown[] {
  const document = markdownToDocument(markdown);
  assertValidDocument(document);
  return document.content ?? [];
}

function read(markdown: string, ...expected: Json[]): void {
  assert.deepEqual(blocks(markdown), expected);
}

// ---------------------------------------------------------------------------------------------

describe('markdownToDocument: document shape', () => {
  it('reads empty and blank input as the empty document', () => {
    assert.deepEqual(markdownToDocument(''), EMPTY_DOCUMENT);
    assert.deepEqual(markdownToDocument('  \n\n\t\n'), EMPTY_DOCUMENT);
  });

  it('returns plain JSON objects', () => {
    const document = markdownToDocument('# x');
    assert.equal(Object.getPrototypeOf(document.content?.[0]?.attrs), Object.prototype);
  });

  it('keeps soft line breaks as newlines inside the text', () => {
    read('a\nb', p(t('a\nb')));
  });

  it('reads unicode as it is', () => {
    read('ünïcødé 日本語 🐸 עברית', p(t('ünïcødé 日本語 🐸 עברית')));
  });

  it('decodes entities into text', () => {
    read('&lt;script&gt; &amp; &#x1F600;', p(t('<script> & 😀')));
  });
});

describe('markdownToDocument: CommonMark blocks', () => {
  it('reads headings with ids unique within the document', () => {
    read('# A\n## A\n# A-2\n#\n# Ünïcödé — title!\nSetext\n===', h(1, 'a', t('A')), h(2, 'a-2', t('A')), h(1, 'a-2-2', t('A-2')), h(1, 'heading'), h(1, 'ünïcödé-title', t('Ünïcödé — title!')), h(1, 'setext', t('Setext')));
  });

  it('derives heading ids from wikilinks and mentions too', () => {
    read('### [[Page|The Page]] by [@Ann](dt-mention:u1)', h(3, 'the-page-by-ann', wikilink('Page', 'The Page'), t(' by '), mention('u1', 'Ann')));
  });

  it('reads block quotes, with lists inside and empty ones', () => {
    read('> - a\n>   - b\n>\n> c', quote(bullets(li(p(t('a')), bullets(li(p(t('b')))))), p(t('c'))));
    read('>', quote(p()));
  });

  it('reads bullet and ordered lists, nested, with their start number', () => {
    read('- a\n  1. b\n  2. c\n- d', bullets(li(p(t('a')), ordered(1, li(p(t('b'))), li(p(t('c'))))), li(p(t('d')))));
    read('3. a\n4. b', ordered(3, li(p(t('a'))), li(p(t('b')))));
  });

  it('reads lists as tight or loose, as CommonMark renders them', () => {
    // Blank lines between items, or between the blocks of any one item, make a list loose.
    read('- a\n\n- b', loose(bullets(li(p(t('a'))), li(p(t('b'))))));
    read('1. a\n\n   b\n2. c', loose(ordered(1, li(p(t('a')), p(t('b'))), li(p(t('c'))))));
    // Each list decides for itself: tight in loose, loose in tight.
    read('- a\n  - b\n  - c\n\n- d', loose(bullets(li(p(t('a')), bullets(li(p(t('b'))), li(p(t('c'))))), li(p(t('d'))))));
    read('- a\n  - b\n\n  - c\n- d', bullets(li(p(t('a')), loose(bullets(li(p(t('b'))), li(p(t('c')))))), li(p(t('d')))));
    // A blank line at the end of the list or before the next block does not count.
    read('- a\n- b\n\nafter', bullets(li(p(t('a'))), li(p(t('b')))), p(t('after')));
  });

  it('gives list items a leading paragraph, empty when the item has none', () => {
    read('- \n- ```\n  x\n  ```', bullets(li(p()), li(p(), codeBlock(null, 'x'))));
  });

  it('reads code blocks, keeping the whole info string as the language', () => {
    read('```ts\nlet x = 1;\n```', codeBlock('ts', 'let x = 1;'));
    read('```js title="a b"\nlet x;\n```', codeBlock('js title="a b"', 'let x;'));
    read('```\n```', codeBlock(null));
    read('    indented\n', codeBlock(null, 'indented'));
  });

  it('reads thematic breaks and hard breaks (which carry no marks)', () => {
    read('---\n***', hr, hr);
    read('**a\\\nb**  \nc', p(t('a', bold), br, t('b', bold), br, t('c')));
  });

  it('drops reference definitions, which only serve the references using them', () => {
    read('[a]: /b', p());
    read('[a][r] and ![img][i]\n\n[r]: /u "T"\n[i]: /api/v1/media/f9', p(t('a', link('/u', 'T')), t(' and')), image('f9', 'img'));
  });
});

describe('markdownToDocument: marks', () => {
  it('reads bold, italic, strike and code', () => {
    read('**b** *i* ~~s~~ ~s~ `c`', p(t('b', bold), t(' '), t('i', italic), t(' '), t('s', strike), t(' '), t('s', strike), t(' '), t('c', code)));
  });

  it('nests marks in schema order (link, bold, italic, strike) and merges equal neighbours', () => {
    read('***[a ~~b~~](u "t")***', p(t('a ', link('u', 't'), bold, italic), t('b', link('u', 't'), bold, italic, strike)));
    read('**a** **b**', p(t('a', bold), t(' '), t('b', bold)));
    read('a <b> c', p(t('a <b> c')));
  });

  it('keeps code together with links, bold and italic (the schema lets code combine)', () => {
    read('[a `c`](u)', p(t('a ', link('u')), t('c', link('u'), code)));
    read('**`x`** and *`y`*', p(t('x', bold, code), t(' and '), t('y', italic, code)));
  });

  it('reads links, autolinks and links without text', () => {
    read('[a](http://x "T")', p(t('a', link('http://x', 'T'))));
    read('<http://a.b> www.x.com', p(t('http://a.b', link('http://a.b')), t(' '), t('www.x.com', link('http://www.x.com'))));
    read('[](http://x)', p(t('http://x', link('http://x'))));
  });

  it('keeps link targets of any scheme for the HTML sanitizer to judge', () => {
    read('[x](javascript:alert(1))', p(t('x', link('javascript:alert(1)'))));
  });
});

describe('markdownToDocument: GFM', () => {
  it('reads task lists, splitting a list that mixes task and plain items', () => {
    read('- [ ] a\n  - [x] b\n- c\n- [x] d', tasks(task(false, p(t('a')), tasks(task(true, p(t('b')))))), bullets(li(p(t('c')))), tasks(task(true, p(t('d')))));
  });

  it('gives every run of a split list the tightness of the whole list', () => {
    read('- [ ] a\n\n- b\n- [x] c', loose(tasks(task(false, p(t('a'))))), loose(bullets(li(p(t('b'))))), loose(tasks(task(true, p(t('c'))))));
    read('- [x] a\n- [ ] b', tasks(task(true, p(t('a'))), task(false, p(t('b')))));
  });

  it('shows the boxes of ordered task items as text (task lists are unordered)', () => {
    read('1. [x] done\n2. [ ] open', ordered(1, li(p(t('[x] done'))), li(p(t('[ ] open')))));
  });

  it('reads tables: header row, alignment, one paragraph per cell, escaped pipes', () => {
    read(
      '| a \\| b | `c\\|d` |\n|:-:|--:|\n| **x** | |',
      table([th('center', t('a | b')), th('right', t('c|d', code))], [td('center', t('x', bold)), td('right')]),
    );
  });

  it('pads short rows and keeps the cells of long ones', () => {
    read('| a |\n|---|\n| 1 | 2 |\n|', table([th(null, t('a')), th(null)], [td(null, t('1')), td(null, t('2'))], [td(null), td(null)]));
  });
});

describe('markdownToDocument: images', () => {
  it('reads an uploaded image standing alone as an image block', () => {
    read('![A](/api/v1/media/f1 "T")', image('f1', 'A', 'T'));
    read('![](/api/v1/media/f1)', image('f1', null));
  });

  it('splits a paragraph around uploaded images, dropping the whitespace at the cuts', () => {
    read('Look ![A](/api/v1/media/f1) here\\\n![B](/api/v1/media/f2)', p(t('Look')), image('f1', 'A'), p(t('here')), image('f2', 'B'));
  });

  it('turns other images into links whose text is the alt (or the URL)', () => {
    read('![alt](http://e/y.png "t") ![](http://e/x.png)', p(t('alt', link('http://e/y.png', 't')), t(' '), t('http://e/x.png', link('http://e/x.png'))));
    read('![A](/api/v1/media/a/b)', p(t('A', link('/api/v1/media/a/b'))));
  });

  it('turns uploaded images where no block can stand into links', () => {
    read('# H ![A](/api/v1/media/f1)', h(1, 'h-a', t('H '), t('A', link('/api/v1/media/f1'))));
    read('| ![i](/api/v1/media/f) |\n|-|', table([th(null, t('i', link('/api/v1/media/f')))]));
  });

  it('turns an image inside a link into its alt under that link', () => {
    read('[![A](/api/v1/media/f1)](http://x)', p(t('A', link('http://x'))));
  });
});

describe('markdownToDocument: wikilinks', () => {
  it('reads [[slug]] and [[slug|text]]', () => {
    read('see [[a-b]] and [[Page|the page]]', p(t('see '), wikilink('a-b'), t(' and '), wikilink('Page', 'the page')));
  });

  it('unescapes pipes, brackets and backslashes in the display text', () => {
    read('[[p|a \\| b \\] c \\\\ d [x\\]]]', p(wikilink('p', 'a | b ] c \\ d [x]')));
    // The first unescaped `]]` ends the wikilink: a last `]` of the text must be escaped.
    read('[[p|[x]]]', p(wikilink('p', '[x'), t(']')));
    read('[[p|Ünï 😀 `x` *y*]]', p(wikilink('p', 'Ünï 😀 `x` *y*')));
  });

  it('accepts the separator escaped, as written in table cells', () => {
    read('[[p\\|text]]', p(wikilink('p', 'text')));
    read('| [[s\\|T\\|x]] |\n|-|', table([th(null, wikilink('s', 'T|x'))]));
  });

  it('treats an empty display text as none', () => {
    read('[[a|]]', p(wikilink('a')));
  });

  it('carries the marks around it', () => {
    read('**[[b]]** [see [[c]]](http://u)', p(wikilink('b', null, bold), t(' '), t('see ', link('http://u')), wikilink('c', null, link('http://u'))));
  });

  it('leaves brackets that are no wikilink as Markdown', () => {
    read('[[not a slug]] [[]] [[a|b', p(t('[[not a slug]] [[]] [[a|b')));
    read('[[a|line\nbreak]]', p(t('[[a|line\nbreak]]')));
    read('[[*foo* bar]]\n\n[*foo* bar]: /url', p(t('['), t('foo', link('/url'), italic), t(' bar', link('/url')), t(']')));
  });
});

describe('markdownToDocument: transclusions', () => {
  it('reads a standalone ![[slug]] line as a transclusion, one per line', () => {
    read('![[t1]]', transclusion('t1'));
    read('![[t1]]\n![[t2|Two \\| x]]', transclusion('t1'), transclusion('t2', 'Two | x'));
  });

  it('reads transclusions inside containers', () => {
    read('> ![[t1]]', quote(transclusion('t1')));
    read('- ![[t1]]', bullets(li(p(), transclusion('t1'))));
  });

  it('degrades an embed inside other content to ! and a wikilink', () => {
    read('x ![[t1]]', p(t('x !'), wikilink('t1')));
    read('![[a]] ![[b]]', p(t('!'), wikilink('a'), t(' !'), wikilink('b')));
    read('# ![[t2]]', h(1, 't2', t('!'), wikilink('t2')));
  });
});

describe('markdownToDocument: mentions', () => {
  it('reads [@Label](dt-mention:id) as a mention, with the marks around it', () => {
    read('[@Ann Lee](dt-mention:u1) **[@Bo](dt-mention:u2)**', p(mention('u1', 'Ann Lee'), t(' '), mention('u2', 'Bo', bold)));
  });

  it('keeps a mention link without an id as a link', () => {
    read('[x](dt-mention:)', p(t('x', link('dt-mention:'))));
  });
});

describe('markdownToDocument: plugin blocks', () => {
  it('reads a dt-plugin fence with a JSON object body', () => {
    read('```dt-plugin kroki/diagram\n{"a": 1, "b": [true, null]}\n```', pluginBlock('kroki', 'diagram', { a: 1, b: [true, null] }));
  });

  it('reads backticks in the data behind a longer fence', () => {
    read('````dt-plugin kroki/diagram\n{"src":"```js\\nx\\n```"}\n````', pluginBlock('kroki', 'diagram', { src: '```js\nx\n```' }));
  });

  it('keeps anything but a JSON object, or a malformed info string, as a code block', () => {
    read('```dt-plugin kroki/diagram\n{not json\n```', codeBlock('dt-plugin kroki/diagram', '{not json'));
    read('```dt-plugin kroki/diagram\n[1]\n```', codeBlock('dt-plugin kroki/diagram', '[1]'));
    read('```dt-plugin kroki\n{}\n```', codeBlock('dt-plugin kroki', '{}'));
    read('```dt-plugin a/b c\n{}\n```', codeBlock('dt-plugin a/b c', '{}'));
  });
});

describe('markdownToDocument: sections and other directives', () => {
  it('reads a section container', () => {
    read(':::section{plugin="p" style="s"}\nin **it**\n:::', section('p', 's', p(t('in '), t('it', bold))));
  });

  it('nests sections with longer fences', () => {
    read('::::section{plugin="a" style="b"}\n:::section{plugin="c" style="d"}\ninner\n:::\nouter\n::::', section('a', 'b', section('c', 'd', p(t('inner'))), p(t('outer'))));
  });

  it('gives an empty section an empty paragraph and keeps a label as a paragraph', () => {
    read(':::section{plugin="p" style="s"}\n:::', section('p', 's', p()));
    read(':::section[Label]{plugin="p"}\nx\n:::', section('p', '', p(t('Label')), p(t('x'))));
  });

  it('gives prose that remark-directive reads as text directives back as text', () => {
    read('Note:this at 12:30 :smile: and :name[**label**]{a=1}', p(t('Note:this at 12:30 :smile: and :name[**label**]{a=1}')));
  });

  it('turns other leaf and container directives back into their lines, keeping the content', () => {
    read('::leaf[x]{y=1}', p(t('::leaf[x]{y=1}')));
    read(':::note[Title]{.c}\ninside *it*\n:::', p(t(':::note[Title]{.c}')), p(t('inside '), t('it', italic)), p(t(':::')));
    read('> :::warn\n> body\n> :::', quote(p(t(':::warn')), p(t('body')), p(t(':::'))));
    read(':::open\nnever closed', p(t(':::open')), p(t('never closed')));
  });
});

describe('markdownToDocument: unsupported input degrades to text', () => {
  it('keeps inline raw HTML as text', () => {
    read('a <span onclick="x()">b</span> c', p(t('a <span onclick="x()">b</span> c')));
  });

  it('keeps HTML blocks as paragraphs of their lines', () => {
    read('<div>\n<script>alert(1)</script>\n</div>\n\nafter', p(t('<div>\n<script>alert(1)</script>\n</div>')), p(t('after')));
    read('<pre>\nx\n\ny\n</pre>', p(t('<pre>\nx')), p(t('y\n</pre>')));
    read('<!-- hidden? -->', p(t('<!-- hidden? -->')));
  });

  it('keeps footnotes as their literal text', () => {
    read('Text[^1].\n\n[^1]: The *note*.', p(t('Text[^1].')), p(t('[^1]: The '), t('note', italic), t('.')));
  });
});

describe('createMarkdownParser', () => {
  it('parses our dialect into mdast nodes of our own', () => {
    const parser = createMarkdownParser();
    const tree = parser.runSync(parser.parse('[[a|b]]\n\n![[c]]'), '[[a|b]]\n\n![[c]]');
    const strip = (node: unknown): unknown => JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'position' ? undefined : value)));
    assert.deepEqual(strip(tree), {
      type: 'root',
      children: [
        { type: 'paragraph', children: [{ type: 'wikiLink', value: 'b', targetSlug: 'a', displayText: 'b', embedded: false }] },
        { type: 'transclusion', value: 'c', targetSlug: 'c', displayText: null },
      ],
    });
  });
});

describe('headingIds', () => {
  it('slugifies heading text, keeping letters of any script', () => {
    assert.equal(headingSlug('Hello, World!'), 'hello-world');
    assert.equal(headingSlug('  Ünïcödé   — 日本語 '), 'ünïcödé-日本語');
    assert.equal(headingSlug('snake_case and-hyphens'), 'snake_case-and-hyphens');
    assert.equal(headingSlug('🐸!?'), 'heading');
  });

  it('numbers repeats from -2 and never repeats an id', () => {
    const slug = createHeadingSlugger();
    assert.deepEqual(['A', 'a', 'A', 'a-2', ''].map(slug), ['a', 'a-2', 'a-3', 'a-2-2', 'heading']);
  });
});
