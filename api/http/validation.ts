import type { z } from 'zod';
import { ApiError } from './apiError.ts';

export interface FieldProblem {
  path: string;
  code: string;
  message: string;
}

export function fieldProblems(error: z.ZodError, prefix?: string): FieldProblem[] {
  return error.issues.map((issue) => ({
    path: [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.'),
    code: issue.code,
    message: issue.message,
  }));
}

/** Parses one part of a request; throws 400 `validation_failed` naming every failing field. */
export function parseWithSchema<T>(schema: z.ZodType<T> | undefined, value: unknown, part: 'params' | 'query' | 'body'): T {
  if (!schema) return value as T;
  const result = schema.safeParse(part === 'body' ? (value ?? {}) : value);
  if (result.success) return result.data;
  throw new ApiError('validation_failed', 400, { fields: fieldProblems(result.error, part === 'body' ? undefined : part) });
}
