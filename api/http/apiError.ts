/**
 * The one typed error every route throws; `errorHandler` renders it as
 * `{ "error": { "code", "message", "details" } }` with a localized message (the code's, or a
 * more specific one for the same code: `withMessageVariant`).
 */
import { ERROR_STATUS, MESSAGE_VARIANTS, type ErrorCode, type MessageVariant } from './errorCodes.ts';

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;
  /** A text to send instead of the code's own (made by `withMessageVariant`, which keeps code and variant together). */
  readonly messageVariant: MessageVariant | undefined;

  constructor(code: ErrorCode, status?: number, details: ErrorDetails = {}, headers: Record<string, string> = {}, messageVariant?: MessageVariant) {
    super(code);
    this.code = code;
    this.status = status ?? ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
    this.messageVariant = messageVariant;
  }
}

/** An error of the variant's code and status whose message is the variant's text (MESSAGE_VARIANTS). */
export function withMessageVariant(variant: MessageVariant, details: ErrorDetails = {}): ApiError {
  return new ApiError(MESSAGE_VARIANTS[variant], undefined, details, {}, variant);
}

/** A read the caller may not make looks exactly like a missing resource. */
export const notFound = (details: ErrorDetails = {}) => new ApiError('not_found', 404, details);
export const unauthenticated = () => new ApiError('unauthenticated', 401);
/** A token route called without `Authorization: Bearer …` (RFC 6750: the challenge names the scheme). */
export const bearerRequired = () => new ApiError('unauthenticated', 401, {}, { 'WWW-Authenticate': 'Bearer realm="dorfteich"' });
export const forbidden = (details: ErrorDetails = {}) => new ApiError('forbidden', 403, details);
