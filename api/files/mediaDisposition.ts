/**
 * How a browser may treat an attachment's bytes (spec: Files and media). Raster images are
 * shown inline; everything else, SVG included (it can carry script), is a download. Together
 * with `nosniff` and a sandboxing CSP, no uploaded file runs as a document of our origin.
 */

/** Raster image extensions and the one content type each may be served inline as. */
const INLINE_RASTER_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

const TOKEN = "[A-Za-z0-9!#$&^_.+'*`|~-]+";
/** `type/subtype` with optional `; name=value` parameters (RFC 9110 §8.3.1), nothing else. */
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`);

export interface MediaFileNaming {
  id: string;
  extension: string;
  contentType: string;
  /** The uploaded file name as shown; empty for rows that have none. */
  name: string;
}

/**
 * The stored content type when it is a well-formed media type; else the neutral one, so a
 * damaged row cannot break the header (or smuggle another one into it).
 */
export function servedContentType(contentType: string): string {
  return MEDIA_TYPE.test(contentType) ? contentType : 'application/octet-stream';
}

/** Inline only when the extension and the content type agree on a raster image type. */
export function isInlineImage(file: Pick<MediaFileNaming, 'extension' | 'contentType'>): boolean {
  const essence = file.contentType.split(';')[0]!.trim().toLowerCase();
  return INLINE_RASTER_TYPES[file.extension.toLowerCase()] === essence;
}

/** The `Content-Disposition` of a file: `inline` for raster images, else a named download. */
export function contentDispositionFor(file: MediaFileNaming): string {
  if (isInlineImage(file)) return 'inline';
  const generatedName = `${file.id}.${file.extension}`;
  const displayName = file.name.trim() === '' ? generatedName : file.name;
  return `attachment; filename="${asciiFileName(displayName, generatedName)}"; filename*=UTF-8''${percentEncodedUtf8(displayName)}`;
}

/**
 * The plain `filename` for clients that ignore `filename*`: accents dropped, and every
 * character that is not printable ASCII, or would end the quoted string (`"`, `\`), or that
 * some browsers percent-decode (`%`), replaced by `_`. A name with nothing readable left
 * before its extension (e.g. all Cyrillic) falls back to the generated `<id>.<extension>`.
 */
export function asciiFileName(displayName: string, generatedName: string): string {
  const ascii = displayName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const dot = ascii.lastIndexOf('.');
  const stem = dot > 0 ? ascii.slice(0, dot) : ascii;
  return /[A-Za-z0-9]/.test(stem) ? ascii : generatedName;
}

/** RFC 8187 `ext-value` characters: `encodeURIComponent` also leaves `'()*` bare, which are not among them. */
export function percentEncodedUtf8(text: string): string {
  // A lone surrogate has no UTF-8 form; encodeURIComponent would throw on it.
  return encodeURIComponent(text.toWellFormed()).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
