/**
 * mdast (after our remark plugins) → document JSON of `documentSchema`.
 *
 * Conventions (the writer, documentToMarkdown, relies on them; the tests pin them):
 * - The result is ProseMirror's canonical JSON (`nodeFromJSON(json).toJSON()`, as plain
 *   objects): every node
 *   and mark with attributes carries all of them, defaults included; marks are in schema
 *   order (link, bold, italic, strike, code); adjacent text nodes with equal marks are merged;
 *   there are no empty text nodes.
 * - Soft line breaks stay `\n` inside text nodes; hard breaks are `hardBreak` nodes, which
 *   never carry marks. Text, wikilinks and mentions carry marks.
 * - Should the schema ever forbid a combination of marks, the link is kept first (its
 *   target is content), then code, then the rest.
 * - Images: `/api/v1/media/<fileId>` is an `image` block. In a paragraph with other content
 *   the paragraph is split around it (whitespace and hard breaks at the cut are dropped).
 *   Where no block can stand (headings, table cells) and for any other URL the image becomes
 *   a link to its URL whose text is the alt (or the URL when the alt is empty). Inside a
 *   link, an image becomes its alt text under that link.
 * - Containers that need content get an empty paragraph (`{ type: 'paragraph' }`): an empty
 *   document, blockquote, section, list item or table cell. A list item that starts with
 *   another block gets an empty paragraph in front (the schema wants a paragraph first).
 * - Lists: a bullet list whose items mix task and plain items is split into runs of
 *   `taskList` and `bulletList`; an ordered list keeps its numbers and shows `[x] `/`[ ] ` as
 *   literal text. Every list carries `tight`, false for a loose list (isLooseList). Tables
 *   are padded to their widest row (no cell is dropped); the first row is header cells;
 *   column alignment goes to each cell's `align`.
 * - Code blocks keep the whole info string as `language` (`js title=x`), so nothing is lost;
 *   renderers use its first word. A `dt-plugin <pluginId>/<blockType>` fence whose body is a
 *   JSON object is a `plugin_block` (`svgSnapshot` null), otherwise an ordinary code block.
 * - A link to `dt-mention:<id>` is a mention; its label is the link text without the `@`.
 * - A link without text shows its URL as text. Reference definitions are consumed by the
 *   references that use them and are not content of their own.
 */
import type { Blockquote, Code, Definition, Heading, List, ListItem, Nodes, Parents, PhrasingContent, Root, RootContent, Table } from 'mdast';
import { documentSchema, type DocumentJson } from '../schema/documentSchema.ts';
import { MEDIA_PATH_PREFIX, MENTION_SCHEME, PLUGIN_FENCE_PREFIX } from './dialect.ts';
import { createHeadingSlugger, headingText } from './headingIds.ts';
import type { Section } from './remarkSections.ts';
import type { Transclusion } from './remarkTransclusions.ts';
import type { WikiLink } from './remarkWikilinks.ts';

import { paragraph, splitAroundImages } from './paragraphImages.ts';
import type { Attrs, MarkJson, NodeJson } from './documentJson.ts';

interface Context {
  definitions: Map<string, Definition>;
  headingId: (text: string) => string;
}

/** Where inline content is being converted. */
interface InlineState {
  /** Marks from the enclosing emphasis, strong, delete and links, outermost first. */
  marks: MarkJson[];
  /** Whether an uploaded image may become a block here (only in paragraphs). */
  blockImages: boolean;
  insideLink: boolean;
}

const MEDIA_FILE_ID = /^[^/?#\s]+$/;
const PLUGIN_FENCE_META = /^\s*([^\s/]+)\/([^\s/]+)\s*$/;
const EDGE_WHITESPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

const EMPTY_PARAGRAPH: NodeJson = { type: 'paragraph' };

export function mdastToDocument(root: Root): DocumentJson {
  const context: Context = { definitions: collectDefinitions(root), headingId: createHeadingSlugger() };
  const json = { type: 'doc', content: withContent(convertBlocks(root.children, context)) };
  const node = documentSchema.nodeFromJSON(json);
  node.check();
  // ProseMirror builds attrs as null-prototype objects and shares them with the node; a
  // structured clone hands out plain, independent JSON.
  return structuredClone(node.toJSON()) as DocumentJson;
}

function collectDefinitions(root: Root): Map<string, Definition> {
  const definitions = new Map<string, Definition>();
  const visit = (node: Nodes): void => {
    // The first definition of a label wins, as in CommonMark.
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(root);
  return definitions;
}

/** Containers whose schema content is `block+` (or starts with a paragraph) get one when empty. */
function withContent(blocks: NodeJson[]): NodeJson[] {
  return blocks.length > 0 ? blocks : [EMPTY_PARAGRAPH];
}

function textParagraph(text: string): NodeJson {
  return text === '' ? EMPTY_PARAGRAPH : { type: 'paragraph', content: [{ type: 'text', text }] };
}

// ---------------------------------------------------------------------------------------------
// Blocks

function convertBlocks(nodes: readonly RootContent[], context: Context): NodeJson[] {
  return nodes.flatMap((node) => convertBlock(node, context));
}

function convertBlock(node: RootContent, context: Context): NodeJson[] {
  switch (node.type) {
    case 'paragraph':
      return splitAroundImages(convertInline(node.children, context, { marks: [], blockImages: true, insideLink: false }));
    case 'heading':
      return [convertHeading(node, context)];
    case 'thematicBreak':
      return [{ type: 'horizontalRule' }];
    case 'blockquote':
      return [convertContainer('blockquote', node, context)];
    case 'list':
      return convertList(node, context);
    case 'code':
      return [convertCode(node)];
    case 'table':
      return [convertTable(node, context)];
    case 'definition':
      return [];
    case 'transclusion':
      return [{ type: 'transclusion', attrs: { targetSlug: (node as Transclusion).targetSlug, displayText: (node as Transclusion).displayText } }];
    case 'section': {
      const section = node as Section;
      return [{ type: 'section', attrs: { pluginId: section.pluginId, styleId: section.styleId }, content: withContent(convertBlocks(section.children, context)) }];
    }
    case 'html':
    case 'yaml':
      return [textParagraph(node.value)];
    default:
      // Our remark plugins leave nothing else at block level; should a node slip through
      // (a new mdast type), its blocks or its text are kept rather than dropped.
      if ('children' in node) return isPhrasingParent(node) ? [convertPhrasingParentAsParagraph(node, context)] : convertBlocks(node.children as RootContent[], context);
      return 'value' in node && typeof node.value === 'string' ? [textParagraph(node.value)] : [];
  }
}

function isPhrasingParent(node: Parents): boolean {
  return node.children.length > 0 && node.children.every((child) => child.type === 'text' || child.type === 'emphasis' || child.type === 'strong' || child.type === 'inlineCode');
}

function convertPhrasingParentAsParagraph(node: Parents, context: Context): NodeJson {
  return paragraph(convertInline(node.children as PhrasingContent[], context, { marks: [], blockImages: false, insideLink: false }));
}

function convertHeading(node: Heading, context: Context): NodeJson {
  const content = convertInline(node.children, context, { marks: [], blockImages: false, insideLink: false });
  const attrs = { level: node.depth, id: context.headingId(headingText(content)) };
  return content.length > 0 ? { type: 'heading', attrs, content } : { type: 'heading', attrs };
}

function convertContainer(type: string, node: Blockquote, context: Context): NodeJson {
  return { type, content: withContent(convertBlocks(node.children, context)) };
}

function convertCode(node: Code): NodeJson {
  if (node.lang === PLUGIN_FENCE_PREFIX) {
    const match = PLUGIN_FENCE_META.exec(node.meta ?? '');
    const data = match ? parseJsonObject(node.value) : null;
    if (match && data) return { type: 'plugin_block', attrs: { pluginId: match[1], blockType: match[2], data, svgSnapshot: null } };
  }
  const info = [node.lang, node.meta].filter(Boolean).join(' ');
  const codeBlock: NodeJson = { type: 'codeBlock', attrs: { language: info === '' ? null : info } };
  if (node.value !== '') codeBlock.content = [{ type: 'text', text: node.value }];
  return codeBlock;
}

function parseJsonObject(body: string): Attrs | null {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Attrs) : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Lists

function convertList(list: List, context: Context): NodeJson[] {
  const tight = !isLooseList(list);
  if (list.ordered) {
    const items = list.children.map((item) => convertListItem('listItem', item, context, taskMarker(item)));
    return [{ type: 'orderedList', attrs: { start: list.start ?? 1, tight }, content: items }];
  }
  // Consecutive items of the same kind form one list; a change of kind starts the next list.
  const lists: NodeJson[] = [];
  for (const item of list.children) {
    const isTask = typeof item.checked === 'boolean';
    const listType = isTask ? 'taskList' : 'bulletList';
    const converted = isTask ? { ...convertListItem('taskItem', item, context, ''), attrs: { checked: item.checked } } : convertListItem('listItem', item, context, '');
    const last = lists[lists.length - 1];
    if (last?.type === listType) last.content?.push(converted);
    else lists.push({ type: listType, attrs: { tight }, content: [converted] });
  }
  return lists;
}

/**
 * Loose as mdast-util-to-hast decides it (and so as CommonMark renders it): the list is
 * spread, or any item is (an item without `spread` counts as spread when it has several
 * children). The runs a mixed bullet list is split into all share the list's tightness.
 */
function isLooseList(list: List): boolean {
  return list.spread === true || list.children.some((item) => item.spread ?? item.children.length > 1);
}

/** The literal `[x] ` / `[ ] ` an ordered task item shows, since task lists are unordered. */
function taskMarker(item: ListItem): string {
  if (item.checked === true) return '[x] ';
  if (item.checked === false) return '[ ] ';
  return '';
}

function convertListItem(type: string, item: ListItem, context: Context, prefix: string): NodeJson {
  const blocks = convertBlocks(item.children, context);
  if (blocks[0]?.type !== 'paragraph') blocks.unshift(EMPTY_PARAGRAPH);
  if (prefix !== '') {
    const first = blocks[0] ?? EMPTY_PARAGRAPH;
    blocks[0] = { ...first, content: [{ type: 'text', text: prefix }, ...(first.content ?? [])] };
  }
  return { type, content: blocks };
}

// ---------------------------------------------------------------------------------------------
// Tables

function convertTable(table: Table, context: Context): NodeJson {
  const width = Math.max(...table.children.map((row) => row.children.length));
  const rows = table.children.map((row, rowIndex) => {
    const cellType = rowIndex === 0 ? 'tableHeader' : 'tableCell';
    const cells: NodeJson[] = [];
    for (let column = 0; column < width; column += 1) {
      const cell = row.children[column];
      const content = cell ? convertInline(cell.children, context, { marks: [], blockImages: false, insideLink: false }) : [];
      cells.push({ type: cellType, attrs: { align: table.align?.[column] ?? null }, content: [paragraph(content)] });
    }
    return { type: 'tableRow', content: cells };
  });
  return { type: 'table', content: rows };
}

// ---------------------------------------------------------------------------------------------
// Inline content

function convertInline(nodes: readonly PhrasingContent[], context: Context, state: InlineState): NodeJson[] {
  return nodes.flatMap((node) => convertInlineNode(node, context, state));
}

function text(value: string, state: InlineState, extraMarks: MarkJson[] = []): NodeJson[] {
  if (value === '') return [];
  const marks = resolveMarks([...state.marks, ...extraMarks]);
  return [marks.length > 0 ? { type: 'text', text: value, marks } : { type: 'text', text: value }];
}

function atom(type: string, attrs: Attrs, state: InlineState): NodeJson {
  const marks = resolveMarks(state.marks);
  return marks.length > 0 ? { type, attrs, marks } : { type, attrs };
}

function withMark(state: InlineState, mark: MarkJson): InlineState {
  return { ...state, marks: [...state.marks, mark], insideLink: state.insideLink || mark.type === 'link' };
}

function convertInlineNode(node: PhrasingContent, context: Context, state: InlineState): NodeJson[] {
  switch (node.type) {
    case 'text':
    case 'html':
      return text(node.value, state);
    case 'inlineCode':
      return text(node.value, state, [{ type: 'code' }]);
    case 'emphasis':
      return convertInline(node.children, context, withMark(state, { type: 'italic' }));
    case 'strong':
      return convertInline(node.children, context, withMark(state, { type: 'bold' }));
    case 'delete':
      return convertInline(node.children, context, withMark(state, { type: 'strike' }));
    case 'break':
      return [{ type: 'hardBreak' }];
    case 'link':
      return convertLink(node.url, node.title ?? null, node.children, context, state);
    case 'image':
      return convertImage(node.url, node.title ?? null, node.alt ?? '', state);
    case 'linkReference': {
      const definition = context.definitions.get(node.identifier);
      if (definition) return convertLink(definition.url, definition.title ?? null, node.children, context, state);
      return [...text('[', state), ...convertInline(node.children, context, state), ...text(']', state)];
    }
    case 'imageReference': {
      const definition = context.definitions.get(node.identifier);
      if (definition) return convertImage(definition.url, definition.title ?? null, node.alt ?? '', state);
      return text(`![${node.alt ?? ''}]`, state);
    }
    case 'wikiLink': {
      const wikilink = node as WikiLink;
      const link = atom('wikilink', { targetSlug: wikilink.targetSlug, displayText: wikilink.displayText }, state);
      // remarkTransclusions has degraded inline embeds already; this only guards against a
      // pipeline without it.
      return wikilink.embedded ? [...text('!', state), link] : [link];
    }
    default:
      if ('children' in node) return convertInline(node.children as PhrasingContent[], context, state);
      return 'value' in node && typeof node.value === 'string' ? text(node.value, state) : [];
  }
}

function convertLink(url: string, title: string | null, children: PhrasingContent[], context: Context, state: InlineState): NodeJson[] {
  const mentionId = url.startsWith(MENTION_SCHEME) ? url.slice(MENTION_SCHEME.length) : null;
  if (mentionId) return [atom('mention', { id: mentionId, label: phrasingPlainText(children).replace(/^@/, '') }, state)];
  const linked = withMark(state, { type: 'link', attrs: { href: url, title } });
  const content = convertInline(children, context, linked);
  return content.length > 0 ? content : text(url, linked);
}

function convertImage(url: string, title: string | null, alt: string, state: InlineState): NodeJson[] {
  const fileId = url.startsWith(MEDIA_PATH_PREFIX) ? url.slice(MEDIA_PATH_PREFIX.length) : null;
  if (fileId && MEDIA_FILE_ID.test(fileId) && state.blockImages && !state.insideLink) {
    return [{ type: 'image', attrs: { fileId, alt: alt === '' ? null : alt, title } }];
  }
  return text(alt === '' ? url : alt, withMark(state, { type: 'link', attrs: { href: url, title } }));
}

/**
 * Keeps each mark the schema allows next to the ones already kept, trying the link first,
 * then code, then the others from the outside in (a repeated mark counts once).
 */
function resolveMarks(marks: readonly MarkJson[]): MarkJson[] {
  const rank = (mark: MarkJson): number => (mark.type === 'link' ? 0 : mark.type === 'code' ? 1 : 2);
  const kept: MarkJson[] = [];
  for (const mark of [...marks].sort((a, b) => rank(a) - rank(b))) {
    const type = documentSchema.marks[mark.type];
    if (!type) continue;
    const conflicts = kept.some((other) => {
      const otherType = documentSchema.marks[other.type];
      return other.type === mark.type || !otherType || type.excludes(otherType) || otherType.excludes(type);
    });
    if (!conflicts) kept.push(mark);
  }
  return kept;
}

/** The text of mdast inline content (a mention's label). */
function phrasingPlainText(nodes: readonly PhrasingContent[]): string {
  return nodes
    .map((node): string => {
      if ('children' in node) return phrasingPlainText(node.children as PhrasingContent[]);
      if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
      if (node.type === 'break') return ' ';
      return 'value' in node ? node.value : '';
    })
    .join('')
    .replace(EDGE_WHITESPACE, '');
}
