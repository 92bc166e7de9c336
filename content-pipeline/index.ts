/**
 * The content pipeline's one surface, used by the API, the collaboration server and jobs:
 * nobody else parses Markdown or builds HTML. Pure: no database, no I/O.
 */
export { EMPTY_DOCUMENT, assertValidDocument, documentExtensions, documentSchema, type DocumentJson } from './schema/documentSchema.ts';
export { markdownToDocument } from './markdown/markdownToDocument.ts';
export { MEDIA_PATH_PREFIX } from './markdown/dialect.ts';
export { documentToMarkdown } from './markdown/documentToMarkdown.ts';
export { documentToHtml } from './html/documentToHtml.ts';
export { expandPlaceholders, expandPluginBlocks, expandTransclusions, MAX_TRANSCLUSION_DEPTH, pluginBlocksInOrder, type PluginBlockRef, type PluginStaticForm, type TransclusionTarget } from './html/expandPlaceholders.ts';
export { unlinkWikilinks, wikilinkTargets, wikilinkTextFromHtml } from './html/unavailableWikilinks.ts';
export { MAX_SVG_SNAPSHOT_LENGTH, sanitizeSvg } from './html/svgSanitizer.ts';
export { renderCommentHtml } from './html/commentHtml.ts';
export { extract } from './extraction/extract.ts';
export { YJS_FRAGMENT_NAME, appendYDocContent, documentToYDoc, documentToYjsUpdate, replaceYDocContent, yDocToDocument, yjsUpdateToDocument } from './yjs/yjsConversions.ts';
/** The XSS corpus every layer that serves content tests itself against (tests only). */
export { XSS_VECTORS } from './html/xssVectors.ts';
