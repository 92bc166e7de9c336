/**
 * remark-stringify plugin: the directive writer of mdast-util-directive (what remark-directive
 * registers), used for sections (`:::section{plugin="…" style="…"}` … `:::`, more colons when
 * sections nest).
 *
 * Its escape for `:` (a text directive could start at `:name`) also applies inside link
 * destinations, where no directive can start, and turns every mention into
 * `[@Ann](dt-mention\:id)` and `mailto:` links into `mailto\:…`. This plugin registers the
 * same writer with that escape limited to where directives can form. Everything else
 * (handlers, other escapes) is mdast-util-directive's own.
 */
import { directiveToMarkdown } from 'mdast-util-directive';
import type { ConstructName, Unsafe } from 'mdast-util-to-markdown';
import type { Processor } from 'unified';

/** Constructs inside phrasing that are not parsed as phrasing (mdast-util-to-markdown's list). */
const NOT_PHRASING: ConstructName[] = ['autolink', 'destinationLiteral', 'destinationRaw', 'reference', 'titleQuote', 'titleApostrophe'];

function limitToPhrasing(pattern: Unsafe): Unsafe {
  const inConstruct = pattern.inConstruct;
  const inPhrasing = inConstruct === 'phrasing' || (Array.isArray(inConstruct) && inConstruct.includes('phrasing'));
  if (pattern.character !== ':' || !inPhrasing) return pattern;
  return { ...pattern, notInConstruct: NOT_PHRASING };
}

/** Registers the directive writer (sections) with remark-stringify. */
export function remarkDirectiveToMarkdown(this: Processor): undefined {
  const writer = directiveToMarkdown();
  const extension = { ...writer, unsafe: (writer.unsafe ?? []).map(limitToPhrasing) };
  const data = this.data();
  (data.toMarkdownExtensions ??= []).push(extension);
}
