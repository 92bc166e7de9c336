/**
 * HTML comparison for the CommonMark conformance test, in the spirit of the spec's own
 * normalize.py: both sides are parsed (so entities, quoting, attribute order and `<br />` vs
 * `<br>` no longer matter), whitespace next to block boundaries is dropped and other
 * whitespace runs collapse to one space, except inside `<pre>`.
 *
 * The policy rewrites turn an expected tree into what our documented policies produce, so a
 * failing example can be classified by the policies that explain its difference.
 */
import type { Element, ElementContent, Properties, Root, RootContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';

/** Block-level tags (and `br`): whitespace right next to them is not significant. */
const WHITESPACE_INSIGNIFICANT_AROUND = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th',
  'thead', 'tr', 'ul',
]);

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

/**
 * Parsed without the surrounding whitespace: the spec's HTML ends with a newline that would
 * otherwise land inside an unclosed raw-HTML element.
 */
export function parseHtmlFragment(html: string): Root {
  return fromHtml(html.trim(), { fragment: true });
}

/** One canonical string per tree: equal strings mean equal HTML for the spec's purposes. */
export function canonicalHtml(tree: Root): string {
  const serialized = tree.children.map((child) => serializeNode(child, false)).join('');
  const blockTag = [...WHITESPACE_INSIGNIFICANT_AROUND].join('|');
  return serialized
    .replace(new RegExp(`\\s*(</?(?:${blockTag})(?:\\s[^>]*)?>)\\s*`, 'g'), '$1')
    .replace(/(<br>(?:<(?:a|strong|em|del|s|code)(?:\s[^>]*)?>)*)\s+/g, '$1')
    .trim();
}

function serializeNode(node: RootContent | ElementContent, insidePre: boolean): string {
  if (node.type === 'text') {
    const escaped = escapeText(node.value);
    // Whitespace inside <pre> is content; elsewhere a run of it renders as one space.
    return insidePre ? escaped.replace(/\n/g, '&#10;') : escaped.replace(/\s+/g, ' ');
  }
  if (node.type !== 'element') return '';
  const pre = insidePre || node.tagName === 'pre';
  const open = `<${node.tagName}${serializeProperties(node.properties)}>`;
  if (VOID_ELEMENTS.has(node.tagName)) return open;
  return `${open}${node.children.map((child) => serializeNode(child, pre)).join('')}</${node.tagName}>`;
}

function serializeProperties(properties: Properties): string {
  return Object.keys(properties)
    .sort()
    .map((name) => {
      const value = properties[name];
      if (value === undefined || value === null || value === false) return '';
      const text = Array.isArray(value) ? value.join(' ') : value === true ? '' : String(value);
      return ` ${name}="${escapeText(text).replace(/"/g, '&quot;')}"`;
    })
    .join('');
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Rewrites a tree in place, children first, replacing elements with what `rewrite` returns. */
function rewriteElements(parent: Root | Element, rewrite: (element: Element) => ElementContent[] | null): void {
  const children: ElementContent[] = [];
  for (const child of parent.children) {
    if (child.type !== 'element') {
      if (child.type !== 'doctype') children.push(child);
      continue;
    }
    rewriteElements(child, rewrite);
    children.push(...(rewrite(child) ?? [child]));
  }
  parent.children = children;
}

function cloneTree(tree: Root): Root {
  return structuredClone(tree);
}

/** Heading ids are ours (`h-` + the slug of the text); the spec's HTML has none. */
export function withoutHeadingIds(tree: Root): Root {
  const copy = cloneTree(tree);
  rewriteElements(copy, (element) => {
    if (/^h[1-6]$/.test(element.tagName)) delete element.properties['id'];
    return null;
  });
  return copy;
}

/**
 * The link schemes our sanitizer keeps; relative URLs (no scheme) are kept too. Case-sensitive
 * like hast-util-sanitize, which drops `MAILTO:`.
 */
const SAFE_LINK = /^(?:https?:|mailto:|[^:]*(?:[/?#]|$))/;

/** Code language classes our sanitizer keeps (sanitizeSchema.ts). */
const SAFE_LANGUAGE_CLASS = /^language-[\p{L}\p{M}\p{N}_#+.-]+$/u;

/**
 * Our sanitizer keeps hrefs with the schemes http, https and mailto, and relative ones; any
 * other scheme (`foo:bar`, `irc:`, `MAILTO:` in capitals) is dropped, the link text stays.
 */
export function withUnsafeSchemesDropped(tree: Root): Root {
  const copy = cloneTree(tree);
  rewriteElements(copy, (element) => {
    const href = element.properties['href'];
    if (element.tagName === 'a' && typeof href === 'string' && !SAFE_LINK.test(href)) delete element.properties['href'];
    return null;
  });
  return copy;
}

/**
 * A link is a mark on text in our document model, so a link needs text: one without text shows
 * its URL (`[](/x)` → `<a href="/x">/x</a>`), and one without text and URL (`[]()`) is gone,
 * with the paragraph it leaves empty (CommonMark renders no empty paragraph of its own).
 */
export function withLinksNeedingText(tree: Root): Root {
  const copy = cloneTree(tree);
  rewriteElements(copy, (element) => {
    if (element.tagName === 'p' && element.children.length === 0) return [];
    const href = element.properties['href'];
    if (element.tagName !== 'a' || element.children.length > 0 || typeof href !== 'string') return null;
    return href === '' ? [] : [{ ...element, children: [{ type: 'text', value: href }] }];
  });
  return copy;
}

/** Our sanitizer keeps a code language class only of letters, digits and `_#+.-` (`language-;` goes). */
export function withLanguageClassesRestricted(tree: Root): Root {
  const copy = cloneTree(tree);
  rewriteElements(copy, (element) => {
    const classes = element.properties['className'];
    if (element.tagName === 'code' && Array.isArray(classes) && !classes.every((name) => SAFE_LANGUAGE_CLASS.test(String(name)))) delete element.properties['className'];
    return null;
  });
  return copy;
}

/**
 * Our image policy: an image not served from uploads becomes a link to its URL, with its title,
 * whose text is the alt (the URL when there is no alt); inside a link it becomes just that
 * text, as links do not nest.
 */
export function withImagePolicy(tree: Root): Root {
  const copy = cloneTree(tree);
  replaceImages(copy, false);
  return copy;
}

function replaceImages(parent: Root | Element, insideLink: boolean): void {
  parent.children = parent.children.map((child) => {
    if (child.type !== 'element') return child;
    if (child.tagName !== 'img') {
      replaceImages(child, insideLink || child.tagName === 'a');
      return child;
    }
    const src = typeof child.properties['src'] === 'string' ? child.properties['src'] : '';
    const alt = typeof child.properties['alt'] === 'string' && child.properties['alt'] !== '' ? child.properties['alt'] : src;
    const text: ElementContent = { type: 'text', value: alt };
    if (insideLink) return text;
    const title = child.properties['title'];
    return { type: 'element', tagName: 'a', properties: typeof title === 'string' ? { href: src, title } : { href: src }, children: [text] };
  }) as typeof parent.children;
}

/**
 * Our dialect reads `[[slug]]` as a wikilink and a `![[slug]]` line as a transclusion where
 * CommonMark sees text: our rendering of those is turned back into the text it came from.
 */
export function withWikilinksAsText(tree: Root): Root {
  const copy = cloneTree(tree);
  rewriteElements(copy, (element) => {
    const classes = element.properties['className'];
    const slug = String(element.properties['dataSlug'] ?? '');
    if (element.tagName === 'a' && Array.isArray(classes) && classes.includes('dt-wikilink')) {
      const label = element.children.map((child) => (child.type === 'text' ? child.value : '')).join('');
      return [{ type: 'text', value: label === slug ? `[[${slug}]]` : `[[${slug}|${label}]]` }];
    }
    if (element.tagName === 'div' && element.properties['dataDtTransclusion'] !== undefined) {
      const target = String(element.properties['dataDtTransclusion']);
      return [{ type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value: `![[${target}]]` }] }];
    }
    return null;
  });
  return copy;
}

/** Inline formatting elements: in our document model these are marks, a flat set per character. */
const MARK_TAGS = new Set(['a', 'strong', 'em', 'del', 's', 'code']);
/** The order marks nest in once flattened (outermost first), as documentToHast nests them. */
const MARK_ORDER = ['a', 'strong', 'em', 'del', 's', 'code'];

type MarkedRun = { marks: Element[]; node: ElementContent };

/**
 * ProseMirror marks are a set per character, not a tree: `*a **b** c*` and `<em>a </em>
 * <strong><em>b</em></strong><em> c</em>` are the same document, and `<em><em>x</em></em>` is
 * just emphasis. Both sides are rewritten to one canonical nesting per run of equal marks.
 */
export function withFlatMarks(tree: Root): Root {
  const copy = cloneTree(tree);
  flattenInside(copy);
  return copy;
}

function flattenInside(parent: Root | Element): void {
  const hasMarks = parent.children.some((child) => child.type === 'element' && MARK_TAGS.has(child.tagName));
  if (hasMarks && !(parent.type === 'element' && parent.tagName === 'pre')) {
    const runs: MarkedRun[] = [];
    for (const child of parent.children) collectRuns(child as ElementContent, [], runs);
    parent.children = rebuildRuns(runs);
  }
  for (const child of parent.children) {
    if (child.type === 'element' && !MARK_TAGS.has(child.tagName)) flattenInside(child);
  }
}

function collectRuns(node: ElementContent, marks: Element[], runs: MarkedRun[]): void {
  if (node.type === 'element' && MARK_TAGS.has(node.tagName)) {
    const mark: Element = { type: 'element', tagName: node.tagName, properties: node.properties, children: [] };
    const inner = marks.some((existing) => markKey(existing) === markKey(mark)) ? marks : [...marks, mark];
    for (const child of node.children) collectRuns(child, inner, runs);
    return;
  }
  // A hard break is a node of its own in our model and carries no marks.
  runs.push({ marks: node.type === 'element' && node.tagName === 'br' ? [] : marks, node });
}

function markKey(mark: Element): string {
  return `${mark.tagName}${serializeProperties(mark.properties)}`;
}

function rebuildRuns(runs: MarkedRun[]): ElementContent[] {
  const result: ElementContent[] = [];
  let previousKey: string | null = null;
  for (const run of runs) {
    const sorted = [...run.marks].sort((a, b) => MARK_ORDER.indexOf(a.tagName) - MARK_ORDER.indexOf(b.tagName));
    const key = sorted.map(markKey).join('');
    const last = result.at(-1);
    if (run.node.type === 'text' && key === previousKey && last) {
      // Same marks as the run before: the text joins it instead of opening new wrappers.
      const siblings = last.type === 'element' && sorted.length > 0 ? innermostOf(last, sorted.length) : result;
      const tail = siblings.at(-1);
      if (tail?.type === 'text') tail.value += run.node.value;
      else siblings.push({ ...run.node });
      continue;
    }
    let wrapped: ElementContent = run.node;
    for (const mark of [...sorted].reverse()) wrapped = { ...mark, children: [wrapped] };
    result.push(wrapped);
    previousKey = key;
  }
  return result;
}

/** The children list of the innermost of `depth` nested mark wrappers. */
function innermostOf(outermost: Element, depth: number): ElementContent[] {
  let current = outermost;
  for (let level = 1; level < depth; level += 1) {
    const next = current.children[0];
    if (next?.type !== 'element') break;
    current = next;
  }
  return current.children;
}
