/**
 * Document JSON → sanitized HTML, the page body cached on every save. Placeholders for
 * transclusions and plugin blocks stay in the output; the serving layer expands them
 * (expandPlaceholders.ts) because they depend on the reader's permissions.
 */
import type { JSONContent } from '@tiptap/core';
import type { Root } from 'hast';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import { unified } from 'unified';
import { documentToHast, type LinkResolver } from './documentToHast.ts';
import { pageSanitizeSchema } from './sanitizeSchema.ts';

export interface DocumentToHtmlOptions {
  /** slug → `{ href }` for an existing page, `null` for a missing one (phantom link). */
  resolveLink?: LinkResolver;
}

/**
 * The processor after documentToHast (which is not a unified parser: its input is JSON; it
 * also gives headings their final, prefixed ids, the outline's). Order matters:
 * 1. rehype-sanitize with our page schema: the only step that changes the tree, so nothing
 *    is added after the safety check;
 * 2. rehype-stringify.
 */
export function createDocumentHtmlProcessor() {
  return unified()
    .use(rehypeSanitize, pageSanitizeSchema)
    .use(rehypeStringify)
    .freeze();
}

let processor: ReturnType<typeof createDocumentHtmlProcessor> | null = null;

/** Runs on every save, so the frozen processor is built once and reused. */
export function documentToHtml(doc: JSONContent, options: DocumentToHtmlOptions = {}): string {
  processor ??= createDocumentHtmlProcessor();
  const tree: Root = processor.runSync(documentToHast(doc, options));
  return processor.stringify(tree);
}
