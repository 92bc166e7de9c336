/**
 * The open comment threads a page's public document shows, read-only: author, date, the
 * stored sanitized body, replies. Read inside the public page's one statement
 * (publicDocumentData.ts) as a JSON column, so a page without comments costs one index probe
 * and no round trip. Resolved threads are settled discussion and stay out of the document.
 */
import type { Locale } from '../i18n/locale.ts';
import type { UserStatus } from '../models/index.ts';
import type { PublicComment, PublicCommentThread } from '../publicPages/publicDocumentModel.ts';
import { personDisplayName } from '../presenters/userPresenter.ts';

/** A column of the public page statement; `page` is the statement's page row. */
export const OPEN_THREADS_COLUMN = `
    (SELECT COALESCE(json_agg(json_build_object(
              'author', a.display_name, 'authorStatus', a.status, 'createdAt', r.created_at, 'edited', r.edited_at IS NOT NULL,
              'bodyHtml', r.body_html, 'quote', r.anchor->>'quote',
              'replies', (SELECT COALESCE(json_agg(json_build_object(
                                  'author', ra.display_name, 'authorStatus', ra.status, 'createdAt', c.created_at, 'edited', c.edited_at IS NOT NULL,
                                  'bodyHtml', c.body_html) ORDER BY c.created_at, c.id), '[]')
                            FROM comments c JOIN users ra ON ra.id = c.author_id WHERE c.parent_id = r.id))
            ORDER BY r.created_at, r.id), '[]')
       FROM comments r JOIN users a ON a.id = r.author_id
      WHERE r.page_id = page.id AND r.parent_id IS NULL AND r.resolved_at IS NULL)`;

interface CommentJson {
  author: string;
  authorStatus: UserStatus;
  createdAt: string;
  edited: boolean;
  bodyHtml: string;
}

export interface OpenThreadJson extends CommentJson {
  quote: string | null;
  replies: CommentJson[];
}

function publicComment(comment: CommentJson, locale: Locale): PublicComment {
  return {
    author: personDisplayName({ displayName: comment.author, status: comment.authorStatus }, locale),
    createdAt: new Date(comment.createdAt).toISOString(),
    edited: comment.edited,
    bodyHtml: comment.bodyHtml,
  };
}

/** The document's threads, names in the document's language ("Deleted user" for a deleted account). */
export function publicThreadsOf(threads: readonly OpenThreadJson[], locale: Locale): PublicCommentThread[] {
  return threads.map((thread) => ({
    ...publicComment(thread, locale),
    quote: thread.quote || null,
    replies: thread.replies.map((reply) => publicComment(reply, locale)),
  }));
}
