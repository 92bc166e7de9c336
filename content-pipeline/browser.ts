/**
 * The pipeline's surface for the browser editor: the schema's extensions and nodes and the Yjs
 * fragment name, without the Markdown and HTML tooling `index.ts` brings along (unified,
 * remark, rehype: a bundle the editor must not load up front). The Markdown reader comes on
 * demand, as its own chunk, for a paste of Markdown. Everything else imports `index.ts`.
 */
import type { DocumentJson } from './schema/documentSchema.ts';

export { documentExtensions } from './schema/documentSchema.ts';
export { MEDIA_PATH_PREFIX } from './markdown/dialect.ts';
export { PluginBlock, Transclusion, Wikilink } from './schema/customNodes.ts';
export { YJS_FRAGMENT_NAME } from './yjs/yjsConversions.ts';

/** Markdown → document, loaded on first use. */
export async function loadMarkdownReader(): Promise<(markdown: string) => DocumentJson> {
  return (await import('./markdown/markdownToDocument.ts')).markdownToDocument;
}
