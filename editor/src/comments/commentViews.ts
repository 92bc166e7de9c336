/**
 * The JSON views of the comment routes (`/api/v1/pages/:id/comments`, `/comments/:id…`) as the
 * issue-19 contract states them; the API's comment presenter answers these shapes.
 */

/**
 * Where a root comment sits in the document: Yjs relative positions (base64 of
 * `Y.encodeRelativePosition`) into the page's `default` fragment, so the range follows the text
 * as others edit, and the text selected when the comment was written (≤ 500 characters).
 */
export interface CommentAnchor {
  from: string;
  to: string;
  quote: string;
}

export interface CommentView {
  id: string;
  pageId: string;
  /** The thread's root; null for a root. */
  parentId: string | null;
  author: { id: string; displayName: string; deleted: boolean };
  /** Markdown as written. */
  body: string;
  /** The body rendered through the API's sanitizing pipeline: safe to set as HTML. */
  bodyHtml: string;
  anchor: CommentAnchor | null;
  resolvedAt: string | null;
  resolvedBy: { id: string; displayName: string } | null;
  editedAt: string | null;
  createdAt: string;
  canEdit: boolean;
  canDelete: boolean;
}

/** A root with its replies; a resolved thread arrives collapsed (`replies: []`) unless expanded. */
export interface CommentThread extends CommentView {
  replies: CommentView[];
  replyCount: number;
  collapsed: boolean;
}

export type CommentStatusFilter = 'open' | 'resolved' | 'all';

/** `GET /pages/:id/comments`. */
export interface CommentListView {
  items: CommentThread[];
  canComment: boolean;
  canResolve: boolean;
}
