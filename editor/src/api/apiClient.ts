/**
 * Same-origin JSON calls from islands to `/api/v1`. The session travels in the
 * HttpOnly `dt_session` cookie and the browser's own `Accept-Language` makes the API
 * localize its error messages, so a failure carries text ready to show.
 */
import type { ApiErrorBody, ErrorCode, FieldProblem } from './apiViews.ts';

export const API_BASE = '/api/v1';

/** `code` is an API error code, or `network_error` / `unexpected_response` when no API answer could be read. */
export class ApiRequestError extends Error {
  override name = 'ApiRequestError';
  readonly code: ErrorCode | 'network_error' | 'unexpected_response';
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds: number | null;

  constructor(input: {
    code: ApiRequestError['code'];
    status: number;
    message: string;
    details?: Record<string, unknown>;
    retryAfterSeconds?: number | null;
  }) {
    super(input.message);
    this.code = input.code;
    this.status = input.status;
    this.details = input.details ?? {};
    this.retryAfterSeconds = input.retryAfterSeconds ?? null;
  }

  /** Field-level problems of a `validation_failed` answer, keyed by field path. */
  get fieldProblems(): Record<string, string> {
    const fields = this.details['fields'];
    if (!Array.isArray(fields)) return {};
    const byPath: Record<string, string> = {};
    for (const field of fields as FieldProblem[]) {
      if (typeof field?.path === 'string' && typeof field.message === 'string' && !(field.path in byPath)) {
        byPath[field.path] = field.message;
      }
    }
    return byPath;
  }
}

function isApiErrorBody(value: unknown): value is ApiErrorBody {
  const error = (value as ApiErrorBody | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

function parseRetryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : null;
}

/** `signal` cancels a call that is no longer wanted (a suggestion for text typed over); it then fails as `network_error`. */
export async function callApi<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, options: { signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      credentials: 'same-origin',
      signal: options.signal,
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiRequestError({ code: 'network_error', status: 0, message: '' });
  }
  if (response.status === 204) return undefined as T;
  const payload: unknown = await response.json().catch(() => undefined);
  if (response.ok) return payload as T;
  throw refusalOf(response.status, payload, response.headers.get('Retry-After'));
}

/**
 * The error a failed answer stands for: the API's refusal when its body is the error envelope,
 * else `unexpected_response`. Shared with requests made without `callApi` (uploads, which need
 * XMLHttpRequest for their progress).
 */
export function refusalOf(status: number, payload: unknown, retryAfter: string | null): ApiRequestError {
  if (!isApiErrorBody(payload)) return new ApiRequestError({ code: 'unexpected_response', status, message: '' });
  return new ApiRequestError({
    code: payload.error.code,
    status,
    message: payload.error.message,
    details: payload.error.details,
    retryAfterSeconds: parseRetryAfter(retryAfter),
  });
}
