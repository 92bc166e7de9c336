/**
 * Request parsing for the route table: each part (params, query, body) through the route's
 * zod schema, with one rule for all text before and after it (inputText.ts), and the body's
 * content type checked where the route takes a body.
 */
import type { Request } from 'express';
import type { z } from 'zod';
import { ourFieldMessage, zodErrorMap } from '../i18n/fieldMessages.ts';
import type { Locale } from '../i18n/locale.ts';
import { ApiError } from './apiError.ts';
import { INVALID_TEXT } from './fieldSchemas.ts';
import { findInputTextProblems, MAX_INPUT_DEPTH } from './inputText.ts';

export interface FieldProblem {
  path: string;
  code: string;
  message: string;
}

type RequestPart = 'params' | 'query' | 'body';

/** Body fields are named as they are; params and query fields carry their part (`query.cursor`). */
function fieldPath(part: RequestPart | undefined, path: readonly PropertyKey[]): string {
  return [...(part && part !== 'body' ? [part] : []), ...path.map(String)].join('.');
}

/** A refinement's own code (`params.code`, see fieldSchemas.ts), else zod's. */
function issueCode(issue: z.core.$ZodIssue): string {
  const own = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  return typeof own === 'string' ? own : issue.code;
}

export function fieldProblems(error: z.ZodError, prefix: string | undefined, locale: Locale): FieldProblem[] {
  return error.issues.map((issue) => {
    const code = issueCode(issue);
    return {
      path: [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.'),
      code,
      message: ourFieldMessage(issue.path, code, locale) ?? issue.message,
    };
  });
}

/** Refuses NUL and lone surrogates in any string of `value` (400 naming the fields) and nesting past MAX_INPUT_DEPTH. */
async function assertStorableText(value: unknown, part: RequestPart, locale: () => Promise<Locale>): Promise<void> {
  const problems = findInputTextProblems(value);
  if (problems.tooDeep) throw new ApiError('invalid_request', 400, { reason: 'nested_too_deep', part, maxDepth: MAX_INPUT_DEPTH });
  if (problems.unstorable.length === 0) return;
  const language = await locale();
  throw new ApiError('validation_failed', 400, {
    fields: problems.unstorable.map((path) => ({ path: fieldPath(part, path), code: INVALID_TEXT, message: ourFieldMessage(path, INVALID_TEXT, language)! })),
  });
}

/**
 * Parses one part of a request; throws 400 `validation_failed` naming every failing field,
 * with messages in the caller's language (looked up only when something failed). Text that
 * breaks the rule is refused whether or not the schema names the field, and a missing body
 * is an empty object (a JSON `null` is not).
 */
export async function parseWithSchema<T>(
  schema: z.ZodType<T> | undefined,
  value: unknown,
  part: RequestPart,
  locale: () => Promise<Locale>,
): Promise<T> {
  await assertStorableText(value, part, locale);
  if (!schema) return value as T;
  const input = part === 'body' && value === undefined ? {} : value;
  const result = schema.safeParse(input);
  if (result.success) {
    await assertStorableText(result.data, part, locale);
    return result.data;
  }
  const language = await locale();
  const localized = schema.safeParse(input, { error: zodErrorMap(language) });
  const error = localized.success ? result.error : localized.error;
  throw new ApiError('validation_failed', 400, { fields: fieldProblems(error, part === 'body' ? undefined : part, language) });
}

/** No body at all: neither a length above zero nor a chunked one. */
function hasNoBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}

/**
 * A route that takes a body takes JSON: a body of another type (text/plain, a form) answers
 * 415 `unsupported_media_type` instead of being read as no body. A request without a body
 * (what a browser sends for a POST without one) passes: the schema then sees `{}`.
 */
export function assertJsonBody(req: Request, takesBody: boolean): void {
  if (!takesBody || hasNoBody(req)) return;
  if (!req.is(['application/json', '+json'])) throw new ApiError('unsupported_media_type', 415, { expected: 'application/json' });
}
