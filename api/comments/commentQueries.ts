/**
 * Reading comments: one comment by id, and a page's threads (roots oldest first, each with its
 * replies oldest first). Threads are one level deep: a reply's `parent_id` is its root.
 *
 * A resolved thread is collapsed unless asked for: its root and how many replies it has,
 * without the replies themselves, so a page with a long history of settled discussions lists
 * cheaply. Authorization is the caller's business (commentAccess.ts); nothing here checks it.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { UserStatus } from '../models/index.ts';
import type { CommentAnchor } from './commentContent.ts';

export interface CommentPerson {
  id: string;
  displayName: string;
  status: UserStatus;
}

export interface CommentRecord {
  id: string;
  pondId: string;
  pageId: string;
  /** The thread's root for a reply, null for a root. */
  parentId: string | null;
  author: CommentPerson;
  body: string;
  bodyHtml: string;
  anchor: CommentAnchor | null;
  resolvedAt: Date | null;
  resolvedBy: CommentPerson | null;
  editedAt: Date | null;
  createdAt: Date;
  /** A root's replies; 0 for a reply. */
  replyCount: number;
}

export interface ThreadRecord extends CommentRecord {
  /** Empty while the thread is collapsed. */
  replies: CommentRecord[];
  collapsed: boolean;
}

export type ThreadStatus = 'open' | 'resolved' | 'all';

interface CommentRow {
  id: string;
  pond_id: string;
  page_id: string;
  parent_id: string | null;
  author_id: string;
  author_name: string;
  author_status: UserStatus;
  body: string;
  body_html: string;
  anchor: CommentAnchor | null;
  resolved_at: Date | null;
  resolver_id: string | null;
  resolver_name: string | null;
  resolver_status: UserStatus | null;
  edited_at: Date | null;
  created_at: Date;
  reply_count: number;
}

const SELECT_COMMENTS = `
  SELECT c.id, c.pond_id, c.page_id, c.parent_id, c.body, c.body_html, c.anchor, c.resolved_at, c.edited_at, c.created_at,
         a.id AS author_id, a.display_name AS author_name, a.status AS author_status,
         r.id AS resolver_id, r.display_name AS resolver_name, r.status AS resolver_status,
         CASE WHEN c.parent_id IS NULL THEN (SELECT count(*)::int FROM comments x WHERE x.parent_id = c.id) ELSE 0 END AS reply_count
    FROM comments c
    JOIN users a ON a.id = c.author_id
    LEFT JOIN users r ON r.id = c.resolved_by`;

const STATUS_CONDITION: Record<ThreadStatus, string> = {
  open: 'AND c.resolved_at IS NULL',
  resolved: 'AND c.resolved_at IS NOT NULL',
  all: '',
};

function recordOf(row: CommentRow): CommentRecord {
  return {
    id: row.id,
    pondId: row.pond_id,
    pageId: row.page_id,
    parentId: row.parent_id,
    author: { id: row.author_id, displayName: row.author_name, status: row.author_status },
    body: row.body,
    bodyHtml: row.body_html,
    anchor: row.anchor,
    resolvedAt: row.resolved_at,
    resolvedBy: row.resolver_id ? { id: row.resolver_id, displayName: row.resolver_name ?? '', status: row.resolver_status ?? 'ACTIVE' } : null,
    editedAt: row.edited_at,
    createdAt: row.created_at,
    replyCount: row.reply_count,
  };
}

/** One comment, or null (a malformed id is the caller's 404 too). */
export async function loadComment(sequelize: Sequelize, commentId: string, transaction?: Transaction): Promise<CommentRecord | null> {
  const [row] = await sequelize.query<CommentRow>(`${SELECT_COMMENTS} WHERE c.id = :commentId`, { replacements: { commentId }, type: QueryTypes.SELECT, transaction });
  return row ? recordOf(row) : null;
}

export interface ThreadQuery {
  status: ThreadStatus;
  /** A resolved root whose replies come along anyway. */
  expand?: string | null;
}

/** The page's threads with the given state, oldest first; resolved ones collapsed unless expanded. */
export async function listThreads(sequelize: Sequelize, pageId: string, query: ThreadQuery): Promise<ThreadRecord[]> {
  const roots = await sequelize.query<CommentRow>(`${SELECT_COMMENTS} WHERE c.page_id = :pageId AND c.parent_id IS NULL ${STATUS_CONDITION[query.status]} ORDER BY c.created_at, c.id`, {
    replacements: { pageId },
    type: QueryTypes.SELECT,
  });
  const threads: ThreadRecord[] = roots.map((row) => {
    const collapsed = row.resolved_at !== null && row.id !== query.expand;
    return { ...recordOf(row), replies: [], collapsed };
  });
  const withReplies = threads.filter((thread) => !thread.collapsed && thread.replyCount > 0);
  if (withReplies.length === 0) return threads;
  const byId = new Map(withReplies.map((thread) => [thread.id, thread]));
  const replies = await sequelize.query<CommentRow>(`${SELECT_COMMENTS} WHERE c.parent_id IN (:rootIds) ORDER BY c.created_at, c.id`, {
    replacements: { rootIds: [...byId.keys()] },
    type: QueryTypes.SELECT,
  });
  for (const reply of replies) byId.get(reply.parent_id!)?.replies.push(recordOf(reply));
  return threads;
}
