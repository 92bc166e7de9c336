/**
 * The conditional and range headers of a file download (RFC 9110 §13, §14), for the one
 * representation an attachment has: its bytes, tagged by their SHA-256.
 *
 * Only a single range is served. A multi-range answer would be `multipart/byteranges`, which
 * no client we serve needs; RFC 9110 lets a server ignore a Range header it does not want to
 * honour, so several ranges, a malformed header or another unit get the whole file (200).
 */

/** The entity tag of stored bytes: their hash is the strongest validator there is. */
export function entityTagOf(sha256: string): string {
  return `"${sha256}"`;
}

/** The tag without its weakness marker: `If-None-Match` compares weakly (RFC 9110 §13.1.2). */
function opaqueTag(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Whether `If-None-Match` names `etag` (or is `*`, as the file exists): the answer is 304. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = header.split(',').map((tag) => tag.trim());
  return tags.some((tag) => tag === '*' || opaqueTag(tag) === etag);
}

export type ByteRangeRequest =
  | { kind: 'whole' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

const SINGLE_BYTE_RANGE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

/**
 * What `Range` (with its `If-Range`) asks of a file of `size` bytes; `end` is inclusive.
 * `If-Range` must match the tag strongly; a date or another tag means the client's copy is
 * stale, so it gets the whole file (we send no `Last-Modified`, so no date can match).
 */
export function requestedByteRange(range: string | undefined, ifRange: string | undefined, etag: string, size: number): ByteRangeRequest {
  if (range === undefined) return { kind: 'whole' };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: 'whole' };
  const match = SINGLE_BYTE_RANGE.exec(range.trim());
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '') {
    // `bytes=-n`: the last n bytes; nothing of an empty file, and `-0` selects nothing at all.
    if (last === '') return { kind: 'whole' };
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  // `bytes=5-2` is not a range at all (RFC 9110 §14.1.1): ignored, not refused.
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
