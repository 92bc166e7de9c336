import type { z } from 'zod';
import { ourFieldMessage, zodErrorMap } from '../i18n/fieldMessages.ts';
import type { Locale } from '../i18n/locale.ts';
import { ApiError } from './apiError.ts';

export interface FieldProblem {
  path: string;
  code: string;
  message: string;
}

export function fieldProblems(error: z.ZodError, prefix: string | undefined, locale: Locale): FieldProblem[] {
  return error.issues.map((issue) => ({
    path: [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.'),
    code: issue.code,
    message: ourFieldMessage(issue.path, issue.code, locale) ?? issue.message,
  }));
}

/**
 * Parses one part of a request; throws 400 `validation_failed` naming every failing field,
 * with messages in the caller's language (looked up only when something failed).
 */
export async function parseWithSchema<T>(
  schema: z.ZodType<T> | undefined,
  value: unknown,
  part: 'params' | 'query' | 'body',
  locale: () => Promise<Locale>,
): Promise<T> {
  if (!schema) return value as T;
  const input = part === 'body' ? (value ?? {}) : value;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const language = await locale();
  const localized = schema.safeParse(input, { error: zodErrorMap(language) });
  const error = localized.success ? result.error : localized.error;
  throw new ApiError('validation_failed', 400, { fields: fieldProblems(error, part === 'body' ? undefined : part, language) });
}
