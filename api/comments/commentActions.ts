/**
 * What a comment route does once it has authorized the caller (commentAccess.ts), shared by the
 * internal routes (api/routes/commentRoutes.ts) and the public REST API and MCP
 * (api/publicApi/operations/commentOperations.ts): the two find the page and the caller their
 * own way (by id and session, by slugs and token), and from there the rules are the same.
 */
import type { Sequelize } from 'sequelize';
import type { Actor } from '../auth/authenticateRequest.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { commentPermissions, type CommentGate } from './commentAccess.ts';
import { createComment, setThreadResolved } from './commentCommands.ts';
import type { CommentAnchor } from './commentContent.ts';
import { presentComment, presentThread, type CommentView, type ThreadView } from './commentPresenter.ts';
import { listThreads, loadComment, type CommentRecord, type ThreadQuery } from './commentQueries.ts';

/** The comment as it is now (after a write), as `actor` sees it. */
export async function currentCommentView(sequelize: Sequelize, gate: CommentGate, actor: Actor | null, commentId: string, locale: Locale): Promise<CommentView> {
  const comment = await loadComment(sequelize, commentId);
  if (!comment) throw notFound();
  return presentComment(comment, locale, (record) => commentPermissions(gate, record, actor));
}

/** The threads of the gate's page, as `actor` sees them. */
export async function pageThreadViews(sequelize: Sequelize, gate: CommentGate, actor: Actor | null, query: ThreadQuery, locale: Locale): Promise<ThreadView[]> {
  const threads = await listThreads(sequelize, gate.page.id, query);
  return threads.map((thread) => presentThread(thread, locale, (record) => commentPermissions(gate, record, actor)));
}

export interface NewComment {
  body: string;
  parentId: string | null;
  anchor: CommentAnchor | null;
}

/** A new root or reply by `writer` (who may comment, `assertMayComment`) on the gate's page; its view. */
export async function addComment(sequelize: Sequelize, gate: CommentGate, writer: Actor, input: NewComment, locale: Locale): Promise<CommentView> {
  const id = await createComment(sequelize, { page: gate.page, authorId: writer.user.id, ...input });
  return currentCommentView(sequelize, gate, writer, id, locale);
}

/** Resolves or reopens the thread `comment` starts (400 `comment_not_root` for a reply); its root's view after. */
export async function setThreadState(sequelize: Sequelize, target: { comment: CommentRecord; gate: CommentGate; writer: Actor }, resolved: boolean, locale: Locale): Promise<CommentView> {
  const { comment, gate, writer } = target;
  if (comment.parentId !== null) throw new ApiError('comment_not_root', undefined, { rootId: comment.parentId });
  await setThreadResolved(sequelize, { rootId: comment.id, userId: writer.user.id, resolved });
  return currentCommentView(sequelize, gate, writer, comment.id, locale);
}
