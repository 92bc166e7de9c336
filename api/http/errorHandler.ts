/**
 * Maps every error to `{ "error": { "code", "message", "details" } }` with the message in the
 * caller's locale. Unknown errors become `internal_error` and are logged, never echoed.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { errorMessage } from '../i18n/locale.ts';
import type { Logger } from '../logger.ts';
import { ApiError } from './apiError.ts';
import { resolveRequestLocale } from './requestLocale.ts';

/** Errors raised by Express' own body parser carry a `type`. */
function fromBodyParser(error: unknown): ApiError | null {
  if (typeof error !== 'object' || error === null || !('type' in error)) return null;
  switch ((error as { type: unknown }).type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_request', 400, { reason: 'malformed_json' });
    case 'entity.too.large':
      return new ApiError('payload_too_large', 413, { limitBytes: (error as { limit?: number }).limit ?? null });
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', 415);
    default:
      return null;
  }
}

/**
 * Client errors raised by Express itself: a malformed percent-encoding in a path parameter
 * (a URIError the router marks 400) and http-errors it exposes as 4xx. The caller's fault,
 * never a 500. Other libraries' errors that merely carry a `status` (e.g. a remote server's
 * answer) stay internal.
 */
function fromExpressClientError(error: unknown): ApiError | null {
  if (!(error instanceof Error)) return null;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  if (!(error instanceof URIError) && expose !== true) return null;
  switch (status) {
    case 404:
      return new ApiError('not_found', 404);
    case 413:
      return new ApiError('payload_too_large', 413);
    case 415:
      return new ApiError('unsupported_media_type', 415);
    default:
      return new ApiError('invalid_request', 400);
  }
}

async function sendApiError(req: Request, res: Response, error: ApiError): Promise<void> {
  const locale = await resolveRequestLocale(req);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json({ error: { code: error.code, message: errorMessage(error.code, locale, error.messageVariant), details: error.details } });
}

export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let apiError = error instanceof ApiError ? error : (fromBodyParser(error) ?? fromExpressClientError(error) ?? uniqueViolationError(error));
    if (!apiError) {
      logger.error({ err: error, reqId: req.id }, 'unhandled error');
      apiError = new ApiError('internal_error', 500);
    }
    sendApiError(req, res, apiError).catch((renderError: unknown) => {
      logger.error({ err: renderError }, 'failed to render an error');
      if (!res.headersSent) res.status(500).json({ error: { code: 'internal_error', message: errorMessage('internal_error', 'en'), details: {} } });
    });
  };
}
