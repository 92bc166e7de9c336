import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { assertValidDocument } from '../schema/documentSchema.ts';
import { documentToHtml } from './documentToHtml.ts';

const t = (text: string, marks?: JSONContent['marks']): JSONContent => (marks ? { type: 'text', text, marks } : { type: 'text', text });
const p = (...content: JSONContent[]): JSONContent => (content.length ? { type: 'paragraph', content } : { type: 'paragraph' });
const doc = (...content: JSONContent[]): JSONContent & { type: 'doc' } => ({ type: 'doc', content });

/** Every test document must be valid for our schema; the output must match exactly. */
function html(document: JSONContent & { type: 'doc' }, options?: Parameters<typeof documentToHtml>[1]): string {
  assertValidDocument(document);
  return documentToHtml(document, options);
}

describe('documentToHtml: blocks', () => {
  it('renders paragraphs; an empty one renders as nothing, as in CommonMark', () => {
    assert.equal(html(doc(p(t('one')), p())), '<p>one</p>');
    assert.equal(html(doc(p())), '');
    assert.equal(html(doc({ type: 'blockquote', content: [p()] })), '<blockquote></blockquote>');
  });

  it('renders headings with their stored id behind the h- prefix', () => {
    assert.equal(html(doc({ type: 'heading', attrs: { level: 3, id: 'intro' }, content: [t('Intro')] })), '<h3 id="h-intro">Intro</h3>');
  });

  it('derives missing heading ids from the text and keeps them unique', () => {
    const heading = (text: string, id: string | null = null): JSONContent => ({ type: 'heading', attrs: { level: 2, id }, content: [t(text)] });
    assert.equal(
      html(doc(heading('Hello World'), heading('Hello World'), heading('Other', 'hello-world'), heading('Grüße, Welt!'))),
      '<h2 id="h-hello-world">Hello World</h2><h2 id="h-hello-world-2">Hello World</h2><h2 id="h-hello-world-3">Other</h2><h2 id="h-grüße-welt">Grüße, Welt!</h2>',
    );
  });

  it('never renders an id the app could use: headings named after app ids get h- ids', () => {
    const heading = (text: string, id: string | null): JSONContent => ({ type: 'heading', attrs: { level: 1, id }, content: [t(text)] });
    assert.equal(
      html(doc(heading('Main', null), heading('x', 'app'), heading('y', 'login" onclick="x'))),
      '<h1 id="h-main">Main</h1><h1 id="h-app">x</h1><h1 id="h-login&#x22; onclick=&#x22;x">y</h1>',
    );
  });

  it('points links to a heading of the page at its prefixed id; other fragments stay', () => {
    const link = (href: string): JSONContent => t(href, [{ type: 'link', attrs: { href } }]);
    const heading = (text: string, id: string): JSONContent => ({ type: 'heading', attrs: { level: 2, id }, content: [t(text)] });
    assert.equal(
      html(doc(p(link('#intro'), link('#grüße'), link('#h-intro'), link('#nowhere'), link('#'), link('other#intro')), heading('Intro', 'intro'), heading('Grüße', 'grüße'))),
      '<p><a href="#h-intro">#intro</a><a href="#h-gr%C3%BC%C3%9Fe">#grüße</a><a href="#h-intro">#h-intro</a><a href="#nowhere">#nowhere</a><a href="#">#</a><a href="other#intro">other#intro</a></p>' +
        '<h2 id="h-intro">Intro</h2><h2 id="h-grüße">Grüße</h2>',
    );
  });

  it('renders blockquotes, rules and hard breaks', () => {
    assert.equal(html(doc({ type: 'blockquote', content: [p(t('a'), { type: 'hardBreak' }, t('b'))] }, { type: 'horizontalRule' })), '<blockquote><p>a<br>b</p></blockquote><hr>');
  });

  it('renders bullet and ordered lists, with start only when it is not 1', () => {
    const item = (text: string): JSONContent => ({ type: 'listItem', content: [p(t(text))] });
    assert.equal(
      html(doc({ type: 'bulletList', content: [item('a')] }, { type: 'orderedList', attrs: { start: 1 }, content: [item('b')] }, { type: 'orderedList', attrs: { start: 7 }, content: [item('c')] })),
      '<ul><li>a</li></ul><ol><li>b</li></ol><ol start="7"><li>c</li></ol>',
    );
  });

  it('renders loose lists with paragraphs, tight ones (the default) with their inline content', () => {
    const item = (...content: JSONContent[]): JSONContent => ({ type: 'listItem', content });
    const list = (tight: boolean, ...items: JSONContent[]): JSONContent => ({ type: 'bulletList', attrs: { tight }, content: items });
    assert.equal(html(doc(list(false, item(p(t('a'))), item(p(t('b'))), item(p())))), '<ul><li><p>a</p></li><li><p>b</p></li><li></li></ul>');
    // Tight: newlines between blocks (after a leading paragraph, around other blocks), as mdast-util-to-hast does.
    assert.equal(html(doc(list(true, item(p(t('a')), p(t('b'))), item(p())))), '<ul><li>a\nb</li><li></li></ul>');
    const looseInside = list(false, item(p(t('b'))), item(p(t('c'))));
    const code = { type: 'codeBlock', attrs: { language: null }, content: [t('x')] };
    assert.equal(
      html(doc(list(true, item(p(t('a')), looseInside), item(p(), code)))),
      '<ul><li>a\n<ul><li><p>b</p></li><li><p>c</p></li></ul>\n</li><li>\n<pre><code>x\n</code></pre>\n</li></ul>',
    );
  });

  it('renders task lists with disabled checkboxes first: inline when tight, inside the first paragraph when loose', () => {
    const task = (checked: boolean, text: string): JSONContent => ({ type: 'taskItem', attrs: { checked }, content: [p(t(text))] });
    assert.equal(
      html(doc({ type: 'taskList', content: [task(true, 'done'), task(false, 'open')] })),
      '<ul class="contains-task-list"><li class="task-list-item"><input type="checkbox" disabled checked> done</li><li class="task-list-item"><input type="checkbox" disabled> open</li></ul>',
    );
    assert.equal(
      html(doc({ type: 'taskList', attrs: { tight: false }, content: [task(true, 'done'), task(false, 'open')] })),
      '<ul class="contains-task-list"><li class="task-list-item"><p><input type="checkbox" disabled checked> done</p></li><li class="task-list-item"><p><input type="checkbox" disabled> open</p></li></ul>',
    );
  });

  it('renders code blocks with a language class, escaping the code', () => {
    assert.equal(html(doc({ type: 'codeBlock', attrs: { language: 'ts' }, content: [t('a < b && c')] })), '<pre><code class="language-ts">a &#x3C; b &#x26;&#x26; c\n</code></pre>');
    assert.equal(html(doc({ type: 'codeBlock', attrs: { language: null }, content: [t('x')] })), '<pre><code>x\n</code></pre>');
    assert.equal(html(doc({ type: 'codeBlock', attrs: { language: 'x" onclick="y' }, content: [t('x')] })), '<pre><code>x\n</code></pre>');
    assert.equal(html(doc({ type: 'codeBlock', attrs: { language: 'ruby startline=3 $%@#$' }, content: [t('x')] })), '<pre><code class="language-ruby">x\n</code></pre>');
    assert.equal(html(doc({ type: 'codeBlock', attrs: { language: null } })), '<pre><code></code></pre>');
  });

  it('renders tables with thead for leading header rows and tbody for the rest', () => {
    const cell = (type: string, text: string, attrs: Record<string, unknown> = {}): JSONContent => ({ type, attrs: { colspan: 1, rowspan: 1, colwidth: null, ...attrs }, content: [p(t(text))] });
    const table: JSONContent = {
      type: 'table',
      content: [
        { type: 'tableRow', content: [cell('tableHeader', 'A'), cell('tableHeader', 'B')] },
        { type: 'tableRow', content: [cell('tableCell', 'wide', { colspan: 2 })] },
      ],
    };
    assert.equal(html(doc(table)), '<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td colspan="2">wide</td></tr></tbody></table>');
  });

  it('renders images from the media endpoint, lazily', () => {
    assert.equal(html(doc({ type: 'image', attrs: { fileId: 'f1', alt: 'A cat', title: 'Cat' } })), '<img src="/api/v1/media/f1" alt="A cat" title="Cat" loading="lazy">');
    assert.equal(html(doc({ type: 'image', attrs: { fileId: 'a/b c', alt: null, title: null } })), '<img src="/api/v1/media/a%2Fb%20c" alt="" loading="lazy">');
  });

  it('keeps the alt text of an image without a file', () => {
    assert.equal(html(doc({ type: 'image', attrs: { fileId: null, alt: 'lost', title: null } })), '<p>lost</p>');
  });

  it('renders sections with the style class', () => {
    assert.equal(html(doc({ type: 'section', attrs: { pluginId: 'callouts', styleId: 'warning' }, content: [p(t('x'))] })), '<section class="dt-style-callouts-warning"><p>x</p></section>');
    assert.equal(html(doc({ type: 'section', attrs: { pluginId: 'a b', styleId: '"><x' }, content: [p()] })), '<section class="dt-style-a-b----x"></section>');
  });

  it('renders transclusions as placeholders holding a plain wikilink', () => {
    assert.equal(
      html(doc({ type: 'transclusion', attrs: { targetSlug: 'other-page', displayText: 'Other' } })),
      '<div data-dt-transclusion="other-page"><p><a href="other-page" data-slug="other-page" class="dt-wikilink">Other</a></p></div>',
    );
  });

  it('renders plugin blocks as numbered placeholders', () => {
    const block = (blockType: string): JSONContent => ({ type: 'plugin_block', attrs: { pluginId: 'charts', blockType, data: { a: 1 }, svgSnapshot: '<svg></svg>' } });
    assert.equal(
      html(doc(block('bar'), { type: 'blockquote', content: [block('pie')] })),
      '<div data-dt-plugin="charts/bar" data-dt-block="0"><p>[plugin content]</p></div><blockquote><div data-dt-plugin="charts/pie" data-dt-block="1"><p>[plugin content]</p></div></blockquote>',
    );
  });
});

describe('documentToHtml: inline content', () => {
  it('renders marks, sharing wrappers between neighbours', () => {
    assert.equal(
      html(doc(p(t('a', [{ type: 'bold' }]), t('b', [{ type: 'bold' }, { type: 'italic' }]), t('c', [{ type: 'strike' }]), t('d', [{ type: 'code' }])))),
      '<p><strong>a<em>b</em></strong><del>c</del><code>d</code></p>',
    );
  });

  it('keeps marks that continue open and nests marks opened together by how far they reach, as the Markdown did', () => {
    const [bold, italic] = [{ type: 'bold' }, { type: 'italic' }];
    // *a **b** c*, ***a** b*, ***a***, *a\⏎b*
    assert.equal(html(doc(p(t('a ', [italic]), t('b', [bold, italic]), t(' c', [italic])))), '<p><em>a <strong>b</strong> c</em></p>');
    assert.equal(html(doc(p(t('a', [bold, italic]), t(' b', [italic])))), '<p><em><strong>a</strong> b</em></p>');
    assert.equal(html(doc(p(t('a', [bold, italic])))), '<p><em><strong>a</strong></em></p>');
    assert.equal(html(doc(p(t('a', [italic]), { type: 'hardBreak' }, t('b', [italic])))), '<p><em>a<br>b</em></p>');
    assert.equal(html(doc(p(t('a', [italic]), { type: 'hardBreak' }, t('b')))), '<p><em>a</em><br>b</p>');
  });

  it('renders link titles and empty link targets', () => {
    const link = (text: string, href: string, title: string | null = null): JSONContent => t(text, [{ type: 'link', attrs: { href, title } }]);
    assert.equal(
      html(doc(p(link('a', '/x', 'A "title" & more'), link('b', ''), link('c', '/x', ''), link('d', '/x', 'other')))),
      '<p><a href="/x" title="A &#x22;title&#x22; &#x26; more">a</a><a href="">b</a><a href="/x">c</a><a href="/x" title="other">d</a></p>',
    );
  });

  it('puts links outermost whatever the order of marks in the JSON', () => {
    assert.equal(html(doc(p(t('x', [{ type: 'bold' }, { type: 'link', attrs: { href: 'https://example.org' } }])))), '<p><a href="https://example.org"><strong>x</strong></a></p>');
  });

  it('keeps http, https, mailto and relative hrefs and drops other schemes', () => {
    const link = (href: string): JSONContent => t(href, [{ type: 'link', attrs: { href } }]);
    assert.equal(
      html(doc(p(link('mailto:a@b.c'), link('/x?y=1'), link('javascript:alert(1)'), link('ftp://x')))),
      '<p><a href="mailto:a@b.c">mailto:a@b.c</a><a href="/x?y=1">/x?y=1</a><a>javascript:alert(1)</a><a>ftp://x</a></p>',
    );
  });

  it('renders wikilinks with the resolved href, phantoms without href', () => {
    const resolveLink = (slug: string) => (slug === 'here' ? { href: '/public/pond/here' } : null);
    assert.equal(
      html(doc(p({ type: 'wikilink', attrs: { targetSlug: 'here', displayText: null } }, t(' '), { type: 'wikilink', attrs: { targetSlug: 'gone', displayText: 'Gone' } })), { resolveLink }),
      '<p><a href="/public/pond/here" data-slug="here" class="dt-wikilink">here</a> <a data-slug="gone" class="dt-wikilink dt-phantom">Gone</a></p>',
    );
  });

  it('does not nest a link mark around a wikilink', () => {
    assert.equal(
      html(doc(p({ type: 'wikilink', attrs: { targetSlug: 's', displayText: null }, marks: [{ type: 'link', attrs: { href: 'https://x.org' } }, { type: 'bold' }] }))),
      '<p><strong><a href="s" data-slug="s" class="dt-wikilink">s</a></strong></p>',
    );
  });

  it('renders mentions with the user id', () => {
    assert.equal(html(doc(p({ type: 'mention', attrs: { id: 'u-42', label: 'Ada' } }))), '<p><span class="dt-mention" data-dt-mention="u-42">@Ada</span></p>');
  });

  it('escapes text', () => {
    assert.equal(html(doc(p(t('<b>&amp;</b>')))), '<p>&#x3C;b>&#x26;amp;&#x3C;/b></p>');
  });
});
