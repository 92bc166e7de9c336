/**
 * Extraction: everything the save path derives from a document besides HTML and Markdown —
 * the outline, outgoing wikilinks with a snippet each, transclusion targets, mentioned users,
 * the uploaded files it references, plain text for search, a title candidate and a word count. One walk over the document
 * collects everything; snippets are cut from the finished plain text afterwards, so no field
 * costs a traversal of its own.
 */
import type { JSONContent } from '@tiptap/core';
import { MEDIA_PATH_PREFIX } from '../markdown/dialect.ts';
import { createHeadingAnchors } from '../markdown/headingIds.ts';
import { documentSchema, type DocumentJson } from '../schema/documentSchema.ts';

/** `id` is the heading's id in the page's HTML (`h-…`), so `#id` scrolls to it. */
export type OutlineEntry = { id: string; level: number; text: string };
export type OutgoingLink = { targetSlug: string; snippet: string };

export type Extraction = {
  /** Every heading in document order; `text` with whitespace collapsed. */
  outline: OutlineEntry[];
  /** One entry per distinct wikilink target, in order of first occurrence. */
  links: OutgoingLink[];
  /** Distinct transclusion targets in document order. */
  transclusions: string[];
  /** Distinct mentioned user ids in document order. */
  mentions: string[];
  /** Plain text for search: the non-empty texts of the textblocks, one per line. */
  text: string;
  /** The text of the first heading that has any, else null. */
  titleCandidate: string | null;
  /** Whitespace-separated tokens of `text` that contain a letter or a digit. */
  wordCount: number;
  /** Distinct uploaded files the document references (image nodes, links to `/api/v1/media/<id>`), in document order. */
  fileIds: string[];
};

/** Characters of context on each side of a link, before cutting back to a word boundary. */
const SNIPPET_CONTEXT = 80;
const ELLIPSIS = '…';

/** Where the first occurrence of a link target sits in the plain text. */
type LinkOccurrence = { targetSlug: string; start: number; end: number };

/** Mutable state of the one walk. */
type Walk = {
  lines: string[];
  /** Length of `lines.join('\n')` so far, so absolute offsets need no join. */
  length: number;
  /** Text of the textblock being walked, or null outside textblocks. */
  block: string | null;
  /** Links seen in the current block, with offsets relative to the block start. */
  blockLinks: LinkOccurrence[];
  linkOccurrences: LinkOccurrence[];
  seenLinks: Set<string>;
  transclusions: Set<string>;
  mentions: Set<string>;
  files: Set<string>;
  outline: OutlineEntry[];
  headingAnchor: (heading: JSONContent) => string;
};

export function extract(doc: DocumentJson): Extraction {
  const walk: Walk = {
    lines: [],
    length: 0,
    block: null,
    blockLinks: [],
    linkOccurrences: [],
    seenLinks: new Set(),
    transclusions: new Set(),
    mentions: new Set(),
    files: new Set(),
    outline: [],
    headingAnchor: createHeadingAnchors(),
  };
  visitNode(doc, walk);
  const text = walk.lines.join('\n');
  const titleEntry = walk.outline.find((entry) => entry.text !== '');
  return {
    outline: walk.outline,
    links: walk.linkOccurrences.map((link) => ({ targetSlug: link.targetSlug, snippet: snippetAround(text, link.start, link.end) })),
    transclusions: [...walk.transclusions],
    mentions: [...walk.mentions],
    text,
    titleCandidate: titleEntry ? titleEntry.text : null,
    wordCount: countWords(text),
    fileIds: [...walk.files],
  };
}

function visitNode(node: JSONContent, walk: Walk): void {
  switch (node.type) {
    case 'text':
      for (const mark of node.marks ?? []) {
        const href = mark.type === 'link' ? mark.attrs?.['href'] : null;
        if (typeof href === 'string' && href.startsWith(MEDIA_PATH_PREFIX)) noteFile(walk, href.slice(MEDIA_PATH_PREFIX.length));
      }
      appendInline(walk, node.text ?? '');
      return;
    case 'hardBreak':
      appendInline(walk, '\n');
      return;
    case 'wikilink': {
      const targetSlug = stringAttr(node, 'targetSlug');
      const label = stringAttr(node, 'displayText') || targetSlug;
      if (walk.block !== null && !walk.seenLinks.has(targetSlug)) {
        walk.seenLinks.add(targetSlug);
        walk.blockLinks.push({ targetSlug, start: walk.block.length, end: walk.block.length + label.length });
      }
      appendInline(walk, label);
      return;
    }
    case 'mention':
      walk.mentions.add(stringAttr(node, 'id'));
      appendInline(walk, `@${stringAttr(node, 'label')}`);
      return;
    case 'image':
      noteFile(walk, stringAttr(node, 'fileId'));
      // Inline images join their paragraph's text; block images are a line of their own.
      appendInline(walk, stringAttr(node, 'alt'));
      return;
    case 'transclusion':
      // The embedded page's text belongs to that page, not to this one.
      walk.transclusions.add(stringAttr(node, 'targetSlug'));
      return;
    case 'plugin_block':
      // Plugin data is opaque JSON, not reader-visible text.
      return;
  }
  if (isTextblock(node.type) && walk.block === null) {
    visitTextblock(node, walk);
    return;
  }
  for (const child of node.content ?? []) visitNode(child, walk);
}

/** File ids are uuids; anything else in the position of one references no upload. */
function noteFile(walk: Walk, fileId: string): void {
  const id = fileId.split(/[?#]/)[0]!.toLowerCase();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) walk.files.add(id);
}

function visitTextblock(node: JSONContent, walk: Walk): void {
  walk.block = '';
  walk.blockLinks = [];
  for (const child of node.content ?? []) visitNode(child, walk);
  const blockText = walk.block;
  walk.block = null;
  if (node.type === 'heading') {
    walk.outline.push({ id: walk.headingAnchor(node), level: numberAttr(node, 'level'), text: collapseWhitespace(blockText) });
  }
  if (blockText === '') return;
  pushLine(walk, blockText, walk.blockLinks);
}

/** Text outside any textblock (a block image's alt) becomes a line of its own. */
function appendInline(walk: Walk, text: string): void {
  if (walk.block !== null) {
    walk.block += text;
    return;
  }
  if (text !== '') pushLine(walk, text, []);
}

function pushLine(walk: Walk, line: string, blockLinks: LinkOccurrence[]): void {
  const lineStart = walk.lines.length === 0 ? 0 : walk.length + 1;
  for (const link of blockLinks) {
    walk.linkOccurrences.push({ targetSlug: link.targetSlug, start: lineStart + link.start, end: lineStart + link.end });
  }
  walk.lines.push(line);
  walk.length = lineStart + line.length;
}

/**
 * The link's own text with up to SNIPPET_CONTEXT characters on each side, cut back to whole
 * words; '…' marks each side that was cut.
 */
export function snippetAround(text: string, start: number, end: number): string {
  const leftStart = Math.max(0, start - SNIPPET_CONTEXT);
  const rightEnd = Math.min(text.length, end + SNIPPET_CONTEXT);
  let left = text.slice(leftStart, start);
  let right = text.slice(end, rightEnd);
  const leftCut = leftStart > 0;
  const rightCut = rightEnd < text.length;
  if (leftCut && !/\s/.test(text.charAt(leftStart - 1))) left = dropFirstPartialWord(left);
  if (rightCut && !/\s/.test(text.charAt(rightEnd))) right = dropLastPartialWord(right);
  const body = collapseWhitespace(`${left}${text.slice(start, end)}${right}`);
  return `${leftCut ? ELLIPSIS : ''}${body}${rightCut ? ELLIPSIS : ''}`;
}

/** A window that starts inside a word loses that fragment (unless the word fills the window). */
function dropFirstPartialWord(window: string): string {
  const boundary = window.search(/\s/);
  return boundary === -1 ? window : window.slice(boundary);
}

function dropLastPartialWord(window: string): string {
  const match = /\s\S*$/.exec(window);
  return match ? window.slice(0, match.index) : window;
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const WORD_TOKEN = /\S+/g;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function countWords(text: string): number {
  let count = 0;
  for (const [token] of text.matchAll(WORD_TOKEN)) {
    if (HAS_LETTER_OR_DIGIT.test(token)) count += 1;
  }
  return count;
}

function isTextblock(type: string | undefined): boolean {
  if (type === undefined) return false;
  return documentSchema.nodes[type]?.isTextblock ?? false;
}

function stringAttr(node: JSONContent, name: string): string {
  const value: unknown = node.attrs?.[name];
  return typeof value === 'string' ? value : '';
}

function numberAttr(node: JSONContent, name: string): number {
  const value: unknown = node.attrs?.[name];
  return typeof value === 'number' ? value : 0;
}
