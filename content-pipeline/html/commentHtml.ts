/**
 * Comment bodies: Markdown → sanitized HTML with a smaller allowlist than pages (p, br,
 * strong, em, del, code, pre, blockquote, ul, ol, li, a[href]). Markup typed into a body
 * comes back as escaped text. Other Markdown constructs (headings, tables …) keep their text
 * as paragraphs (remarkCommentBlocks.ts).
 */
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import rehypeCommentLinkRel from './rehypeCommentLinkRel.ts';
import remarkCommentBlocks from './remarkCommentBlocks.ts';
import remarkCommentMentions from './remarkCommentMentions.ts';
import remarkImagesAsLinks from './remarkImagesAsLinks.ts';
// Shared with the page Markdown reader: the same "raw HTML stays visible text" rule.
import remarkRawHtmlAsText from '../markdown/remarkRawHtmlAsText.ts';
import { commentSanitizeSchema } from './sanitizeSchema.ts';

/**
 * Plugin order:
 * 1. remark-parse, remark-gfm: CommonMark + GFM (strikethrough, autolinks, lists);
 * 2. remarkRawHtmlAsText: raw HTML → text before remark-rehype, which would drop it;
 * 3. remarkImagesAsLinks: comments show no images, but keep the reference;
 * 4. remarkCommentBlocks: headings, tables and task boxes into allowed elements and text;
 *    remarkCommentMentions: `[@Ann](dt-mention:id)` into the mention chip pages render;
 * 5. remark-rehype WITHOUT allowDangerousHtml: nothing raw can reach the HTML tree;
 * 6. rehype-sanitize with the comment schema: the allowlist and URL schemes;
 * 7. rehypeCommentLinkRel: after sanitizing, so our `rel` is the only one;
 * 8. rehype-stringify.
 */
export function createCommentHtmlProcessor() {
  return unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRawHtmlAsText)
    .use(remarkImagesAsLinks)
    .use(remarkCommentBlocks)
    .use(remarkCommentMentions)
    .use(remarkRehype)
    .use(rehypeSanitize, commentSanitizeSchema)
    .use(rehypeCommentLinkRel)
    .use(rehypeStringify)
    .freeze();
}

let processor: ReturnType<typeof createCommentHtmlProcessor> | null = null;

export function renderCommentHtml(markdown: string): string {
  processor ??= createCommentHtmlProcessor();
  return String(processor.processSync(markdown));
}
