/**
 * remark-stringify plugin: writes the mdast `wikiLink` node (remarkWikilinks.ts) as
 * `[[slug]]` / `[[slug|text]]`, or `![[slug]]` / `![[slug|display]]` when `embedded` (a
 * transclusion, alone in its paragraph). Written raw, not as text, because text gets its
 * brackets escaped (`\[\[slug]]`), which is exactly how literal brackets in text stay literal.
 *
 * Inside the brackets `\`, `|` and `]` are escaped with a backslash (README, "The Markdown
 * dialect"). In a GFM table cell an unescaped `|` ends the cell, so there the separator is
 * written `\|` too; the reader accepts both forms of the separator.
 */
import type { Handle, Options as ToMarkdownExtension, State } from 'mdast-util-to-markdown';
import type { Processor } from 'unified';
import type { WikiLink } from './remarkWikilinks.ts';

/** Escapes the characters that would end or split the bracket syntax. */
export function escapeWikilinkPart(value: string): string {
  return value.replace(/[\\|\]]/g, (character) => `\\${character}`);
}

function writeWikiLink(node: WikiLink, _parent: unknown, state: State): string {
  const open = node.embedded ? '![[' : '[[';
  const slug = escapeWikilinkPart(node.targetSlug);
  if (node.displayText === null || node.displayText === '') return `${open}${slug}]]`;
  // A line break inside the brackets would end the wikilink (the reader wants one line).
  const text = escapeWikilinkPart(node.displayText.replace(/\r\n?|\n/g, ' '));
  const separator = state.stack.includes('tableCell') ? '\\|' : '|';
  return `${open}${slug}${separator}${text}]]`;
}

/** The first character written, so the text before can escape what would join with it. */
function peekWikiLink(node: WikiLink): string {
  // A `!` right before `[[` would make an embed of a plain wikilink: it gets escaped.
  return node.embedded ? '!' : '[';
}

const wikiLink: Handle & { peek: Handle } = Object.assign(writeWikiLink, { peek: peekWikiLink });

// `Handlers` only lists the node types of mdast's root content; phrasing extensions are not there.
const extension: ToMarkdownExtension = { handlers: { wikiLink } as Record<string, Handle> };

/** Registers the wikilink writer with remark-stringify. */
export function remarkWikilinkToMarkdown(this: Processor): undefined {
  const data = this.data();
  (data.toMarkdownExtensions ??= []).push(extension);
}
