/**
 * The JSON views of comments. Names are resolved on the server: a deleted account shows as a
 * localized "Deleted user" (its scrubbed placeholder never leaves). `bodyHtml` is the stored,
 * sanitized render of the Markdown `body`; markup typed into a body arrives as escaped text.
 *
 * The public view (`GET /public/:pondSlug/:pageSlug/comments`) names people by display name
 * only and carries no permission flags.
 */
import type { Locale } from '../i18n/locale.ts';
import { personDisplayName } from '../presenters/userPresenter.ts';
import type { CommentAnchor } from './commentContent.ts';
import type { CommentPerson, CommentRecord, ThreadRecord } from './commentQueries.ts';

export interface CommentView {
  id: string;
  pageId: string;
  parentId: string | null;
  author: { id: string; displayName: string; deleted: boolean };
  body: string;
  bodyHtml: string;
  anchor: CommentAnchor | null;
  resolvedAt: string | null;
  resolvedBy: { id: string; displayName: string } | null;
  editedAt: string | null;
  createdAt: string;
  canEdit: boolean;
  canDelete: boolean;
}

export type ThreadView = CommentView & { replies: CommentView[]; replyCount: number; collapsed: boolean };

/** `GET /pages/:id/comments`. */
export interface CommentListView {
  items: ThreadView[];
  canComment: boolean;
  /** Resolve and reopen are for anyone who may comment. */
  canResolve: boolean;
}

type PublicPerson = { displayName: string };

export type PublicCommentView = Omit<CommentView, 'author' | 'resolvedBy' | 'canEdit' | 'canDelete'> & { author: PublicPerson; resolvedBy: PublicPerson | null };
export type PublicThreadView = PublicCommentView & { replies: PublicCommentView[]; replyCount: number; collapsed: boolean };

export type CommentPermissions = (comment: CommentRecord) => { canEdit: boolean; canDelete: boolean };

function nameOf(person: CommentPerson, locale: Locale): string {
  return personDisplayName(person, locale);
}

function publicFields(comment: CommentRecord, locale: Locale): PublicCommentView {
  return {
    id: comment.id,
    pageId: comment.pageId,
    parentId: comment.parentId,
    author: { displayName: nameOf(comment.author, locale) },
    body: comment.body,
    bodyHtml: comment.bodyHtml,
    anchor: comment.anchor,
    resolvedAt: comment.resolvedAt?.toISOString() ?? null,
    resolvedBy: comment.resolvedBy ? { displayName: nameOf(comment.resolvedBy, locale) } : null,
    editedAt: comment.editedAt?.toISOString() ?? null,
    createdAt: comment.createdAt.toISOString(),
  };
}

export function presentComment(comment: CommentRecord, locale: Locale, permissions: CommentPermissions): CommentView {
  return {
    ...publicFields(comment, locale),
    author: { id: comment.author.id, displayName: nameOf(comment.author, locale), deleted: comment.author.status === 'deleted' },
    resolvedBy: comment.resolvedBy ? { id: comment.resolvedBy.id, displayName: nameOf(comment.resolvedBy, locale) } : null,
    ...permissions(comment),
  };
}

export function presentThread(thread: ThreadRecord, locale: Locale, permissions: CommentPermissions): ThreadView {
  return {
    ...presentComment(thread, locale, permissions),
    replies: thread.replies.map((reply) => presentComment(reply, locale, permissions)),
    replyCount: thread.replyCount,
    collapsed: thread.collapsed,
  };
}

export function presentPublicThread(thread: ThreadRecord, locale: Locale): PublicThreadView {
  return {
    ...publicFields(thread, locale),
    replies: thread.replies.map((reply) => publicFields(reply, locale)),
    replyCount: thread.replyCount,
    collapsed: thread.collapsed,
  };
}
