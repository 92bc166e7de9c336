/**
 * Comments (spec: Public REST API: threads, create, resolve, reopen). The rules and the field
 * schemas are the internal routes' (api/routes/commentRoutes.ts); writing follows the pond's
 * comment policy (`readers` or `editors`).
 */
import { z } from 'zod';
import { commentBodyField } from '../../comments/commentContent.ts';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { commentId, threadStatusField } from '../../routes/commentRoutes.ts';
import { apiCallOf } from '../apiCall.ts';
import { createApiComment, listApiComments, reopenApiComment, resolveApiComment } from '../operations/commentOperations.ts';
import { apiComment, apiCommentList } from '../views/commentViews.ts';
import { pondSlugParams } from './pondApiRoutes.ts';

const pageParams = pondSlugParams.extend({ pageSlug: z.string().describe("The page's slug") });
const commentParams = z.object({ id: z.string().describe("The thread root's id") });

const listQuery = z.object({
  status: threadStatusField.describe('Which threads: open (default), resolved or all'),
  expand: commentId.optional().describe('A resolved thread to list with its replies'),
});

const createBody = z.strictObject({
  body: commentBodyField.describe('Markdown, 1 to 10,000 characters after trimming'),
  parentId: commentId.nullable().optional().describe('Reply to this thread root of the same page; absent or null: a new thread'),
});

const threadStateRoute = (action: 'resolve' | 'reopen') =>
  defineRoute({
    method: 'post',
    path: `/comments/:id/${action}`,
    access: { kind: 'token', scope: 'write' },
    params: commentParams,
    describe: {
      summary: action === 'resolve' ? 'Resolve a thread' : 'Reopen a thread',
      description: `By its root (400 \`comment_not_root\` for a reply); for anyone who may comment on the page. ${action === 'resolve' ? 'Resolving a resolved thread keeps who resolved it and when.' : 'Reopening an open thread changes nothing.'}`,
      tag: 'Comments',
      response: { status: 200, schema: apiComment, description: 'The thread root after the change' },
      errors: [400],
    },
    handler: async (context) => {
      const call = apiCallOf(context);
      return { body: action === 'resolve' ? await resolveApiComment(call, context.params.id) : await reopenApiComment(call, context.params.id) };
    },
  });

export const commentApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug/pages/:pageSlug/comments',
    access: { kind: 'token', scope: 'read' },
    params: pageParams,
    query: listQuery,
    describe: {
      summary: "A page's comment threads",
      description: 'Threads oldest first, each root with its replies oldest first; a resolved thread comes collapsed (without replies) unless `expand` names it.',
      tag: 'Comments',
      response: { status: 200, schema: apiCommentList, description: 'The threads' },
      errors: [400],
    },
    handler: async (context) => ({ body: await listApiComments(apiCallOf(context), context.params.pondSlug, context.params.pageSlug, context.query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:pondSlug/pages/:pageSlug/comments',
    access: { kind: 'token', scope: 'write' },
    params: pageParams,
    body: createBody,
    describe: {
      summary: 'Comment on a page',
      description:
        "A new thread, or a reply to a thread's root. Needs what the pond's comment policy asks: read permission on the page (`readers`) or write permission (`editors`), else 403. 400 `comment_empty`, `comment_too_long`, `comment_reply_to_reply`.",
      tag: 'Comments',
      response: { status: 201, schema: apiComment, description: 'The new comment' },
      errors: [400],
    },
    handler: async (context) => ({ status: 201, body: await createApiComment(apiCallOf(context), context.params.pondSlug, context.params.pageSlug, context.body) }),
  }),
  threadStateRoute('resolve'),
  threadStateRoute('reopen'),
];
