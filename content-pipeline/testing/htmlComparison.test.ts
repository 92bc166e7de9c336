import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalHtml,
  parseHtmlFragment,
  withFlatMarks,
  withImagePolicy,
  withLanguageClassesRestricted,
  withLinksNeedingText,
  withoutHeadingIds,
  withUnsafeSchemesDropped,
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

test('image policy: images become links with their title and alt (or URL), just text inside a link', () => {
  const rewritten = canonicalHtml(withImagePolicy(parseHtmlFragment('<p><img src="/a.png" alt="A" title="T"> <img src="/b.png" alt=""> <a href="/u"><img src="/c.png" alt="C"></a></p>')));
  assert.equal(rewritten, '<p><a href="/a.png" title="T">A</a> <a href="/b.png">/b.png</a> <a href="/u">C</a></p>');
});

test('unsafe schemes: hrefs with a scheme other than http, https, mailto lose the href; relative, empty ones and titles stay', () => {
  const rewritten = canonicalHtml(
    withUnsafeSchemesDropped(parseHtmlFragment('<p><a href="javascript:x" title="t">j</a><a href="">e</a><a href="/x:y">r</a><a href="MAILTO:a@b">m</a><a href="https://x" title="t">h</a></p>')),
  );
  assert.equal(rewritten, '<p><a title="t">j</a><a href="">e</a><a href="/x:y">r</a><a>m</a><a href="https://x" title="t">h</a></p>');
});

test('links need text: a link without text shows its URL, one without text and URL goes with its empty paragraph', () => {
  assert.equal(canonicalHtml(withLinksNeedingText(parseHtmlFragment('<p><a href="/x" title="t"></a></p><p><a href=""></a></p><p>a<a href="">b</a></p>'))), '<p><a href="/x" title="t">/x</a></p><p>a<a href="">b</a></p>');
});

test('language classes: only letters, digits and _#+.- after language-', () => {
  assert.equal(canonicalHtml(withLanguageClassesRestricted(parseHtmlFragment('<pre><code class="language-föö">x</code></pre><pre><code class="language-;">y</code></pre>'))), '<pre><code className="language-föö">x</code></pre><pre><code>y</code></pre>');
});

test('heading ids are removed from headings only', () => {
  assert.equal(canonicalHtml(withoutHeadingIds(parseHtmlFragment('<h2 id="h-a">A</h2><p id="x">b</p>'))), '<h2>A</h2><p id="x">b</p>');
});

test('wikilinks and transclusions turn back into their dialect text', () => {
  const html = '<p><a class="dt-wikilink" data-slug="a" href="a">a</a> <a class="dt-wikilink" data-slug="b" href="b">B</a></p><div data-dt-transclusion="c"><p>x</p></div>';
  assert.equal(canonicalHtml(withWikilinksAsText(parseHtmlFragment(html))), '<p>[[a]] [[b|B]]</p><p>![[c]]</p>');
});
