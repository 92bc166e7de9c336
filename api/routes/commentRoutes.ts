/**
 * Comments (spec: Comment, Comment rules, Comment thread states; docs/comments.md): a page's
 * threads, new roots and replies, edit, delete, resolve and reopen, and the read-only threads
 * of a public page.
 *
 * `/comments/:id` names a comment, not a page: the access rule cannot load the page, so those
 * routes use the `public` rule and authorize the comment's page in the handler with the same
 * policy call (a missing comment and one on an unreadable page both answer 404; an anonymous
 * caller who can read the page 401; a signed-in one the pond's `commentPolicy` leaves out 403).
 */
import { z } from 'zod';
import { addComment, currentCommentView, pageThreadViews, setThreadState } from '../comments/commentActions.ts';
import { assertMayComment, authorizeComment, commentGateFor, deleteRefusal, isAuthor } from '../comments/commentAccess.ts';
import { deleteComment, editComment } from '../comments/commentCommands.ts';
import { commentAnchorSchema, commentBodyField } from '../comments/commentContent.ts';
import { presentPublicThread, type CommentListView } from '../comments/commentPresenter.ts';
import { listThreads } from '../comments/commentQueries.ts';
import type { Actor } from '../auth/authenticateRequest.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type RouteContext } from '../http/routeTable.ts';
import { authorizePage } from '../policies/accessPolicy.ts';
import { ANONYMOUS } from '../policies/grantResolution.ts';
import { slugSchema } from '../ponds/slugs.ts';
import { findPageBySlugs } from '../publicPages/publicDocumentData.ts';

// Postgres answers ids in lower case; compare them that way. Shared with the public REST API.
export const commentId = z.uuid().transform((id) => id.toLowerCase());

export const threadStatusField = z.enum(['open', 'resolved', 'all']).default('open');

const listCommentsQuery = z.object({
  status: threadStatusField,
  /** A resolved thread to list with its replies. */
  expand: commentId.optional(),
});

const createCommentBody = z.object({
  body: commentBodyField,
  parentId: commentId.nullable().optional(),
  anchor: commentAnchorSchema.nullable().optional(),
});

const editCommentBody = z.object({ body: commentBodyField });

type CommentContext = RouteContext<Record<string, string>, unknown, unknown, Actor | null>;

/** The comment and its page's gate, with the caller allowed to write comments there (404 / 401 / 403). */
async function commentForWriting({ params, subject, actor, services }: CommentContext) {
  const { comment, gate } = await authorizeComment(services.sequelize, subject, params.id ?? '');
  return { comment, gate, writer: assertMayComment(gate, actor) };
}

async function resolveRoute(context: CommentContext, resolved: boolean) {
  return { body: await setThreadState(context.services.sequelize, await commentForWriting(context), resolved, await context.locale()) };
}

export const commentRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/pages/:id/comments',
    access: { kind: 'page', capability: 'read' },
    query: listCommentsQuery,
    handler: async ({ query, resource, actor, services, locale }) => {
      const gate = await commentGateFor(services.sequelize, resource.page, resource.access);
      const body: CommentListView = {
        items: await pageThreadViews(services.sequelize, gate, actor, { status: query.status, expand: query.expand ?? null }, await locale()),
        canComment: gate.canComment,
        canResolve: gate.canComment,
      };
      return { body };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/pages/:id/comments',
    access: { kind: 'page', capability: 'read', session: true },
    body: createCommentBody,
    handler: async (context) => {
      const { body, resource, actor, services } = context;
      const gate = await commentGateFor(services.sequelize, resource.page, resource.access);
      const writer = assertMayComment(gate, actor);
      const input = { body: body.body, parentId: body.parentId ?? null, anchor: body.anchor ?? null };
      return { status: 201, body: await addComment(services.sequelize, gate, writer, input, await context.locale()) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/comments/:id',
    access: { kind: 'public' },
    body: editCommentBody,
    handler: async (context) => {
      const { comment, gate, writer } = await commentForWriting(context);
      if (!isAuthor(comment, writer)) throw new ApiError('comment_not_author');
      await editComment(context.services.sequelize, { commentId: comment.id, userId: writer.user.id, body: context.body.body });
      return { body: await currentCommentView(context.services.sequelize, gate, context.actor, comment.id, await context.locale()) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/comments/:id',
    access: { kind: 'public' },
    handler: async (context) => {
      const { comment, gate, writer } = await commentForWriting(context);
      await deleteComment(context.services.sequelize, {
        commentId: comment.id,
        refusal: (locked, replyCount) => deleteRefusal(gate, { author: { id: locked.authorId }, parentId: locked.parentId }, replyCount, writer),
      });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/comments/:id/resolve',
    access: { kind: 'public' },
    handler: (context) => resolveRoute(context, true),
  }),
  defineRoute({
    method: 'post',
    path: '/comments/:id/reopen',
    access: { kind: 'public' },
    handler: (context) => resolveRoute(context, false),
  }),
  defineRoute({
    method: 'get',
    path: '/public/:pondSlug/:pageSlug/comments',
    access: { kind: 'public' },
    params: z.object({ pondSlug: slugSchema, pageSlug: slugSchema }),
    query: listCommentsQuery,
    handler: async ({ params, query, services, locale }) => {
      const { sequelize } = services;
      // The public subject whoever asks: the same 404s as the public page itself.
      const found = await findPageBySlugs(sequelize, params.pondSlug, params.pageSlug);
      if (!found?.pageId) throw notFound();
      const { page } = await authorizePage(sequelize, ANONYMOUS, found.pageId, 'read');
      const threads = await listThreads(sequelize, page.id, { status: query.status, expand: query.expand ?? null });
      const language = await locale();
      return { body: { items: threads.map((thread) => presentPublicThread(thread, language)) } };
    },
  }),
];
