/**
 * Markdown (our dialect, see content-pipeline/README.md) → document JSON of `documentSchema`.
 * The processor only parses and rewrites mdast; mdastToDocument then builds the document.
 */
import remarkDirective from 'remark-directive';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { DocumentJson } from '../schema/documentSchema.ts';
import { mdastToDocument } from './mdastToDocument.ts';
import remarkDirectivesAsText from './remarkDirectivesAsText.ts';
import remarkFootnotesAsText from './remarkFootnotesAsText.ts';
import remarkRawHtmlAsText from './remarkRawHtmlAsText.ts';
import remarkSections from './remarkSections.ts';
import remarkTransclusions from './remarkTransclusions.ts';
import remarkWikilinks from './remarkWikilinks.ts';

/** The read side's processor. The order is fixed; each step says why it stands where it does. */
export function createMarkdownParser() {
  return (
    unified()
      // 1. CommonMark syntax.
      .use(remarkParse)
      // 2. GFM: tables, task lists, strikethrough, autolink literals (and footnotes, which
      //    step 9 turns back into text).
      .use(remarkGfm)
      // 3. Directive syntax, for `:::section{…}` containers.
      .use(remarkDirective)
      // 4. `[[slug|text]]` and `![[slug]]` syntax. A micromark extension: it acts while
      //    parsing, so it must only be registered before parsing starts, like 1–3.
      .use(remarkWikilinks)
      // 5. Standalone `![[…]]` lines → transclusion blocks; embeds elsewhere → `!` + wikilink.
      //    Needs the wikilink nodes of 4.
      .use(remarkTransclusions)
      // 6. Raw HTML → literal text, before anything could treat it as markup.
      .use(remarkRawHtmlAsText)
      // 7. `:::section{plugin style}` → section nodes. Before 8, which degrades every
      //    directive still left.
      .use(remarkSections)
      // 8. Every other directive (also prose misread as one, `Note:this`) → its literal text.
      .use(remarkDirectivesAsText)
      // 9. Footnotes → their literal text (not in our document model).
      .use(remarkFootnotesAsText)
  );
}

const parser = createMarkdownParser().freeze();

export function markdownToDocument(markdown: string): DocumentJson {
  // The file is passed along so remarkDirectivesAsText can read directives' source text.
  const tree = parser.runSync(parser.parse(markdown), markdown);
  return mdastToDocument(tree);
}
