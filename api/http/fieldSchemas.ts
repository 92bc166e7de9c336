/**
 * Field schemas every route shares: text Postgres can store, and timestamps inside the range
 * it holds. The route wrapper already refuses unstorable text in any field (inputText.ts);
 * `storableString` states the rule in a schema too, for text a transform produces.
 *
 * Refinements carry `params.code`, which validation.ts reports as the field's code and
 * fieldMessages.ts words in German and English.
 */
import { z } from 'zod';
import { isStorableText } from './inputText.ts';

export const INVALID_TEXT = 'invalid_text';
export const DATE_OUT_OF_RANGE = 'date_out_of_range';

/** A string without NUL or lone surrogates. */
export function storableString() {
  return z.string().refine(isStorableText, { params: { code: INVALID_TEXT } });
}

/**
 * Postgres reads the years 1–9999 of ISO 8601 text (it writes earlier ones with BC and does
 * not take year 0). The ISO patterns take four-digit years, so year 0 is the one left to refuse.
 */
export function isoYearInDatabaseRange(text: string): boolean {
  const year = Number(text.slice(0, 4));
  return Number.isInteger(year) && year >= 1 && year <= 9999;
}

/**
 * A point in time given as ISO 8601 with Z or an offset, or a plain date meaning midnight UTC;
 * kept as text (normalized to a timestamp) so Postgres compares exactly.
 */
export const isoTimestampField = z
  .union([z.iso.datetime({ offset: true }), z.iso.date().transform((date) => `${date}T00:00:00Z`)])
  .refine(isoYearInDatabaseRange, { params: { code: DATE_OUT_OF_RANGE } });
