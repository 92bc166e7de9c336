/**
 * A reference renderer for classifying CommonMark conformance failures: plain remark →
 * rehype (micromark passes the whole CommonMark spec), optionally with GFM and with our raw
 * HTML policy (the reader's own remarkRawHtmlAsText). When our output equals the reference
 * with that policy, the example's only difference from the spec is the policy.
 */
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit, EXIT } from 'unist-util-visit';
import remarkRawHtmlAsText from '../markdown/remarkRawHtmlAsText.ts';

export interface ReferenceOptions {
  /** Parse GFM (tables, task lists, strikethrough, autolink literals) as our reader does. */
  gfm: boolean;
  /** Render raw HTML as visible text (our policy) instead of passing it through. */
  rawHtmlAsText: boolean;
}

export function referenceHtml(markdown: string, options: ReferenceOptions): string {
  const processor = unified().use(remarkParse);
  if (options.gfm) processor.use(remarkGfm);
  if (options.rawHtmlAsText) processor.use(remarkRawHtmlAsText);
  return String(processor.use(remarkRehype, { allowDangerousHtml: true }).use(rehypeStringify, { allowDangerousHtml: true }).processSync(markdown));
}

const commonmarkParser = unified().use(remarkParse).freeze();

/** Whether plain CommonMark reads raw HTML (an HTML block or inline HTML) in the Markdown. */
export function hasRawHtml(markdown: string): boolean {
  let found = false;
  visit(commonmarkParser.parse(markdown), 'html', () => {
    found = true;
    return EXIT;
  });
  return found;
}
