/**
 * Document JSON (ProseMirror JSON of `documentSchema`) → hast. Semantic HTML only; safety is
 * not decided here but by the sanitizer that always runs after this step (documentToHtml.ts).
 *
 * Placeholders the serving layer expands (expandPlaceholders.ts):
 * - transclusion: `<div data-dt-transclusion="slug">` holding a plain wikilink, which is also
 *   what a cycle, a missing or an unreadable target degrades to;
 * - plugin_block: `<div data-dt-plugin="plugin/type" data-dt-block="<index>">` holding the
 *   literal `[plugin content]`; `index` counts plugin blocks in document order from 0.
 */
import type { JSONContent } from '@tiptap/core';
import { normalizeUri } from 'micromark-util-sanitize-uri';
import type { Element, ElementContent, Properties, Root, RootContent } from 'hast';
import { createHeadingAnchors, HEADING_ANCHOR_PREFIX } from '../markdown/headingIds.ts';
import { sectionStyleClass } from '../schema/customNodes.ts';

/** `{ href }` for an existing page; `null` marks the wikilink as phantom (no href). */
export type LinkResolver = (slug: string) => { href: string } | null;

export interface DocumentToHastOptions {
  /** Without a resolver every wikilink is treated as existing with the relative href `<slug>`. */
  resolveLink?: LinkResolver;
}

export const PLUGIN_CONTENT_MARKER = '[plugin content]';

/**
 * Marks opened together that reach equally far nest in this order, outermost first (links
 * outside, `***a***` → `<em><strong>a</strong></em>` as in CommonMark); see renderInline.
 */
const MARK_RANK: Record<string, number> = { link: 0, italic: 1, bold: 2, strike: 3, code: 4 };

interface RenderState {
  resolveLink: LinkResolver;
  pluginBlockIndex: number;
  headingAnchor: (heading: JSONContent) => string;
  /** The ids given to headings so far (all of them once rendering is done). */
  anchors: Set<string>;
  /** Links to a fragment of this page (`#…`), to point at the prefixed heading ids at the end. */
  fragmentLinks: Element[];
}

export function documentToHast(doc: JSONContent, options: DocumentToHastOptions = {}): Root {
  const state: RenderState = {
    resolveLink: options.resolveLink ?? ((slug) => ({ href: encodeURIComponent(slug) })),
    pluginBlockIndex: 0,
    headingAnchor: createHeadingAnchors(),
    anchors: new Set(),
    fragmentLinks: [],
  };
  const children = renderBlocks(doc.content ?? [], state);
  pointFragmentLinksAtHeadings(state);
  return { type: 'root', children };
}

/**
 * `[see](#intro)` is written against the document's heading id (`intro`), but the heading
 * renders as `h-intro`: such a link is pointed at `#h-intro`. A fragment that names no heading
 * of this page (one already written as `#h-intro`, or another anchor) is left as it is.
 */
function pointFragmentLinksAtHeadings(state: RenderState): void {
  for (const link of state.fragmentLinks) {
    const fragment = String(link.properties.href).slice(1);
    if (state.anchors.has(HEADING_ANCHOR_PREFIX + decodeFragment(fragment))) link.properties.href = `#${HEADING_ANCHOR_PREFIX}${fragment}`;
  }
}

/** The fragment as the browser compares it with ids: percent-decoded (hrefs are normalized, `#grüße` is `#gr%C3%BC%C3%9Fe`). */
function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

function element(tagName: string, properties: Properties, children: ElementContent[] = []): Element {
  return { type: 'element', tagName, properties, children };
}

function text(value: string): ElementContent {
  return { type: 'text', value };
}

function stringAttr(node: JSONContent, name: string): string | null {
  const value = node.attrs?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Plain text of a node, for code blocks and for nodes we do not know. */
export function textContent(node: JSONContent): string {
  if (node.type === 'text') return node.text ?? '';
  if (node.type === 'wikilink') return stringAttr(node, 'displayText') ?? stringAttr(node, 'targetSlug') ?? '';
  if (node.type === 'mention') return `@${stringAttr(node, 'label') ?? ''}`;
  return (node.content ?? []).map(textContent).join('');
}

function renderBlocks(nodes: JSONContent[], state: RenderState): RootContent[] & ElementContent[] {
  return nodes.flatMap((node) => renderBlock(node, state));
}

function renderBlock(node: JSONContent, state: RenderState): ElementContent[] {
  const children = (): ElementContent[] => renderBlocks(node.content ?? [], state);
  switch (node.type) {
    case 'paragraph': {
      // An empty paragraph renders as nothing, as in CommonMark: the schema puts one into every
      // empty document, blockquote or list item and in front of an item starting with another
      // block, and one typed in the editor shows as nothing in a browser either way.
      const inline = renderInline(node.content ?? [], state);
      return inline.length > 0 ? [element('p', {}, inline)] : [];
    }
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.level) || 1));
      // The same ids, in the same order, as the outline (extract.ts) hands out.
      const id = state.headingAnchor(node);
      state.anchors.add(id);
      return [element(`h${level}`, { id }, renderInline(node.content ?? [], state))];
    }
    case 'blockquote':
      return [element('blockquote', {}, children())];
    case 'bulletList':
      return [renderList('ul', {}, node, state)];
    case 'orderedList': {
      const start = Number(node.attrs?.start ?? 1);
      return [renderList('ol', Number.isInteger(start) && start !== 1 ? { start } : {}, node, state)];
    }
    case 'taskList':
      return [renderList('ul', { className: ['contains-task-list'] }, node, state)];
    case 'listItem':
    case 'taskItem':
      // Only reached for an item outside a list (not valid in our schema): render it loose.
      return [renderListItem(node, false, state)];
    case 'codeBlock':
      return [renderCodeBlock(node)];
    case 'horizontalRule':
      return [element('hr', {})];
    case 'table':
      return [renderTable(node, state)];
    case 'image':
      return renderImage(node);
    case 'transclusion':
      return [renderTransclusionPlaceholder(node, state)];
    case 'plugin_block':
      return [renderPluginPlaceholder(node, state)];
    case 'section':
      return [element('section', { className: [sectionClass(node)] }, children())];
    default:
      // Unknown blocks keep their content: as blocks when they have some, else as text.
      if (node.content?.some((child) => child.type === 'text' || child.type === 'hardBreak')) {
        return [element('p', {}, renderInline(node.content, state))];
      }
      if (node.content) return children();
      return node.text ? [element('p', {}, [text(node.text)])] : [];
  }
}

/** Lists without `tight` are tight, as the schema's default says. */
function renderList(tagName: string, properties: Properties, node: JSONContent, state: RenderState): Element {
  const tight = node.attrs?.tight !== false;
  return element(tagName, properties, (node.content ?? []).map((item) => renderListItem(item, tight, state)));
}

/**
 * An item of a loose list holds its blocks; in a tight list its paragraphs are unwrapped to
 * their inline content, with newlines between the blocks, exactly as mdast-util-to-hast
 * renders CommonMark's tight lists. A task item's box goes first, inside its first paragraph
 * (so it lines up with the item's text); the schema always gives an item one.
 */
function renderListItem(node: JSONContent, tight: boolean, state: RenderState): Element {
  const blocks = renderBlocks(node.content ?? [], state);
  const isTask = node.type === 'taskItem';
  if (isTask) {
    const checkbox = element('input', { type: 'checkbox', disabled: true, checked: node.attrs?.checked === true });
    const first = blocks[0];
    if (isParagraph(first)) blocks[0] = { ...first, children: [checkbox, text(' '), ...first.children] };
    else blocks.unshift(element('p', {}, [checkbox]));
  }
  const properties: Properties = isTask ? { className: ['task-list-item'] } : {};
  return element('li', properties, tight ? unwrapTightParagraphs(blocks) : blocks);
}

function isParagraph(node: ElementContent | undefined): node is Element {
  return node?.type === 'element' && node.tagName === 'p';
}

/** mdast-util-to-hast's tight list item: a newline before every block but a leading paragraph, and after a last non-paragraph. */
function unwrapTightParagraphs(blocks: ElementContent[]): ElementContent[] {
  const children: ElementContent[] = [];
  for (const [index, block] of blocks.entries()) {
    if (index > 0 || !isParagraph(block)) children.push(text('\n'));
    if (isParagraph(block)) children.push(...block.children);
    else children.push(block);
  }
  const last = blocks.at(-1);
  if (last && !isParagraph(last)) children.push(text('\n'));
  return children;
}

/** Only language names of letters, digits and `_#+.-` become a class; anything else is dropped, not escaped. */
const LANGUAGE_NAME = /^[\p{L}\p{M}\p{N}_#+.-]+$/u;

function renderCodeBlock(node: JSONContent): Element {
  // The stored language is the whole info string (`ruby startline=3`); its first word names the language.
  const language = stringAttr(node, 'language')?.trim().split(/\s+/)[0];
  const properties: Properties = language && LANGUAGE_NAME.test(language) ? { className: [`language-${language}`] } : {};
  const code = (node.content ?? []).map(textContent).join('');
  // A code block's text ends with a newline in HTML, as CommonMark renders it.
  return element('pre', {}, [element('code', properties, code ? [text(`${code}\n`)] : [])]);
}

function renderTable(node: JSONContent, state: RenderState): Element {
  const rows = node.content ?? [];
  // Leading rows made only of header cells form the thead, as in GFM.
  let headerCount = 0;
  while (headerCount < rows.length && isHeaderRow(rows[headerCount])) headerCount++;
  const renderRows = (list: JSONContent[]): ElementContent[] => list.map((row) => element('tr', {}, (row.content ?? []).map((cell) => renderCell(cell, state))));
  const sections: ElementContent[] = [];
  if (headerCount > 0) sections.push(element('thead', {}, renderRows(rows.slice(0, headerCount))));
  if (headerCount < rows.length) sections.push(element('tbody', {}, renderRows(rows.slice(headerCount))));
  return element('table', {}, sections);
}

function isHeaderRow(row: JSONContent | undefined): boolean {
  const cells = row?.content ?? [];
  return cells.length > 0 && cells.every((cell) => cell.type === 'tableHeader');
}

function renderCell(cell: JSONContent, state: RenderState): Element {
  const properties: Properties = {};
  const colspan = Number(cell.attrs?.colspan ?? 1);
  const rowspan = Number(cell.attrs?.rowspan ?? 1);
  if (Number.isInteger(colspan) && colspan > 1) properties.colSpan = colspan;
  if (Number.isInteger(rowspan) && rowspan > 1) properties.rowSpan = rowspan;
  // Cells hold exactly one paragraph; its inline content goes straight into the cell.
  const inline = (cell.content ?? []).flatMap((child) => (child.type === 'paragraph' ? renderInline(child.content ?? [], state) : renderBlock(child, state)));
  return element(cell.type === 'tableHeader' ? 'th' : 'td', properties, inline);
}

function imageElement(node: JSONContent): Element | null {
  const fileId = stringAttr(node, 'fileId');
  if (!fileId) return null;
  const properties: Properties = { src: `/api/v1/media/${encodeURIComponent(fileId)}`, alt: stringAttr(node, 'alt') ?? '' };
  const title = stringAttr(node, 'title');
  if (title) properties.title = title;
  properties.loading = 'lazy';
  return element('img', properties);
}

/** An image without a file keeps its alt text rather than vanishing. */
function renderImage(node: JSONContent): ElementContent[] {
  const image = imageElement(node);
  if (image) return [image];
  const alt = stringAttr(node, 'alt');
  return alt ? [element('p', {}, [text(alt)])] : [];
}

function renderWikilink(slug: string, label: string, state: RenderState): Element {
  const target = state.resolveLink(slug);
  if (!target) return element('a', { dataSlug: slug, className: ['dt-wikilink', 'dt-phantom'] }, [text(label)]);
  return element('a', { href: target.href, dataSlug: slug, className: ['dt-wikilink'] }, [text(label)]);
}

function renderTransclusionPlaceholder(node: JSONContent, state: RenderState): Element {
  const slug = stringAttr(node, 'targetSlug') ?? '';
  const label = stringAttr(node, 'displayText') ?? slug;
  return element('div', { dataDtTransclusion: slug }, [element('p', {}, [renderWikilink(slug, label, state)])]);
}

function renderPluginPlaceholder(node: JSONContent, state: RenderState): Element {
  const pluginType = `${stringAttr(node, 'pluginId') ?? ''}/${stringAttr(node, 'blockType') ?? ''}`;
  const index = state.pluginBlockIndex++;
  return element('div', { dataDtPlugin: pluginType, dataDtBlock: String(index) }, [element('p', {}, [text(PLUGIN_CONTENT_MARKER)])]);
}

/** The schema's class for a section (content picks only the end of `dt-style-…`). */
function sectionClass(node: JSONContent): string {
  return sectionStyleClass(node.attrs?.pluginId, node.attrs?.styleId);
}

// ——— inline content ———

interface Mark {
  type: string;
  attrs?: Record<string, unknown>;
}

function markKey(mark: Mark): string {
  return mark.type === 'link' ? `link:${String(mark.attrs?.href ?? '')}\u0000${String(mark.attrs?.title ?? '')}` : mark.type;
}

function sortedMarks(node: JSONContent): Mark[] {
  const marks = (node.marks ?? []) as Mark[];
  // A wikilink is a link already; an `<a>` inside an `<a>` would be split by browsers.
  const usable = node.type === 'wikilink' ? marks.filter((mark) => mark.type !== 'link') : marks;
  return [...usable].sort((a, b) => (MARK_RANK[a.type] ?? 9) - (MARK_RANK[b.type] ?? 9));
}

function markElement(mark: Mark, state: RenderState): Element {
  switch (mark.type) {
    case 'bold':
      return element('strong', {});
    case 'italic':
      return element('em', {});
    case 'strike':
      return element('del', {});
    case 'code':
      return element('code', {});
    case 'link': {
      // Percent-encode as CommonMark does (`/föö` → `/f%C3%B6%C3%B6`); the sanitizer judges the scheme later.
      // An empty href stays: `[a]()` is a link to this page, as in CommonMark.
      const properties: Properties = typeof mark.attrs?.href === 'string' ? { href: normalizeUri(mark.attrs.href) } : {};
      if (typeof mark.attrs?.title === 'string' && mark.attrs.title !== '') properties.title = mark.attrs.title;
      const link = element('a', properties);
      if (typeof properties.href === 'string' && properties.href.startsWith('#')) state.fragmentLinks.push(link);
      return link;
    }
    default:
      return element('span', {});
  }
}

/** One inline node with its marks in nesting order and their keys. */
interface MarkedNode {
  node: JSONContent;
  marks: Mark[];
  keys: Set<string>;
}

/**
 * Inline nodes with their marks. ProseMirror keeps marks as a set per node; HTML nests them,
 * and nests them the way the Markdown they came from did wherever a set of marks can tell:
 * - a mark still open from the previous node stays open, so `*a **b** c*` is
 *   `<em>a <strong>b</strong> c</em>`, not `<em>a </em><strong><em>b</em></strong><em> c</em>`;
 * - marks opened together nest by how far they reach, the longest outermost
 *   (`***a** b*` → `<em><strong>a</strong> b</em>`), ties by MARK_RANK (links outermost);
 * - a hard break carries no marks but stays inside the marks its next node continues.
 */
function renderInline(nodes: JSONContent[], state: RenderState): ElementContent[] {
  const marked: MarkedNode[] = nodes.map((node) => {
    const marks = sortedMarks(node);
    return { node, marks, keys: new Set(marks.map(markKey)) };
  });
  const root: ElementContent[] = [];
  const open: { key: string; element: Element }[] = [];
  const closeMarksNotIn = (keys: Set<string>): void => {
    let keep = 0;
    while (keep < open.length && keys.has(open[keep]!.key)) keep++;
    open.length = keep;
  };
  for (const [index, { node, marks, keys }] of marked.entries()) {
    if (node.type === 'hardBreak') {
      closeMarksNotIn(marked.slice(index + 1).find((next) => next.node.type !== 'hardBreak')?.keys ?? new Set());
    } else {
      closeMarksNotIn(keys);
      const fresh = marks.filter((mark) => !open.some((entry) => entry.key === markKey(mark)));
      const reach = new Map(fresh.map((mark) => [mark, markReach(marked, index, markKey(mark))]));
      fresh.sort((a, b) => reach.get(b)! - reach.get(a)! || (MARK_RANK[a.type] ?? 9) - (MARK_RANK[b.type] ?? 9));
      for (const mark of fresh) {
        const wrapper = markElement(mark, state);
        (open.at(-1)?.element.children ?? root).push(wrapper);
        open.push({ key: markKey(mark), element: wrapper });
      }
    }
    (open.at(-1)?.element.children ?? root).push(...renderInlineNode(node, state));
  }
  return root;
}

/** How many nodes from `index` on carry the mark (hard breaks, which carry none, do not end it). */
function markReach(marked: readonly MarkedNode[], index: number, key: string): number {
  let end = index;
  while (end < marked.length && (marked[end]!.keys.has(key) || marked[end]!.node.type === 'hardBreak')) end++;
  return end - index;
}

function renderInlineNode(node: JSONContent, state: RenderState): ElementContent[] {
  switch (node.type) {
    case 'text':
      return node.text ? [text(node.text)] : [];
    case 'hardBreak':
      return [element('br', {})];
    case 'wikilink': {
      const slug = stringAttr(node, 'targetSlug') ?? '';
      return [renderWikilink(slug, stringAttr(node, 'displayText') ?? slug, state)];
    }
    case 'mention':
      return [element('span', { className: ['dt-mention'], dataDtMention: stringAttr(node, 'id') ?? '' }, [text(`@${stringAttr(node, 'label') ?? ''}`)])];
    case 'image': {
      const image = imageElement(node);
      if (image) return [image];
      const alt = stringAttr(node, 'alt');
      return alt ? [text(alt)] : [];
    }
    default: {
      const value = textContent(node);
      return value ? [text(value)] : [];
    }
  }
}
