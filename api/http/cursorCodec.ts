/**
 * The one cursor codec of the API. A cursor is opaque to clients: base64url of a JSON payload
 * whose shape each kind of list declares here as a zod schema. Decoding checks the shape and
 * that every value is one the database takes — timestamps in the years Postgres reads, ranks a
 * `real` holds, text without NUL or lone surrogates — so a cursor we did not hand out answers
 * 400 naming `query.cursor`, never a 500 from the statement it would reach.
 */
import { z } from 'zod';
import { isUuid } from '../policies/accessPolicy.ts';
import { isoYearInDatabaseRange, storableString } from './fieldSchemas.ts';

/** A timestamp as Postgres prints it in UTC (`2024-06-15 12:00:00.123456`): microseconds kept, for exact keyset comparisons. */
const UTC_TEXT_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?$/;

/** `2024-06-15 12:00:00.123456` → `2024-06-15T12:00:00.123Z`, truncated to milliseconds as a Date's ISO form is. */
export function isoFromUtcText(text: string): string {
  const milliseconds = text.length > 20 ? text.slice(20, 23).padEnd(3, '0') : '000';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`;
}

/** A real calendar date and time (not 31 February, not hour 24) in a year Postgres reads. */
function isUtcKey(text: string): boolean {
  if (!UTC_TEXT_PATTERN.test(text) || !isoYearInDatabaseRange(text)) return false;
  const iso = isoFromUtcText(text);
  const parsed = Date.parse(iso);
  return !Number.isNaN(parsed) && new Date(parsed).toISOString() === iso;
}

const utcKey = z.string().refine(isUtcKey);
const id = z
  .string()
  .refine(isUuid)
  .transform((value) => value.toLowerCase());

/** The largest finite `real` (float4); beyond it Postgres refuses the number. */
const REAL_MAX = 3.4028234663852886e38;
/** The smallest positive normal `real`; below it (but above 0) the number underflows. */
const REAL_MIN_NORMAL = 1.1754943508222875e-38;
/** A search rank: `ts_rank` is a non-negative `real`. */
const rank = z.number().refine((value) => value === 0 || (value >= REAL_MIN_NORMAL && value <= REAL_MAX));

/**
 * A codec for one kind of cursor: `encode`, `decode` (null for a text that is not a cursor of
 * this kind we could have handed out) and `field`, the optional `cursor` query field that
 * decodes it or answers 400 naming `query.cursor`.
 */
function cursorCodec<T>(payload: z.ZodType<T>, toJson: (cursor: T) => unknown) {
  const decode = (text: string): T | null => {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    const result = payload.safeParse(value);
    return result.success ? result.data : null;
  };
  return {
    encode: (cursor: T): string => Buffer.from(JSON.stringify(toJson(cursor)), 'utf8').toString('base64url'),
    decode,
    field: z
      .string()
      .transform((text, context) => {
        const cursor = decode(text);
        if (cursor === null) {
          context.addIssue({ code: 'custom', input: text });
          return z.NEVER;
        }
        return cursor;
      })
      .optional(),
  };
}

/** Where a list ordered by (timestamp, id) continues: the page list, favorites, versions. */
export interface TimelineCursor {
  /** The timestamp in UTC as Postgres prints it (microseconds kept). */
  createdKey: string;
  id: string;
}

export const timelineCursor = cursorCodec<TimelineCursor>(
  z.tuple([utcKey, id]).transform(([createdKey, rowId]) => ({ createdKey, id: rowId })),
  (cursor) => [cursor.createdKey, cursor.id],
);

/** Where the notification list continues: unread first, then newest first (`read`, `updated_at` in UTC with microseconds, id). */
export interface NotificationCursor {
  read: boolean;
  updatedKey: string;
  id: string;
}

export const notificationCursor = cursorCodec<NotificationCursor>(
  z.tuple([z.boolean(), utcKey, id]).transform(([read, updatedKey, rowId]) => ({ read, updatedKey, id: rowId })),
  (cursor) => [cursor.read, cursor.updatedKey, cursor.id],
);

/** Where a page of search results ended in the ranked order (tier, rank best first, page id). */
export interface SearchCursor {
  tier: 0 | 1 | 2 | 3;
  rank: number;
  id: string;
}

export const searchCursor = cursorCodec<SearchCursor>(
  z.tuple([z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]), rank, id]).transform(([tier, value, pageId]) => ({ tier, rank: value, id: pageId })),
  (cursor) => [cursor.tier, cursor.rank, cursor.id],
);

/** Where the backlink list continues: the (title, id) of the last source handed out. */
export interface BacklinkCursor {
  title: string;
  id: string;
}

export const backlinkCursor = cursorCodec<BacklinkCursor>(
  z.tuple([storableString(), id]).transform(([title, pageId]) => ({ title, id: pageId })),
  (cursor) => [cursor.title, cursor.id],
);

/** The phantom-link list continues after this (lowercase) target slug. */
export const phantomCursor = cursorCodec<string>(storableString().min(1), (slug) => slug);

/** The trash list continues after this trash timestamp (UTC text, microseconds kept). */
export const trashCursor = cursorCodec<string>(utcKey, (trashedKey) => trashedKey);

/** Where the admin's account list continues: the lowercase username and id of the last account handed out. */
export interface AccountListCursor {
  username: string;
  id: string;
}

export const accountListCursor = cursorCodec<AccountListCursor>(
  z.tuple([storableString().min(1), id]).transform(([username, userId]) => ({ username, id: userId })),
  (cursor) => [cursor.username, cursor.id],
);

/** An audit entry's id: a positive `bigint` (bigserial), as decimal text so no digit is lost to a JS number. */
const auditId = z.string().refine((value) => /^[1-9]\d{0,18}$/.test(value) && BigInt(value) <= 9223372036854775807n);

/** Where the audit list continues, newest first: the last entry's timestamp (UTC text, microseconds kept) and id. */
export interface AuditCursor {
  createdKey: string;
  id: string;
}

export const auditCursor = cursorCodec<AuditCursor>(
  z.tuple([utcKey, auditId]).transform(([createdKey, entryId]) => ({ createdKey, id: entryId })),
  (cursor) => [cursor.createdKey, cursor.id],
);
