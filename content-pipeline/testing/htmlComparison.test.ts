import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalHtml,
  parseHtmlFragment,
  withContainersHoldingParagraphs,
  withFlatMarks,
  withImagePolicy,
  withSanitizingPolicy,
  withWikilinksAsText,
} from './htmlComparison.ts';

const canonical = (html: string): string => canonicalHtml(parseHtmlFragment(html));

test('canonical HTML ignores attribute order, quoting, entities, self-closing forms and block whitespace', () => {
  assert.equal(canonical('<p>\n  a &amp; <a title=\'t\' href="/x">b</a><br />\n c\n</p>\n<hr/>'), '<p>a &amp; <a href="/x" title="t">b</a><br>c</p><hr>');
  assert.equal(canonical('<pre><code>  x\n\n</code></pre>'), '<pre><code>  x&#10;&#10;</code></pre>');
});

test('flat marks: nesting order is canonical, same-kind nesting collapses, breaks carry no marks', () => {
  const flat = (html: string): string => canonicalHtml(withFlatMarks(parseHtmlFragment(html)));
  assert.equal(flat('<p><em>a <strong>b</strong> c</em></p>'), '<p><em>a </em><strong><em>b</em></strong><em> c</em></p>');
  assert.equal(flat('<p><em>a <em>b</em></em></p>'), '<p><em>a b</em></p>');
  assert.equal(flat('<p><em>a<br>b</em></p>'), '<p><em>a</em><br><em>b</em></p>');
});

test('containers hold paragraphs: empty paragraphs go, tight list items stay as they are', () => {
  const rewritten = canonicalHtml(withContainersHoldingParagraphs(parseHtmlFragment('<ul><li>a<ul><li>b</li></ul></li></ul><ol><li><p></p><pre><code>x</code></pre></li></ol><blockquote><p></p></blockquote>')));
  assert.equal(rewritten, '<ul><li>a<ul><li>b</li></ul></li></ul><ol><li><pre><code>x</code></pre></li></ol><blockquote></blockquote>');
});

test('image policy: images become links with their alt (or URL), just text inside a link', () => {
  const rewritten = canonicalHtml(withImagePolicy(parseHtmlFragment('<p><img src="/a.png" alt="A" title="T"> <img src="/b.png" alt=""> <a href="/u"><img src="/c.png" alt="C"></a></p>')));
  assert.equal(rewritten, '<p><a href="/a.png">A</a> <a href="/b.png">/b.png</a> <a href="/u">C</a></p>');
});

test('sanitizing policy: titles, unsafe and empty hrefs and unusual language classes go', () => {
  const rewritten = canonicalHtml(
    withSanitizingPolicy(parseHtmlFragment('<p><a href="javascript:x" title="t">j</a><a href="">e</a><a href="/x"></a><a href="MAILTO:a@b">m</a></p><pre><code class="language-föö">x</code></pre>')),
  );
  assert.equal(rewritten, '<p><a>j</a><a>e</a><a href="/x">/x</a><a>m</a></p><pre><code>x</code></pre>');
});

test('wikilinks and transclusions turn back into their dialect text', () => {
  const html = '<p><a class="dt-wikilink" data-slug="a" href="a">a</a> <a class="dt-wikilink" data-slug="b" href="b">B</a></p><div data-dt-transclusion="c"><p>x</p></div>';
  assert.equal(canonicalHtml(withWikilinksAsText(parseHtmlFragment(html))), '<p>[[a]] [[b|B]]</p><p>![[c]]</p>');
});
