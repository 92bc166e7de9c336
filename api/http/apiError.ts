/**
 * The one typed error every route throws; `errorHandler` renders it as
 * `{ "error": { "code", "message", "details" } }` with a localized message.
 */
import { ERROR_STATUS, type ErrorCode } from './errorCodes.ts';

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, status?: number, details: ErrorDetails = {}, headers: Record<string, string> = {}) {
    super(code);
    this.code = code;
    this.status = status ?? ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }
}

/** A read the caller may not make looks exactly like a missing resource. */
export const notFound = (details: ErrorDetails = {}) => new ApiError('not_found', 404, details);
export const unauthenticated = () => new ApiError('unauthenticated', 401);
/** A token route called without `Authorization: Bearer …` (RFC 6750: the challenge names the scheme). */
export const bearerRequired = () => new ApiError('unauthenticated', 401, {}, { 'WWW-Authenticate': 'Bearer realm="dorfteich"' });
export const forbidden = (details: ErrorDetails = {}) => new ApiError('forbidden', 403, details);
