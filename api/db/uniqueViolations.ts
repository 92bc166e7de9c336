/**
 * Unique indexes and the errors they stand for. Commands check a name or slug before they
 * write, but a concurrent write can take it in between; the index then refuses the row and
 * the request must answer as the check would have. This table is the one place that knows
 * which index means which error, for the commands (which add details) and for the error
 * handler (a lost race nobody caught still answers 409 with its stable code, not 500).
 */
import { UniqueConstraintError } from 'sequelize';
import { ApiError, type ErrorDetails } from '../http/apiError.ts';
import type { ErrorCode } from '../http/errorCodes.ts';

/** Index name (see the migrations) → the error a violation of it answers with. */
export const UNIQUE_INDEX_ERRORS = {
  users_username_key: 'username_taken',
  users_email_key: 'email_taken',
  ponds_slug_key: 'slug_taken',
  pages_slug_key: 'slug_taken',
  labels_name_key: 'label_name_taken',
  grants_unique_rule: 'grant_exists',
} as const satisfies Record<string, ErrorCode>;

export type MappedUniqueIndex = keyof typeof UNIQUE_INDEX_ERRORS;

/** The unique index `error` violated, or null when it is no unique violation (Postgres 23505). */
export function violatedUniqueIndex(error: unknown): string | null {
  if (!(error instanceof UniqueConstraintError)) return null;
  return (error.parent as { constraint?: string } | undefined)?.constraint ?? null;
}

/**
 * The typed error for a violation of one of our mapped unique indexes, with `details` for
 * the caller (e.g. the slug asked for); null for any other error, which stays unexpected.
 */
export function uniqueViolationError(error: unknown, details: ErrorDetails = {}): ApiError | null {
  const index = violatedUniqueIndex(error);
  if (index === null || !Object.hasOwn(UNIQUE_INDEX_ERRORS, index)) return null;
  return new ApiError(UNIQUE_INDEX_ERRORS[index as MappedUniqueIndex], undefined, details);
}
