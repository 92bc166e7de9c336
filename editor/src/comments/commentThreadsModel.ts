/**
 * What the comment panel, the page header and the editor's highlights read off the page's
 * thread list (which the client loads with `status=all`, so switching the filter needs no
 * request): the filter, the open count, the anchored threads and relative dates.
 */
import type { CommentAnchor, CommentStatusFilter, CommentThread, CommentView } from './commentViews.ts';

export type AnchorState = 'found' | 'deleted';

/** An anchored thread as the editor's highlights need it. */
export interface AnchoredThread {
  id: string;
  anchor: CommentAnchor;
  /** Resolved passages are found (to show them on request) but not highlighted. */
  resolved: boolean;
}

export function filterThreads(threads: readonly CommentThread[], filter: CommentStatusFilter): CommentThread[] {
  if (filter === 'all') return [...threads];
  return threads.filter((thread) => (thread.resolvedAt === null) === (filter === 'open'));
}

export function openThreadCount(threads: readonly CommentThread[]): number {
  return threads.filter((thread) => thread.resolvedAt === null).length;
}

export function anchoredThreads(threads: readonly CommentThread[]): AnchoredThread[] {
  return threads.flatMap((thread) => (thread.anchor ? [{ id: thread.id, anchor: thread.anchor, resolved: thread.resolvedAt !== null }] : []));
}

/**
 * The replies to show under a root: its own when it arrived expanded (open threads), else those
 * loaded on demand for a collapsed one, else none (the panel offers "Show N replies").
 */
export function shownReplies(thread: CommentThread, expanded: Readonly<Record<string, CommentView[]>>): CommentView[] | null {
  if (!thread.collapsed) return thread.replies;
  return expanded[thread.id] ?? null;
}
