/**
 * HTML form bodies, for the few routes a page outside the app posts to (the unsubscribe
 * confirmation) or a mail provider calls (RFC 8058 one-click unsubscribe, which posts
 * `List-Unsubscribe=One-Click` as `application/x-www-form-urlencoded` or `multipart/form-data`).
 * The route table reads them only for routes that say so (`formBody`), and the fields then go
 * through the route's `body` schema like any JSON body.
 */
import type { Request } from 'express';
import { ApiError } from './apiError.ts';

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];
/** Forms posted here carry a token and a button: a few hundred bytes. */
const MAX_FORM_BYTES = 16 * 1024;

export function isFormRequest(req: Request): boolean {
  return typeof req.is(FORM_TYPES) === 'string';
}

/** The form's text fields (the first value of each; files are ignored). 413 past the limit, 400 for a body that is no form. */
export async function readFormBody(req: Request): Promise<Record<string, string>> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_FORM_BYTES) throw new ApiError('payload_too_large', 413, { maxBytes: MAX_FORM_BYTES });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new ApiError('payload_too_large', 413, { maxBytes: MAX_FORM_BYTES });
    chunks.push(chunk);
  }
  let form: FormData;
  try {
    // The platform's own parser (undici) reads both encodings, boundaries and all.
    form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  } catch {
    throw new ApiError('invalid_request', 400, { reason: 'form_unreadable' });
  }
  const fields = new Map<string, string>();
  for (const [name, value] of form) if (typeof value === 'string' && !fields.has(name)) fields.set(name, value);
  // fromEntries defines each field as an own property, so a field named `__proto__` stays a field.
  return Object.fromEntries(fields);
}
