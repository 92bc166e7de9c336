/**
 * Document JSON → Markdown in our dialect (content-pipeline/README.md, "The Markdown
 * dialect"). The document is first turned into mdast (documentToMdast.ts), then written by
 * one remark-stringify processor with fixed options, so the same document always gives the
 * same bytes and Markdown → document → Markdown is a fixed point after one pass.
 *
 * Conventions (see also documentToMdast.ts):
 * - headings ATX (`## x`), never setext; heading ids are not written;
 * - bullets `-` (`*` for a list right after another list, which would otherwise merge with
 *   it), ordered `1.` (`1)` likewise), task items `- [ ]` / `- [x]`, one space after the marker;
 *   task and plain lists next to each other (as the reader splits a mixed list) are written as
 *   one list; tight lists without blank lines, loose ones with blank lines between items;
 * - emphasis `*a*`, strong `**a**`, strike `~~a~~`: `*` rather than `_` because `_` cannot
 *   open or close inside a word, so `Dorf*teich*` would have to be written with character
 *   references; where markers still cannot form, the writer encodes the neighbouring
 *   character as a reference (`**a&#x20;**b`) so the marks read back unchanged;
 * - fences with backticks, longer than any backtick run in the body; rules `---`;
 * - hard breaks as a backslash before the line end; trailing hard breaks are dropped;
 * - empty paragraphs are dropped (Markdown cannot express them);
 * - in a table cell a hard break becomes a space (GFM cells are one line).
 */
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import type { Options as StringifyOptions } from 'remark-stringify';
import { unified } from 'unified';
import type { DocumentJson } from '../schema/documentSchema.ts';
import { remarkDirectiveToMarkdown } from './directiveToMarkdown.ts';
import { documentToMdast } from './documentToMdast.ts';
import { remarkTextToMarkdown } from './textToMarkdown.ts';
import { remarkWikilinkToMarkdown } from './wikilinkToMarkdown.ts';

/** The fixed remark-stringify options of our dialect. */
export const MARKDOWN_STRINGIFY_OPTIONS: StringifyOptions = {
  bullet: '-',
  bulletOther: '*',
  bulletOrdered: '.',
  emphasis: '*',
  strong: '*',
  fence: '`',
  fences: true,
  rule: '-',
  ruleRepetition: 3,
  ruleSpaces: false,
  setext: false,
  closeAtx: false,
  listItemIndent: 'one',
  incrementListMarker: true,
  quote: '"',
  resourceLink: false,
  tightDefinitions: false,
};

/** The write-side processor: mdast → Markdown. */
export function createMarkdownSerializer() {
  return (
    unified()
      // 1. GFM writers: tables, task list items, strikethrough, and escapes that keep
      //    URL-looking text from turning into autolinks.
      .use(remarkGfm)
      // 2. Container directives for sections.
      .use(remarkDirectiveToMarkdown)
      // 3. Our raw `[[…]]` / `![[…]]` nodes.
      .use(remarkWikilinkToMarkdown)
      // 4. Text nodes: the library's text writer with a faster escape (same bytes).
      .use(remarkTextToMarkdown)
      // 5. The compiler, last, with the fixed options.
      .use(remarkStringify, MARKDOWN_STRINGIFY_OPTIONS)
  );
}

let serializer: ReturnType<typeof createMarkdownSerializer> | undefined;

/** Markdown for a document; `''` for a document with nothing but empty paragraphs. */
export function documentToMarkdown(doc: DocumentJson): string {
  serializer ??= createMarkdownSerializer().freeze();
  return serializer.stringify(documentToMdast(doc));
}
