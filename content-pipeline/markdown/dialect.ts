/**
 * The markers of our Markdown dialect (content-pipeline/README.md, "The Markdown dialect")
 * that both directions must agree on: the reader (markdownToDocument) and the writer
 * (documentToMarkdown).
 */

/** Info-string word of a fenced code block holding a plugin block: `dt-plugin <pluginId>/<blockType>`. */
export const PLUGIN_FENCE_PREFIX = 'dt-plugin';

/** URL scheme of a mention link: `[@Label](dt-mention:<userId>)`. */
export const MENTION_SCHEME = 'dt-mention:';

/** Path under which uploaded files are served; an image URL `<prefix><fileId>` is an uploaded image. */
export const MEDIA_PATH_PREFIX = '/api/v1/media/';
