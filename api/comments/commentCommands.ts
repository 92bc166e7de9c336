/**
 * Comment writes, each one transaction. The route has authorized the caller (commentAccess.ts);
 * what can change between that check and the write is decided again here, under a row lock:
 * whether the comment (or a reply's root) still exists, and whether a root has replies.
 *
 * Every write queues the page's public document for regeneration (it shows the open threads)
 * in the same transaction. A new comment also notifies the watchers of the page and its pond
 * and, when the author's preference says so, makes the author a watcher of the page.
 *
 * Mentions (`[@Ann](dt-mention:id)` in a body) notify the mentioned as `mentioned`, in the
 * write's transaction: a new comment everyone it mentions, an edit only those it mentions
 * now and did not before (an edit that keeps a mention does not repeat it). The fan-out
 * leaves out the author and whoever may not read the page.
 *
 * Locks: the page row FOR KEY SHARE (a purge waits; a comment never lands on a page that is
 * gone), a reply's root FOR SHARE (a delete of the thread waits, or the reply sees it gone),
 * a comment to edit, delete or resolve FOR UPDATE. A reply's foreign key takes a key-share lock
 * on its root, so a delete, which locks the root FOR UPDATE first, sees every committed reply
 * when it counts them: an author's root never takes a reply it did not see with it.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ApiError, notFound } from '../http/apiError.ts';
import { autoWatchPage, notifyPageEvent } from '../notifications/notificationFanOut.ts';
import { queuePageChanges } from '../publicPages/publicDocumentQueue.ts';
import { commentExcerpt, mentionedUserIds, prepareCommentBody, type CommentAnchor } from './commentContent.ts';

export interface CreateCommentInput {
  page: { id: string; pondId: string };
  authorId: string;
  /** As the request gave it: trimmed and checked here. */
  body: string;
  parentId: string | null;
  anchor: CommentAnchor | null;
}

interface LockedComment {
  id: string;
  pond_id: string;
  page_id: string;
  parent_id: string | null;
  author_id: string;
  body: string;
}

async function lockComment(sequelize: Sequelize, commentId: string, transaction: Transaction, mode: 'UPDATE' | 'SHARE'): Promise<LockedComment | null> {
  const [row] = await sequelize.query<LockedComment>(`SELECT id, pond_id, page_id, parent_id, author_id, body FROM comments WHERE id = :commentId FOR ${mode}`, {
    replacements: { commentId },
    type: QueryTypes.SELECT,
    transaction,
  });
  return row ?? null;
}

/** `mentioned` for `recipientIds` (the fan-out drops the author and those who may not read the page). */
async function notifyMentioned(sequelize: Sequelize, mention: { pageId: string; authorId: string; commentId: string; body: string; recipientIds: string[] }, transaction: Transaction): Promise<void> {
  if (mention.recipientIds.length === 0) return;
  await notifyPageEvent(
    sequelize,
    { type: 'mentioned', pageId: mention.pageId, actorIds: [mention.authorId], recipientIds: mention.recipientIds, commentId: mention.commentId, commentExcerpt: commentExcerpt(mention.body) },
    transaction,
  );
}

async function queueDocumentOf(comment: { pond_id: string; page_id: string }, transaction: Transaction): Promise<void> {
  await queuePageChanges(transaction, comment.pond_id, [comment.page_id], { treeChanged: false });
}

/** A new root or reply; returns its id. 400 for a bad body or shape, 404 when the page or the root is gone. */
export async function createComment(sequelize: Sequelize, input: CreateCommentInput): Promise<string> {
  const { body, bodyHtml } = prepareCommentBody(input.body);
  if (input.parentId && input.anchor) throw new ApiError('comment_anchor_on_reply');
  return sequelize.transaction(async (transaction) => {
    const [page] = await sequelize.query<{ trashed_at: Date | null }>(`SELECT trashed_at FROM pages WHERE id = :pageId AND pond_id = :pondId FOR KEY SHARE`, {
      replacements: { pageId: input.page.id, pondId: input.page.pondId },
      type: QueryTypes.SELECT,
      transaction,
    });
    if (!page) throw notFound();
    if (page.trashed_at) throw new ApiError('page_trashed', 404, { trashedAt: page.trashed_at.toISOString() });
    if (input.parentId) {
      const parent = await lockComment(sequelize, input.parentId, transaction, 'SHARE');
      // A root of another page is as unknown here as a missing one.
      if (!parent || parent.page_id !== input.page.id) throw notFound();
      if (parent.parent_id !== null) throw new ApiError('comment_reply_to_reply', undefined, { rootId: parent.parent_id });
    }
    const [created] = await sequelize.query<{ id: string }>(
      `INSERT INTO comments (pond_id, page_id, parent_id, author_id, body, body_html, anchor)
       VALUES (:pondId, :pageId, :parentId, :authorId, :body, :bodyHtml, CAST(:anchor AS jsonb)) RETURNING id`,
      {
        replacements: {
          pondId: input.page.pondId,
          pageId: input.page.id,
          parentId: input.parentId,
          authorId: input.authorId,
          body,
          bodyHtml,
          anchor: input.anchor ? JSON.stringify(input.anchor) : null,
        },
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    const commentId = created!.id;
    await notifyPageEvent(sequelize, { type: 'comment', pageId: input.page.id, actorIds: [input.authorId], commentId, commentExcerpt: commentExcerpt(body) }, transaction);
    await notifyMentioned(sequelize, { pageId: input.page.id, authorId: input.authorId, commentId, body, recipientIds: mentionedUserIds(body) }, transaction);
    await autoWatchPage(sequelize, { userId: input.authorId, pageId: input.page.id, pondId: input.page.pondId, preference: 'onComment' }, transaction);
    await queueDocumentOf({ pond_id: input.page.pondId, page_id: input.page.id }, transaction);
    return commentId;
  });
}

/** The author's new body; marks the comment edited. */
export async function editComment(sequelize: Sequelize, input: { commentId: string; userId: string; body: string }): Promise<void> {
  const { body, bodyHtml } = prepareCommentBody(input.body);
  await sequelize.transaction(async (transaction) => {
    const comment = await lockComment(sequelize, input.commentId, transaction, 'UPDATE');
    if (!comment) throw notFound();
    if (comment.author_id !== input.userId) throw new ApiError('comment_not_author');
    await sequelize.query(`UPDATE comments SET body = :body, body_html = :bodyHtml, edited_at = now() WHERE id = :commentId`, {
      replacements: { commentId: comment.id, body, bodyHtml },
      transaction,
    });
    const before = new Set(mentionedUserIds(comment.body));
    const added = mentionedUserIds(body).filter((id) => !before.has(id));
    await notifyMentioned(sequelize, { pageId: comment.page_id, authorId: comment.author_id, commentId: comment.id, body, recipientIds: added }, transaction);
    await queueDocumentOf(comment, transaction);
  });
}

/**
 * Deletes a comment, a root with its replies. `refusal` decides from the locked row and the
 * replies counted under that lock (commentAccess.ts `deleteRefusal`).
 */
export async function deleteComment(
  sequelize: Sequelize,
  input: { commentId: string; refusal: (comment: { authorId: string; parentId: string | null }, replyCount: number) => ApiError | null },
): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    const comment = await lockComment(sequelize, input.commentId, transaction, 'UPDATE');
    if (!comment) throw notFound();
    let replyCount = 0;
    if (comment.parent_id === null) {
      const [counted] = await sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM comments WHERE parent_id = :commentId`, {
        replacements: { commentId: comment.id },
        type: QueryTypes.SELECT,
        transaction,
      });
      replyCount = counted?.count ?? 0;
    }
    const refusal = input.refusal({ authorId: comment.author_id, parentId: comment.parent_id }, replyCount);
    if (refusal) throw refusal;
    // The replies go by the foreign key's ON DELETE CASCADE.
    await sequelize.query(`DELETE FROM comments WHERE id = :commentId`, { replacements: { commentId: comment.id }, transaction });
    await queueDocumentOf(comment, transaction);
  });
}

/**
 * Resolves or reopens a thread (the caller has checked it is a root). Idempotent: resolving a
 * resolved thread keeps who resolved it and when.
 */
export async function setThreadResolved(sequelize: Sequelize, input: { rootId: string; userId: string; resolved: boolean }): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    const [changed] = await sequelize.query<{ pond_id: string; page_id: string }>(
      input.resolved
        ? `UPDATE comments SET resolved_at = now(), resolved_by = :userId WHERE id = :rootId AND parent_id IS NULL AND resolved_at IS NULL RETURNING pond_id, page_id`
        : `UPDATE comments SET resolved_at = NULL, resolved_by = NULL WHERE id = :rootId AND parent_id IS NULL AND resolved_at IS NOT NULL RETURNING pond_id, page_id`,
      { replacements: { rootId: input.rootId, userId: input.userId }, type: QueryTypes.SELECT, transaction },
    );
    if (changed) await queueDocumentOf(changed, transaction);
  });
}
