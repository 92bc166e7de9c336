/**
 * Sanitization corpus: every vector of xssVectors.ts through every way content reaches HTML.
 * An output passes when a browser parsing it would find nothing executable: the output is
 * re-parsed (parse5, as a browser would) and its elements and attributes are checked, and the
 * serialized tags are scanned as text too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import type { Element, Root } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { visit } from 'unist-util-visit';
import { markdownToDocument } from '../markdown/markdownToDocument.ts';
import { assertValidDocument } from '../schema/documentSchema.ts';
import { renderCommentHtml } from './commentHtml.ts';
import { documentToHtml } from './documentToHtml.ts';
import { expandPlaceholders } from './expandPlaceholders.ts';
import { sanitizeSvg } from './svgSanitizer.ts';
import { XSS_VECTORS } from './xssVectors.ts';

const FORBIDDEN_ELEMENTS = new Set(['script', 'style', 'iframe', 'object', 'embed', 'foreignobject', 'base', 'meta', 'link', 'form', 'frame', 'frameset', 'applet', 'handler', 'animate', 'set', 'image', 'noscript', 'template', 'math']);
const URL_PROPERTIES = new Set(['href', 'src', 'xLinkHref', 'action', 'formAction', 'data', 'background', 'poster', 'cite', 'srcSet', 'longDesc', 'codeBase', 'dynsrc', 'lowsrc']);
const SCRIPT_SCHEMES = /^(javascript|vbscript|livescript|data):/;

/** What a browser would do to a URL before reading its scheme: drop controls and whitespace. */
function normalizedUrl(value: string): string {
  return value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
}

function checkTree(tree: Root, output: string): void {
  visit(tree, 'element', (node: Element) => {
    assert.ok(!FORBIDDEN_ELEMENTS.has(node.tagName.toLowerCase()), `<${node.tagName}> in ${output}`);
    for (const [key, value] of Object.entries(node.properties)) {
      assert.ok(!/^on/i.test(key), `event handler ${key} in ${output}`);
      assert.notEqual(key, 'style', `style attribute in ${output}`);
      if (!URL_PROPERTIES.has(key)) continue;
      for (const item of Array.isArray(value) ? value : [value]) {
        assert.ok(!SCRIPT_SCHEMES.test(normalizedUrl(String(item))), `${key}="${String(item)}" in ${output}`);
      }
    }
  });
}

/**
 * The brief's string checks, on the serialized tags only: escaped text may legitimately read
 * `onerror=` or `src="javascript:`. Text never holds a raw `<` (it is escaped), and attribute
 * values are always double-quoted, so this pattern finds exactly the tags.
 */
const TAG = /<\/?[a-zA-Z][^\s/>]*(?:\s+[^\s=/>"]+(?:="[^"]*")?)*\s*\/?>/g;

function checkTags(output: string): void {
  for (const tag of output.match(TAG) ?? []) {
    // Values blanked so their (inert) text is not mistaken for markup.
    const names = tag.replace(/="[^"]*"/g, '=""');
    assert.ok(!/^<\/?(script|iframe|object|embed|foreignobject|style)\b/i.test(names), `${tag} in ${output}`);
    assert.ok(!/\son\w+\s*=/i.test(names), `event handler in ${tag} of ${output}`);
    assert.ok(!/\s(href|src|xlink:href)\s*=\s*"\s*(javascript:|vbscript:|data:text\/html)/i.test(tag), `script URL in ${tag} of ${output}`);
  }
}

function assertSafe(output: string): void {
  checkTags(output);
  checkTree(fromHtml(output, { fragment: true }), output);
}

/** A document carrying the payload in every attribute and text position. */
function documentWith(v: string): JSONContent & { type: 'doc' } {
  const text = (value: string, marks?: JSONContent['marks']): JSONContent => (marks ? { type: 'text', text: value, marks } : { type: 'text', text: value });
  const doc: JSONContent & { type: 'doc' } = {
    type: 'doc',
    content: [
      { type: 'heading', attrs: { level: 1, id: v }, content: [text(v)] },
      {
        type: 'paragraph',
        content: [
          text(v),
          text(v, [{ type: 'link', attrs: { href: v } }]),
          text(v, [{ type: 'bold' }, { type: 'italic' }, { type: 'strike' }]),
          text(v, [{ type: 'code' }]),
          { type: 'wikilink', attrs: { targetSlug: v, displayText: v } },
          { type: 'wikilink', attrs: { targetSlug: v, displayText: null } },
          { type: 'mention', attrs: { id: v, label: v } },
          { type: 'hardBreak' },
        ],
      },
      { type: 'image', attrs: { fileId: v, alt: v, title: v } },
      { type: 'codeBlock', attrs: { language: v }, content: [text(v)] },
      { type: 'section', attrs: { pluginId: v, styleId: v }, content: [{ type: 'paragraph', content: [text(v)] }] },
      { type: 'plugin_block', attrs: { pluginId: v, blockType: v, data: { html: v, nested: [v] }, svgSnapshot: v } },
      { type: 'transclusion', attrs: { targetSlug: v, displayText: v } },
      { type: 'transclusion', attrs: { targetSlug: 'safe', displayText: null } },
      {
        type: 'table',
        content: [{ type: 'tableRow', content: [{ type: 'tableHeader', attrs: { colspan: 1, rowspan: 1, colwidth: null }, content: [{ type: 'paragraph', content: [text(v)] }] }] }],
      },
      { type: 'taskList', content: [{ type: 'taskItem', attrs: { checked: true }, content: [{ type: 'paragraph', content: [text(v)] }] }] },
    ],
  };
  assertValidDocument(doc);
  return doc;
}

/** The payload in the Markdown positions a comment or a page body can hold it. */
function markdownWith(v: string): string[] {
  const oneLine = v.replace(/\n/g, ' ');
  return [v, `[x](${oneLine})`, `[x](<${oneLine}>)`, `![${oneLine}](${oneLine} "${oneLine}")`, `<${oneLine}>`, `[x]\n\n[x]: ${oneLine}`, `text ${v} **${v}**`, `> ${v}\n\n- ${v}`, `| a |\n| - |\n| ${oneLine} |`];
}

for (const { category, payload } of XSS_VECTORS) {
  const name = `${category}: ${JSON.stringify(payload)}`;

  describe(`xss corpus ${name}`, () => {
    it('as attributes and text of a document, rendered and expanded', () => {
      const doc = documentWith(payload);
      const plain = documentToHtml(doc);
      assertSafe(plain);
      const resolved = documentToHtml(doc, { resolveLink: (slug) => (slug === 'safe' ? null : { href: payload }) });
      assertSafe(resolved);
      const expanded = expandPlaceholders(resolved, {
        selfSlug: 'page',
        // The target "page" body and title are the payload too, as is every plugin fallback.
        resolveTransclusion: () => ({ html: payload, title: payload }),
        resolvePluginBlock: () => ({ svgSnapshot: payload, fallbackText: payload, fallbackImage: { src: payload, alt: payload } }),
      });
      assertSafe(expanded);
      const fallbacks = expandPlaceholders(plain, {
        resolveTransclusion: () => null,
        resolvePluginBlock: () => ({ svgSnapshot: null, fallbackText: null, fallbackImage: { src: payload, alt: payload } }),
      });
      assertSafe(fallbacks);
    });

    it('as an SVG snapshot', () => {
      for (const snapshot of [payload, `<svg>${payload}</svg>`, `<svg><g>${payload}</g></svg>`, `<svg><text>${payload}</text></svg>`]) {
        const clean = sanitizeSvg(snapshot);
        if (clean !== null) assertSafe(clean);
        const expanded = expandPlaceholders(documentToHtml(documentWith('x')), { resolveTransclusion: () => null, resolvePluginBlock: () => ({ svgSnapshot: snapshot }) });
        assertSafe(expanded);
      }
    });

    it('as comment Markdown, raw HTML included', () => {
      for (const markdown of markdownWith(payload)) assertSafe(renderCommentHtml(markdown));
    });

    it('as page Markdown, raw HTML included', () => {
      const oneLine = payload.replace(/\n/g, ' ');
      const pageOnly = [`[[${oneLine}]]`, `[[x|${oneLine}]]`, `![[${oneLine}]]`, `[@${oneLine}](dt-mention:${oneLine})`, `:::section{plugin="${oneLine}" style="${oneLine}"}\n${payload}\n:::`, `\`\`\`\`dt-plugin a/b\n${JSON.stringify({ v: payload })}\n\`\`\`\``, `\`\`\`${oneLine}\ncode\n\`\`\``];
      for (const markdown of [...markdownWith(payload), ...pageOnly]) {
        const html = documentToHtml(markdownToDocument(markdown), { resolveLink: () => ({ href: payload }) });
        assertSafe(html);
      }
    });
  });
}

describe('xss corpus', () => {
  it('holds at least 60 vectors in every category', () => {
    assert.ok(XSS_VECTORS.length >= 60);
    assert.deepEqual(new Set(XSS_VECTORS.map((vector) => vector.category)).size, 7);
  });

  it('catches what it is meant to catch (the checks are not vacuous)', () => {
    for (const unsafe of ['<script>x</script>', '<img src="x" onerror="y">', '<a href="javascript:x">a</a>', '<a href=" jav&#x09;ascript:x">a</a>', '<svg><foreignObject></foreignObject></svg>', '<p style="x">a</p>', '<iframe></iframe>', '<img src="data:text/html,x">']) {
      assert.throws(() => assertSafe(unsafe), assert.AssertionError, unsafe);
    }
    assertSafe('<p>&#x3C;img src=x onerror=alert(1)></p><img alt="<script>alert(1)</script>">');
  });
});
