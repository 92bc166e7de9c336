/**
 * What a comment holds: its Markdown body (trimmed, not empty, at most COMMENT_MAX_LENGTH
 * characters), rendered once through the content pipeline's comment renderer (a small
 * allowlist; typed markup stays visible text), and the optional anchor of a thread's root.
 *
 * The anchor is the client's Yjs relative-position range on the page's `default` fragment,
 * each end base64 of `Y.encodeRelativePosition(...)`, plus the passage's text at creation, so
 * a thread whose passage was deleted can still say what it was about. The server keeps it
 * opaque and checks only its shape and size.
 *
 * A body mentions people as pages do, with the page dialect's link `[@Ann](dt-mention:<userId>)`
 * (the comment renderer turns it into the same chip); `mentionedUserIds` reads them back.
 */
import { z } from 'zod';
import { extract, markdownToDocument, renderCommentHtml } from '../../content-pipeline/index.ts';
import { ApiError } from '../http/apiError.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { storableString } from '../http/fieldSchemas.ts';

/** Characters (UTF-16 code units, as a browser's `value.length` counts them) after trimming. */
export const COMMENT_MAX_LENGTH = 10_000;
/** A relative position of Yjs encodes to a few dozen bytes; this leaves room for long client ids. */
export const ANCHOR_POSITION_MAX_LENGTH = 256;
export const ANCHOR_QUOTE_MAX_LENGTH = 500;
/** The plain-text excerpt a notification carries (NotificationPayload.commentExcerpt). */
export const COMMENT_EXCERPT_LENGTH = 140;

export interface CommentAnchor {
  from: string;
  to: string;
  quote: string;
}

const base64Position = z
  .string()
  .min(1)
  .max(ANCHOR_POSITION_MAX_LENGTH)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/);

export const commentAnchorSchema: z.ZodType<CommentAnchor> = z.strictObject({
  from: base64Position,
  to: base64Position,
  quote: storableString().max(ANCHOR_QUOTE_MAX_LENGTH),
});

/** A body as the request gave it; the length rules answer their own codes (not `validation_failed`). */
export const commentBodyField = storableString();

export interface PreparedBody {
  body: string;
  bodyHtml: string;
}

/** The trimmed body and its sanitized HTML; 400 `comment_empty` / `comment_too_long`. */
export function prepareCommentBody(raw: string): PreparedBody {
  const body = raw.trim();
  if (body === '') throw new ApiError('comment_empty');
  if (body.length > COMMENT_MAX_LENGTH) throw new ApiError('comment_too_long', undefined, { maxLength: COMMENT_MAX_LENGTH, length: body.length });
  return { body, bodyHtml: renderCommentHtml(body) };
}

/** The body as one line of plain text, cut at a word boundary: what a notification quotes. */
export function commentExcerpt(body: string, limit = COMMENT_EXCERPT_LENGTH): string {
  const flat = extract(markdownToDocument(body)).text.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  // Never half a surrogate pair: the payload is jsonb, which refuses a lone one.
  const cut = flat.slice(0, limit - 1).replace(/[\uD800-\uDBFF]$/, '');
  const space = cut.lastIndexOf(' ');
  return `${(space > limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The distinct users a body mentions, lowercased, in the order they appear. */
export function mentionedUserIds(body: string): string[] {
  return [...new Set(extract(markdownToDocument(body)).mentions.filter(isUuid).map((id) => id.toLowerCase()))];
}
