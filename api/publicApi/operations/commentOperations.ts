/**
 * Comments for the public REST API and MCP's `add_comment`: a page's threads, a new root or
 * reply, resolve and reopen. The rules are the internal routes' (api/routes/commentRoutes.ts),
 * through the same functions: reading follows page read, writing needs what the pond's
 * `commentPolicy` asks (`readers`: read the page; `editors`: write it), else 403.
 *
 * Resolve and reopen name a comment by id. A missing comment and one on a page the caller may
 * not read are the same 404, checked before anything else, so an id says nothing of what it
 * names; only then come the pond's opt-in and the token's restriction (403) and the policy.
 */
import { addComment, pageThreadViews, setThreadState } from '../../comments/commentActions.ts';
import { assertMayComment, authorizeComment, commentGateFor, type CommentGate } from '../../comments/commentAccess.ts';
import type { CommentRecord, ThreadStatus } from '../../comments/commentQueries.ts';
import type { Actor } from '../../auth/authenticateRequest.ts';
import { notFound } from '../../http/apiError.ts';
import { Pond } from '../../models/index.ts';
import { assertPondReachable, resolveApiPage, type ApiCall } from '../apiCall.ts';
import type { ApiComment, ApiCommentList } from '../views/commentViews.ts';

async function gateOfPage(call: ApiCall, pondSlug: string, pageSlug: string): Promise<CommentGate> {
  const { page, access } = await resolveApiPage(call, pondSlug, pageSlug, 'read');
  return commentGateFor(call.services.sequelize, page, access);
}

export interface ListApiCommentsQuery {
  /** Default `open`. */
  status?: ThreadStatus | undefined;
  /** A resolved thread to list with its replies. */
  expand?: string | null | undefined;
}

/** The page's threads, oldest first, each with its replies; resolved ones collapsed unless expanded. */
export async function listApiComments(call: ApiCall, pondSlug: string, pageSlug: string, query: ListApiCommentsQuery = {}): Promise<ApiCommentList> {
  const gate = await gateOfPage(call, pondSlug, pageSlug);
  const items = await pageThreadViews(call.services.sequelize, gate, call.actor, { status: query.status ?? 'open', expand: query.expand ?? null }, await call.locale());
  return { items, nextCursor: null, canComment: gate.canComment };
}

export interface CreateApiCommentInput {
  /** Markdown; trimmed, 1..10,000 characters (400 `comment_empty` / `comment_too_long`). */
  body: string;
  /** A root of the same page to reply to; absent or null starts a thread. */
  parentId?: string | null | undefined;
}

export async function createApiComment(call: ApiCall, pondSlug: string, pageSlug: string, input: CreateApiCommentInput): Promise<ApiComment> {
  const gate = await gateOfPage(call, pondSlug, pageSlug);
  const writer = assertMayComment(gate, call.actor);
  // The anchor is a position in the live document the app's editor takes; an API client has none.
  return addComment(call.services.sequelize, gate, writer, { body: input.body, parentId: input.parentId ?? null, anchor: null }, await call.locale());
}

/** The comment by id with the caller allowed to comment on its page: 404, then the pond's opt-in and restriction, then the policy. */
async function commentForWriting(call: ApiCall, commentId: string): Promise<{ comment: CommentRecord; gate: CommentGate; writer: Actor }> {
  const { sequelize } = call.services;
  const { comment, gate } = await authorizeComment(sequelize, call.subject, commentId);
  const pond = await Pond.findByPk(comment.pondId);
  if (!pond || pond.trashedAt) throw notFound();
  assertPondReachable(call, pond, gate.access);
  return { comment, gate, writer: assertMayComment(gate, call.actor) };
}

/** Resolves the thread the root `commentId` starts (400 `comment_not_root` for a reply); resolving a resolved one keeps who did it and when. */
export async function resolveApiComment(call: ApiCall, commentId: string): Promise<ApiComment> {
  return setThreadState(call.services.sequelize, await commentForWriting(call, commentId), true, await call.locale());
}

/** Reopens a resolved thread by its root (400 `comment_not_root` for a reply). */
export async function reopenApiComment(call: ApiCall, commentId: string): Promise<ApiComment> {
  return setThreadState(call.services.sequelize, await commentForWriting(call, commentId), false, await call.locale());
}
