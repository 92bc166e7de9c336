/**
 * The JSON views of the comment routes (`/api/v1/pages/:id/comments`, `/comments/:id…`): the
 * API's comment presenter declares them, the app imports them as types only, so the two cannot
 * drift. The anchor is two Yjs relative positions (base64 of `Y.encodeRelativePosition`) into
 * the page's `default` fragment plus the text selected when the comment was written.
 */
import type { CommentAnchor } from '../../../api/comments/commentContent.ts';
import type { CommentListView, CommentView, ThreadView } from '../../../api/comments/commentPresenter.ts';

export type { CommentAnchor, CommentListView, CommentView };

/** A root with its replies; a resolved thread arrives collapsed (`replies: []`) unless expanded. */
export type CommentThread = ThreadView;

export type CommentStatusFilter = 'open' | 'resolved' | 'all';
