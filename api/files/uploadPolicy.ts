/**
 * What an upload may be (spec: Limits — upload allowlist, SVG policy): the extension decides
 * first, before a byte is stored; the bytes then have to agree with it. A `.png` must sniff
 * as PNG (a `.png` that is HTML is refused), an office file as what it claims or the ZIP it
 * is, a text file must not turn out to be a binary format. Extensions whose content we cannot
 * tell from the bytes pass when nothing contradicts them: they are only ever sent as
 * downloads with `nosniff`, never rendered by the browser.
 */
import { fileTypeFromBuffer } from 'file-type';
import { ApiError } from '../http/apiError.ts';

/** Raster images: always allowed, sent inline, inserted as image nodes. */
export const RASTER_IMAGE_TYPES: Readonly<Record<string, readonly string[]>> = {
  png: ['image/png'],
  jpg: ['image/jpeg'],
  jpeg: ['image/jpeg'],
  gif: ['image/gif'],
  webp: ['image/webp'],
  avif: ['image/avif'],
};

export const SVG_EXTENSION = 'svg';
export const SVG_CONTENT_TYPE = 'image/svg+xml';

const ZIP = 'application/zip';
/** Extensions with a format file-type recognises: the sniffed type must be one of these. */
const SNIFFABLE_TYPES: Readonly<Record<string, readonly string[]>> = {
  ...RASTER_IMAGE_TYPES,
  pdf: ['application/pdf'],
  zip: [ZIP],
  // Office documents are ZIP containers; writers other than Office are not always recognised as more than that.
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', ZIP],
  xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', ZIP],
  pptx: ['application/vnd.openxmlformats-officedocument.presentationml.presentation', ZIP],
  odt: ['application/vnd.oasis.opendocument.text', ZIP],
  ods: ['application/vnd.oasis.opendocument.spreadsheet', ZIP],
  odp: ['application/vnd.oasis.opendocument.presentation', ZIP],
};

/** Text formats: no binary signature may be found in them. Served as downloads, so HTML inside stays inert. */
const TEXT_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
};

/** How many leading bytes the sniffer looks at (file-type's own sample size). */
export const SNIFF_BYTES = 4100;

export type UploadRefusalReason = 'extension' | 'content_mismatch' | 'svg_rejected' | 'not_svg';

export function refuseUpload(reason: UploadRefusalReason, extension: string): ApiError {
  return new ApiError('upload_type_not_allowed', 415, { reason, extension });
}

/**
 * The extension of an uploaded file name as stored: lowercase, no dot, letters and digits
 * only. A name without one (or with an unusable one) gives ''.
 */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return '';
  const extension = fileName.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,16}$/.test(extension) ? extension : '';
}

export function isRasterImage(extension: string): boolean {
  return Object.hasOwn(RASTER_IMAGE_TYPES, extension);
}

/** Before any byte is stored: is this extension allowed at all? SVG follows `upload.svgPolicy`. */
export function assertExtensionAllowed(extension: string, allowed: readonly string[], svgPolicy: 'reject' | 'sanitize'): void {
  if (extension === SVG_EXTENSION) {
    if (svgPolicy === 'reject') throw refuseUpload('svg_rejected', extension);
    return;
  }
  if (extension === '' || (!isRasterImage(extension) && !allowed.includes(extension))) throw refuseUpload('extension', extension);
}

const MARKUP_START = /^(?:\uFEFF)?\s*<(?:!doctype|html|head|body|script|svg|\?xml|iframe|object|embed|meta|a\s|div|img)/i;

/**
 * The content type to store for the first bytes of a file named with `extension`, or a
 * refusal when the bytes contradict the extension. `head` holds up to SNIFF_BYTES bytes.
 */
export async function contentTypeFor(extension: string, head: Uint8Array): Promise<string> {
  const sniffed = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  const expected = SNIFFABLE_TYPES[extension];
  if (expected) {
    if (!sniffed || !expected.includes(sniffed.mime)) throw refuseUpload('content_mismatch', extension);
    return sniffed.mime;
  }
  const textType = TEXT_TYPES[extension];
  if (textType) {
    if (sniffed) throw refuseUpload('content_mismatch', extension);
    return textType;
  }
  // An extension an administrator added: what the bytes say, if they say anything, must be it.
  if (sniffed) {
    if (sniffed.ext !== extension) throw refuseUpload('content_mismatch', extension);
    return sniffed.mime;
  }
  if (MARKUP_START.test(new TextDecoder().decode(head.subarray(0, 512)))) throw refuseUpload('content_mismatch', extension);
  return 'application/octet-stream';
}

/**
 * The display name of an uploaded file: no directories (either slash), no control or
 * bidirectional-override characters, Unicode NFC, at most 255 characters keeping the
 * extension. A name that is empty after that becomes `file.<extension>`.
 */
export function cleanFileName(raw: string, extension: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  let name = base.normalize('NFC').replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  name = name.replace(/^\.+/, '');
  if (name === '') name = extension ? `file.${extension}` : 'file';
  const chars = Array.from(name);
  if (chars.length > 255) {
    const suffix = extension ? `.${extension}` : '';
    name = chars.slice(0, 255 - suffix.length).join('') + suffix;
  }
  return name;
}
