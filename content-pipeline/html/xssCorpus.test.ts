/**
 * Sanitization corpus: every vector of xssVectors.ts through every way content reaches HTML.
 * An output passes when a browser parsing it would find nothing executable and nothing that
 * could clobber the app's DOM: the output is re-parsed (parse5, as a browser would) and its
 * elements and attributes are checked, and the serialized tags are scanned as text too.
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

/** Attributes that name an element (or point at one by its id): content sets them only with our prefixes. */
const NAMING_PROPERTIES = new Set(['id', 'name', 'htmlFor', 'form', 'list', 'ariaDescribedBy', 'ariaLabelledBy', 'ariaOwns', 'ariaControls', 'ariaActiveDescendant', 'headers', 'itemId']);
/** `h-` for heading ids, `user-content-` for everything else content names (SVG snapshots). */
const CONTENT_NAME = /^(?:h-|user-content-)/;
/** Our fixed classes, and the namespaces in which content picks the end of a class. */
const CONTENT_CLASS = /^(?:dt-wikilink|dt-phantom|dt-mention|dt-transclusion|dt-plugin|dt-plugin-fallback|dt-plugin-empty|contains-task-list|task-list-item|(?:language-|dt-style-|user-content-).+)$/;

function checkNames(node: Element, key: string, value: unknown, output: string): void {
  const items = Array.isArray(value) ? value : [value];
  if (NAMING_PROPERTIES.has(key)) {
    for (const item of items) assert.match(String(item), CONTENT_NAME, `${key}="${String(item)}" on <${node.tagName}> could clobber the app's DOM in ${output}`);
  }
  if (key === 'className') {
    for (const item of items) assert.match(String(item), CONTENT_CLASS, `class "${String(item)}" on <${node.tagName}> in ${output}`);
  }
}

function checkTree(tree: Root, output: string): void {
  visit(tree, 'element', (node: Element) => {
    assert.ok(!FORBIDDEN_ELEMENTS.has(node.tagName.toLowerCase()), `<${node.tagName}> in ${output}`);
    for (const [key, value] of Object.entries(node.properties)) {
      assert.ok(!/^on/i.test(key), `event handler ${key} in ${output}`);
      assert.notEqual(key, 'style', `style attribute in ${output}`);
      checkNames(node, key, value, output);
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
  return [
    v,
    `[x](${oneLine})`,
    `[x](<${oneLine}>)`,
    `[x](#${oneLine} "${oneLine}")`,
    `![${oneLine}](${oneLine} "${oneLine}")`,
    `<${oneLine}>`,
    `[x]\n\n[x]: ${oneLine}`,
    `text ${v} **${v}**`,
    `> ${v}\n\n- ${v}`,
    `| a |\n| - |\n| ${oneLine} |`,
    `# ${oneLine}\n\n## ${oneLine}\n\n[to it](#${oneLine})`,
  ];
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
    assert.deepEqual(new Set(XSS_VECTORS.map((vector) => vector.category)).size, 8);
  });

  it('catches what it is meant to catch (the checks are not vacuous)', () => {
    const clobbering = ['<h1 id="main">a</h1>', '<a name="login">a</a>', '<svg><g id="app"></g></svg>', '<p class="hidden">a</p>', '<label for="password">a</label>', '<p aria-describedby="main">a</p>'];
    for (const unsafe of ['<script>x</script>', '<img src="x" onerror="y">', '<a href="javascript:x">a</a>', '<a href=" jav&#x09;ascript:x">a</a>', '<svg><foreignObject></foreignObject></svg>', '<p style="x">a</p>', '<iframe></iframe>', '<img src="data:text/html,x">', ...clobbering]) {
      assert.throws(() => assertSafe(unsafe), assert.AssertionError, unsafe);
    }
    assertSafe('<p>&#x3C;img src=x onerror=alert(1)></p><img alt="<script>alert(1)</script>">');
    assertSafe('<h1 id="h-main">a</h1><svg class="user-content-x"><g id="user-content-app"></g></svg><code class="language-ts">x</code><section class="dt-style-a-b">y</section>');
  });
});

describe('dom clobbering: exact output', () => {
  it('page Markdown: headings get h- ids, links to them follow, raw markup with ids and names stays text', () => {
    const markdown = '# Main\n\n[back to top](#main) [app](#app)\n\n<form id="app" name="login"><input name="attributes"></form>\n\n## App';
    assert.equal(
      documentToHtml(markdownToDocument(markdown)),
      '<h1 id="h-main">Main</h1><p><a href="#h-main">back to top</a> <a href="#h-app">app</a></p><p>&#x3C;form id="app" name="login">&#x3C;input name="attributes">&#x3C;/form></p><h2 id="h-app">App</h2>',
    );
  });

  it('document attributes: a stored heading id that names an app element is prefixed, a forged id elsewhere never renders', () => {
    const doc = documentWith('main');
    const html = documentToHtml(doc);
    assert.match(html, /^<h1 id="h-main">main<\/h1>/);
    assert.deepEqual([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => match[1]), ['h-main']);
  });

  it('an SVG snapshot: ids, classes and references prefixed user-content-', () => {
    assert.equal(
      expandPlaceholders('<div data-dt-plugin="a/b" data-dt-block="0"><p>[plugin content]</p></div>', {
        resolveTransclusion: () => null,
        resolvePluginBlock: () => ({ svgSnapshot: '<svg><g id="main" class="app"><rect id="login"/></g><use href="#main"/></svg>' }),
      }),
      '<div class="dt-plugin"><svg><g id="user-content-main" class="user-content-app"><rect id="user-content-login"></rect></g><use href="#user-content-main"></use></svg></div>',
    );
  });

  it('comment Markdown: no ids, names or classes at all', () => {
    assert.equal(renderCommentHtml('# Main\n\n<a id="main" name="x">y</a> [z](#main)'), '<p><strong>Main</strong></p>\n<p>&#x3C;a id="main" name="x">y&#x3C;/a> <a href="#main" rel="nofollow noopener noreferrer ugc">z</a></p>');
  });
});
