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
import { assertMayComment, authorizeComment, commentGateFor, commentPermissions, deleteRefusal, isAuthor, type CommentGate } from '../comments/commentAccess.ts';
import { createComment, deleteComment, editComment, setThreadResolved } from '../comments/commentCommands.ts';
import { commentAnchorSchema, commentBodyField } from '../comments/commentContent.ts';
import { presentComment, presentPublicThread, presentThread, type CommentListView } from '../comments/commentPresenter.ts';
import { listThreads, loadComment } from '../comments/commentQueries.ts';
import type { Actor } from '../auth/authenticateRequest.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute, type RouteContext } from '../http/routeTable.ts';
import type { Locale } from '../i18n/locale.ts';
import { authorizePage } from '../policies/accessPolicy.ts';
import { ANONYMOUS } from '../policies/grantResolution.ts';
import { slugSchema } from '../ponds/slugs.ts';
import { findPageBySlugs } from '../publicPages/publicDocumentData.ts';

// Postgres answers ids in lower case; compare them that way.
const commentId = z.uuid().transform((id) => id.toLowerCase());

const listCommentsQuery = z.object({
  status: z.enum(['open', 'resolved', 'all']).default('open'),
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

/** The comment as it is now (after a write), as its caller sees it. */
async function currentView(context: CommentContext, gate: CommentGate, id: string, locale: Locale) {
  const comment = await loadComment(context.services.sequelize, id);
  if (!comment) throw notFound();
  return presentComment(comment, locale, (record) => commentPermissions(gate, record, context.actor));
}

async function resolveRoute(context: CommentContext, resolved: boolean) {
  const { comment, gate, writer } = await commentForWriting(context);
  if (comment.parentId !== null) throw new ApiError('comment_not_root', undefined, { rootId: comment.parentId });
  await setThreadResolved(context.services.sequelize, { rootId: comment.id, userId: writer.user.id, resolved });
  return { body: await currentView(context, gate, comment.id, await context.locale()) };
}

export const commentRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/pages/:id/comments',
    access: { kind: 'page', capability: 'read' },
    query: listCommentsQuery,
    handler: async ({ query, resource, actor, services, locale }) => {
      const gate = await commentGateFor(services.sequelize, resource.page, resource.access);
      const threads = await listThreads(services.sequelize, resource.page.id, { status: query.status, expand: query.expand ?? null });
      const language = await locale();
      const body: CommentListView = {
        items: threads.map((thread) => presentThread(thread, language, (record) => commentPermissions(gate, record, actor))),
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
      assertMayComment(gate, actor);
      const id = await createComment(services.sequelize, {
        page: resource.page,
        authorId: actor.user.id,
        body: body.body,
        parentId: body.parentId ?? null,
        anchor: body.anchor ?? null,
      });
      return { status: 201, body: await currentView(context, gate, id, await context.locale()) };
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
      return { body: await currentView(context, gate, comment.id, await context.locale()) };
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
