/**
 * Comments in the public REST API and MCP (operations/commentOperations.ts): the internal
 * presenter's views (api/comments/commentPresenter.ts) as zod schemas, so the OpenAPI document
 * says what the routes send; `commentViewsMatch` below keeps both in step at compile time.
 */
import { z } from 'zod';
import type { CommentView, ThreadView } from '../../comments/commentPresenter.ts';

const timestamp = z.iso.datetime({ offset: true });

export const apiComment = z
  .object({
    id: z.uuid(),
    pageId: z.uuid(),
    parentId: z.uuid().nullable().describe("The thread root's id for a reply; null for a root"),
    author: z.object({ id: z.uuid(), displayName: z.string(), deleted: z.boolean() }),
    body: z.string().describe('Markdown'),
    bodyHtml: z.string().describe('The body rendered to sanitized HTML'),
    anchor: z
      .object({ from: z.string(), to: z.string(), quote: z.string().describe('The passage the thread is about') })
      .nullable()
      .describe("A root's passage of the page, set by the app's editor"),
    resolvedAt: timestamp.nullable(),
    resolvedBy: z.object({ id: z.uuid(), displayName: z.string() }).nullable(),
    editedAt: timestamp.nullable(),
    createdAt: timestamp,
    canEdit: z.boolean(),
    canDelete: z.boolean(),
  })
  .meta({ id: 'Comment' });

export const apiCommentThread = apiComment
  .extend({
    replies: z.array(apiComment).describe('Oldest first; empty while the thread is collapsed'),
    replyCount: z.number().int().min(0),
    collapsed: z.boolean().describe('A resolved thread comes without its replies unless `expand` names it'),
  })
  .meta({ id: 'CommentThread' });

export const apiCommentList = z
  .object({
    items: z.array(apiCommentThread),
    nextCursor: z.null().describe('All threads come in one answer'),
    canComment: z.boolean().describe("Whether the token's owner may comment, reply, resolve and reopen here (the pond's comment policy)"),
  })
  .meta({ id: 'CommentList' });

export type ApiComment = z.infer<typeof apiComment>;
export type ApiCommentList = z.infer<typeof apiCommentList>;

// Compile-time only: the presenter's views are exactly what the schemas describe.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const commentViewsMatch: [Same<ApiComment, CommentView>, Same<z.infer<typeof apiCommentThread>, ThreadView>] = [true, true];
