/**
 * The error answers of the OpenAPI document: one shared response per status, each the error
 * envelope (`Error`), worded with the codes a client can meet there, so a client can tell
 * "switched off" from "not yours" from "try later" without reading the server.
 */
import type { JsonSchema } from './openApiSchemas.ts';

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; required: boolean; schema: JsonSchema }>;
  content?: Record<string, { schema: JsonSchema }>;
}

const ERRORS: Record<number, { name: string; description: string; headers?: OpenApiResponse['headers'] }> = {
  400: { name: 'BadRequest', description: 'The request is malformed or a field is invalid: `validation_failed` names each field in `details.fields`.' },
  401: {
    name: 'Unauthorized',
    description: 'No valid token: `unauthenticated` (no `Authorization: Bearer` header), `access_token_invalid`, `access_token_expired` or `access_token_revoked`.',
    headers: { 'WWW-Authenticate': { description: 'The bearer challenge (RFC 6750)', required: true, schema: { type: 'string' } } },
  },
  403: {
    name: 'Forbidden',
    description:
      "Refused: `scope_required` (a read token on a write) or `forbidden` (the token owner's permissions on something the owner can read).",
  },
  404: {
    name: 'NotFound',
    description:
      "Not found: `api_disabled` (the API is switched off on this instance) or `not_found` (it does not exist, or the token's owner cannot read it). For a pond named by slug, `not_found` also covers a pond that has not switched the API on and one outside the token's pond restriction: one answer for all, with `details.pond` the slug sent and a message naming each possibility.",
  },
  409: { name: 'Conflict', description: 'In conflict with the current state, e.g. `slug_taken` or `page_cycle`.' },
  410: { name: 'Gone', description: 'No longer there.' },
  413: { name: 'PayloadTooLarge', description: 'The body is too large (`payload_too_large`).' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not JSON (`unsupported_media_type`).' },
  422: { name: 'UnprocessableContent', description: 'The request is well-formed but cannot be carried out.' },
  429: {
    name: 'TooManyRequests',
    description: "The token's requests per minute are used up (`rate_limited`).",
    headers: { 'Retry-After': { description: 'Seconds until the next request is accepted', required: true, schema: { type: 'integer', minimum: 0 } } },
  },
};

/** The component name of the error answer with `status` (`404` → `NotFound`). */
export function errorResponseName(status: number): string {
  return ERRORS[status]?.name ?? `Error${status}`;
}

/** `components.responses` for the statuses used, each with the envelope `errorSchema`. */
export function errorResponsesOf(statuses: number[], errorSchema: JsonSchema): Record<string, OpenApiResponse> {
  const responses: Record<string, OpenApiResponse> = {};
  for (const status of statuses) {
    const known = ERRORS[status];
    responses[errorResponseName(status)] = {
      description: known?.description ?? `Error (${status})`,
      ...(known?.headers ? { headers: known.headers } : {}),
      content: { 'application/json': { schema: errorSchema } },
    };
  }
  return responses;
}
