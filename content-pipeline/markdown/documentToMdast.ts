/**
 * Document JSON (ProseMirror JSON of `documentSchema`) → mdast, the tree remark-stringify
 * writes. Our own syntaxes map onto standard mdast where Markdown has a construct for them
 * (plugin_block → fenced code, section → container directive, mention → link, image →
 * image); wikilinks and transclusions become the reader's `wikiLink` node (remarkWikilinks.ts),
 * a transclusion as the `embedded` form alone in its paragraph, which is exactly how the
 * reader sees `![[slug]]` before it lifts it to a block. `remarkWikilinkToMarkdown` writes
 * them raw, so their brackets are not escaped.
 *
 * ProseMirror marks are flat per text node; mdast nests them. Marks still open from the
 * previous node are kept open (and stay outermost) so `**a *b* c**` does not turn into
 * `**a** ***b*** **c**`.
 */
import type { JSONContent } from '@tiptap/core';
import type {
  BlockContent,
  Blockquote,
  Code,
  Heading,
  List,
  ListItem,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
  TableRow,
} from 'mdast';
import type { ContainerDirective } from 'mdast-util-directive';
import type { DocumentJson } from '../schema/documentSchema.ts';
import { MEDIA_PATH_PREFIX, MENTION_SCHEME, PLUGIN_FENCE_PREFIX } from './dialect.ts';
import type { WikiLink } from './remarkWikilinks.ts';

type MarkJson = NonNullable<JSONContent['marks']>[number];
type FlowContent = RootContent;
type Align = 'left' | 'center' | 'right' | null;

/** Outermost first. Code is not here: it becomes the leaf itself (`inlineCode`). */
const MARK_NESTING: readonly string[] = ['link', 'bold', 'italic', 'strike'];

function wikiLink(node: JSONContent, embedded: boolean): WikiLink {
  const targetSlug = stringAttr(node, 'targetSlug') ?? '';
  const displayText = stringAttr(node, 'displayText') || null;
  return { type: 'wikiLink', value: displayText ?? targetSlug, targetSlug, displayText, embedded };
}

function stringAttr(node: JSONContent, name: string): string | null {
  const value = node.attrs?.[name];
  return typeof value === 'string' ? value : null;
}

function textOf(node: JSONContent): string {
  if (node.type === 'text') return node.text ?? '';
  return (node.content ?? []).map(textOf).join('');
}

function sameMark(a: MarkJson, b: MarkJson): boolean {
  if (a.type !== b.type) return false;
  if (a.type !== 'link') return true;
  return a.attrs?.href === b.attrs?.href && (a.attrs?.title ?? null) === (b.attrs?.title ?? null);
}

function markNode(mark: MarkJson): PhrasingContent & { children: PhrasingContent[] } {
  switch (mark.type) {
    case 'bold':
      return { type: 'strong', children: [] };
    case 'italic':
      return { type: 'emphasis', children: [] };
    case 'strike':
      return { type: 'delete', children: [] };
    default: {
      const title = typeof mark.attrs?.title === 'string' && mark.attrs.title !== '' ? mark.attrs.title : null;
      return { type: 'link', url: String(mark.attrs?.href ?? ''), title, children: [] };
    }
  }
}

/**
 * The leaf for one inline node, and the marks that may wrap it. Links cannot nest in
 * Markdown, so a mention (itself a link) and a wikilink drop a link mark around them.
 */
function inlineLeaf(node: JSONContent): { leaf: PhrasingContent | null; marks: MarkJson[] } {
  const all = (node.marks ?? []).filter((mark) => MARK_NESTING.includes(mark.type));
  const unlinked = all.filter((mark) => mark.type !== 'link');
  switch (node.type) {
    case 'text': {
      const value = node.text ?? '';
      if (value === '') return { leaf: null, marks: [] };
      const isCode = (node.marks ?? []).some((mark) => mark.type === 'code');
      return { leaf: isCode ? { type: 'inlineCode', value } : { type: 'text', value }, marks: all };
    }
    case 'hardBreak':
      return { leaf: { type: 'break' }, marks: [] };
    case 'wikilink':
      return { leaf: wikiLink(node, false), marks: unlinked };
    case 'mention': {
      const url = MENTION_SCHEME + (stringAttr(node, 'id') ?? '');
      const label = `@${stringAttr(node, 'label') ?? ''}`;
      return { leaf: { type: 'link', url, title: null, children: [{ type: 'text', value: label }] }, marks: unlinked };
    }
    default:
      // Not an inline node of our schema: keep its text rather than lose it.
      return { leaf: textOf(node) ? { type: 'text', value: textOf(node) } : null, marks: all };
  }
}

/**
 * Trailing hard breaks are dropped: `\` at the very end of a paragraph is a literal
 * backslash in CommonMark, not a break, so they cannot be written.
 */
function withoutTrailingBreaks(content: JSONContent[]): JSONContent[] {
  let end = content.length;
  while (end > 0 && content[end - 1]?.type === 'hardBreak') end -= 1;
  return content.slice(0, end);
}

/**
 * Spaces and tabs at the end of a block are not content in Markdown: the reader strips them.
 * The editor leaves one after every inserted link, file, wikilink and mention (so the next word
 * does not run into it); written as it is, it would have to be the character reference
 * `&#x20;` to survive, and every such link would end in one. So they are dropped here, with
 * any hard break they leave at the end. Code keeps its spaces: a code span holds them
 * literally.
 */
function withoutTrailingSpace(content: JSONContent[]): JSONContent[] {
  const kept = withoutTrailingBreaks(content);
  const last = kept.at(-1);
  if (!last || last.type !== 'text' || (last.marks ?? []).some((mark) => mark.type === 'code')) return kept;
  const text = (last.text ?? '').replace(/[ \t]+$/, '');
  if (text === last.text) return kept;
  if (text === '') return withoutTrailingSpace(kept.slice(0, -1));
  return [...kept.slice(0, -1), { ...last, text }];
}

type OpenMark = { mark: MarkJson; node: PhrasingContent & { children: PhrasingContent[] } };

/** Closes the open marks (innermost first) from the first one `marks` does not continue. */
function closeMarksNotIn(open: OpenMark[], marks: MarkJson[]): void {
  let kept = 0;
  while (kept < open.length && marks.some((mark) => sameMark(mark, open[kept]!.mark))) kept += 1;
  open.length = kept;
}

/** Inline ProseMirror content → nested mdast phrasing. */
export function inlineToPhrasing(content: JSONContent[] | undefined): PhrasingContent[] {
  const root: PhrasingContent[] = [];
  const leaves = withoutTrailingSpace(content ?? []).map(inlineLeaf);
  // Open mark nodes, outermost first; the innermost one receives the next leaves.
  const open: OpenMark[] = [];
  for (const [index, { leaf, marks }] of leaves.entries()) {
    if (!leaf) continue;
    if (leaf.type === 'break') {
      // A break has no marks (the reader gives it none). It stays inside the marks the next
      // node continues, `**a\⏎b**`, not `**a**\⏎**b**`, but not inside one that would close
      // right after the line end, where its closing `**` could not close.
      closeMarksNotIn(open, leaves.slice(index + 1).find((next) => next.leaf && next.leaf.type !== 'break')?.marks ?? []);
      (open.at(-1)?.node.children ?? root).push(leaf);
      continue;
    }
    closeMarksNotIn(open, marks);
    const fresh = marks
      .filter((mark) => !open.some((entry) => sameMark(entry.mark, mark)))
      .sort((a, b) => MARK_NESTING.indexOf(a.type) - MARK_NESTING.indexOf(b.type));
    for (const mark of fresh) {
      const node = markNode(mark);
      (open.at(-1)?.node.children ?? root).push(node);
      open.push({ mark, node });
    }
    (open.at(-1)?.node.children ?? root).push(leaf);
  }
  return root;
}

function paragraph(node: JSONContent): Paragraph {
  return { type: 'paragraph', children: inlineToPhrasing(node.content) };
}

/**
 * Block children. Empty paragraphs are dropped: Markdown has no empty paragraph (blank lines
 * collapse). A container left without children is written empty (`-`, `>`), which reads
 * back as the container with one empty paragraph.
 */
function blocks(content: JSONContent[] | undefined): FlowContent[] {
  const result: FlowContent[] = [];
  let previous: JSONContent | undefined;
  for (const child of content ?? []) {
    const last = result.at(-1);
    if (last?.type === 'list' && previous && continuesSplitList(previous, child)) {
      last.children.push(...list(child).children);
      previous = child;
      continue;
    }
    previous = child;
    const converted = block(child);
    if (converted.type === 'paragraph' && converted.children.length === 0) continue;
    result.push(converted);
  }
  return result;
}

function listItem(node: JSONContent, checked: boolean | null, spread: boolean): ListItem {
  return { type: 'listItem', spread, checked, children: blocks(node.content) as BlockContent[] };
}

/**
 * A loose list (`tight: false`) is written spread: blank lines between its items and between
 * the blocks of each item, which reads back as loose. A tight one is written without them.
 * Two cases Markdown cannot express come back loose or tight as Markdown sees them: a tight
 * item holding two paragraphs in a row (they need a blank line, which makes the list loose)
 * and a loose list of one item with one block (nothing to put a blank line between).
 */
function list(node: JSONContent): List {
  const ordered = node.type === 'orderedList';
  const task = node.type === 'taskList';
  const start = ordered ? Number(node.attrs?.start ?? 1) : null;
  // The schema's default: lists without the attribute are tight.
  const spread = node.attrs?.tight === false;
  return {
    type: 'list',
    ordered,
    start: ordered && Number.isInteger(start) ? start : null,
    spread,
    children: (node.content ?? []).map((item) => listItem(item, task ? item.attrs?.checked === true : null, spread)),
  };
}

/**
 * The reader splits a bullet list that mixes task and plain items into runs of `taskList` and
 * `bulletList`, all as tight or loose as the whole list. Such runs are written back as the one
 * list they came from: written apart, a loose run of one single-paragraph item could only be
 * read back tight. Two lists of the same type stay apart (remark-stringify changes the bullet).
 */
function continuesSplitList(previous: JSONContent, next: JSONContent): boolean {
  const kinds = new Set([previous.type, next.type]);
  return kinds.size === 2 && kinds.has('taskList') && kinds.has('bulletList') && (previous.attrs?.tight === false) === (next.attrs?.tight === false);
}

function cellAlign(cell: JSONContent | undefined): Align {
  const align = cell?.attrs?.align;
  return align === 'left' || align === 'center' || align === 'right' ? align : null;
}

/** GFM tables: the first row is the header row; alignment comes from its cells. */
function table(node: JSONContent): Table {
  const rows: TableRow[] = (node.content ?? []).map((row) => ({
    type: 'tableRow',
    children: (row.content ?? []).map((cell): TableCell => ({
      type: 'tableCell',
      children: inlineToPhrasing(cell.content?.[0]?.content),
    })),
  }));
  const header = node.content?.[0]?.content ?? [];
  return { type: 'table', align: header.map(cellAlign), children: rows };
}

function codeBlock(node: JSONContent): Code {
  // An info string is `lang meta`: a language with spaces keeps its first word as `lang`.
  const language = (stringAttr(node, 'language') ?? '').trim();
  const space = language.search(/\s/);
  const lang = space === -1 ? language : language.slice(0, space);
  const meta = space === -1 ? null : language.slice(space).trim();
  return { type: 'code', lang: lang || null, meta, value: textOf(node) };
}

function pluginBlock(node: JSONContent): Code {
  const pluginId = stringAttr(node, 'pluginId') ?? '';
  const blockType = stringAttr(node, 'blockType') ?? '';
  const data: unknown = node.attrs?.data ?? {};
  // `lang` cannot hold a space, so the `<pluginId>/<blockType>` part is the meta.
  return { type: 'code', lang: PLUGIN_FENCE_PREFIX, meta: `${pluginId}/${blockType}`, value: JSON.stringify(data, null, 2) };
}

function section(node: JSONContent): ContainerDirective {
  return {
    type: 'containerDirective',
    name: 'section',
    attributes: { plugin: stringAttr(node, 'pluginId') ?? '', style: stringAttr(node, 'styleId') ?? '' },
    children: blocks(node.content) as BlockContent[],
  };
}

function image(node: JSONContent): Paragraph {
  const title = stringAttr(node, 'title');
  return {
    type: 'paragraph',
    children: [{ type: 'image', url: MEDIA_PATH_PREFIX + (stringAttr(node, 'fileId') ?? ''), alt: stringAttr(node, 'alt') ?? '', title: title || null }],
  };
}

function transclusion(node: JSONContent): Paragraph {
  return { type: 'paragraph', children: [wikiLink(node, true)] };
}

function block(node: JSONContent): FlowContent {
  switch (node.type) {
    case 'paragraph':
      return paragraph(node);
    case 'heading': {
      const level = Number(node.attrs?.level ?? 1);
      const depth = (Number.isInteger(level) && level >= 1 && level <= 6 ? level : 1) as Heading['depth'];
      return { type: 'heading', depth, children: inlineToPhrasing(node.content) };
    }
    case 'blockquote':
      return { type: 'blockquote', children: blocks(node.content) } as Blockquote;
    case 'bulletList':
    case 'orderedList':
    case 'taskList':
      return list(node);
    case 'codeBlock':
      return codeBlock(node);
    case 'horizontalRule':
      return { type: 'thematicBreak' };
    case 'table':
      return table(node);
    case 'image':
      return image(node);
    case 'transclusion':
      return transclusion(node);
    case 'plugin_block':
      return pluginBlock(node);
    case 'section':
      return section(node);
    default:
      // Not a block of our schema: keep its text rather than lose it.
      return { type: 'paragraph', children: textOf(node) ? [{ type: 'text', value: textOf(node) }] : [] };
  }
}

/** The mdast tree for a document. */
export function documentToMdast(doc: DocumentJson): Root {
  return { type: 'root', children: blocks(doc.content) };
}
