/**
 * The keyset cursor of lists ordered by (timestamp, id): the page list (created_at) and the
 * favorites list (the star's created_at). Timestamps travel as Postgres' UTC text with
 * microseconds, so the keyset comparison is exact (a Date keeps only milliseconds).
 */
import { z } from 'zod';
import { isUuid } from '../policies/accessPolicy.ts';

/** Where a listing continues: the (timestamp, id) of the last row handed out. */
export interface PageCursor {
  /** The timestamp in UTC as Postgres prints it (microseconds kept). */
  createdKey: string;
  id: string;
}

const UTC_TEXT_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?$/;

/** `2024-06-15 12:00:00.123456` → `2024-06-15T12:00:00.123Z`, truncated to milliseconds as a Date's ISO form is. */
export function isoFromUtcText(text: string): string {
  const milliseconds = text.length > 20 ? text.slice(20, 23).padEnd(3, '0') : '000';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`;
}

export function encodePageCursor(cursor: PageCursor): string {
  return Buffer.from(`${cursor.createdKey}|${cursor.id}`, 'utf8').toString('base64url');
}

/** The cursor, or null when the text is not one we handed out. */
export function decodePageCursor(text: string): PageCursor | null {
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const [createdKey, id, ...rest] = decoded.split('|');
  if (rest.length > 0 || !createdKey || !UTC_TEXT_PATTERN.test(createdKey) || !isUuid(id)) return null;
  // The pattern admits impossible dates (month 13, 31 February) that Postgres would refuse with a 500.
  const iso = isoFromUtcText(createdKey);
  const parsed = Date.parse(iso);
  if (Number.isNaN(parsed) || new Date(parsed).toISOString() !== iso) return null;
  return { createdKey, id: id.toLowerCase() };
}

/** The `cursor` query parameter: a cursor we handed out, else a 400 naming `query.cursor`. */
export const pageCursorField = z
  .string()
  .transform((text, context) => {
    const cursor = decodePageCursor(text);
    if (!cursor) {
      context.addIssue({ code: 'custom', input: text });
      return z.NEVER;
    }
    return cursor;
  })
  .optional();
