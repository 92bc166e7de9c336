/** `add_comment` (spec: MCP endpoint): a new thread or a reply on a page, through the public API's comment operation. */
import { z } from 'zod';
import { storableString } from '../../http/fieldSchemas.ts';
import { createApiComment } from '../../publicApi/operations/commentOperations.ts';
import { defineTool, type AnyMcpTool } from '../toolWrapper.ts';
import { pageField, pondField } from './toolFields.ts';

const addComment = defineTool({
  name: 'add_comment',
  description:
    "Adds a comment to a page: a new thread, or with `reply_to` a reply in an existing thread. Returns the comment with its id. Who may comment follows the pond's comment policy (readers or editors). Needs a write token.",
  input: z.object({
    pond: pondField,
    page: pageField,
    // The operation trims and words the length refusals (comment_empty, comment_too_long) in the caller's language.
    body: storableString().max(20_000).describe('The comment as Markdown (at most 10,000 characters)'),
    reply_to: z.uuid().optional().describe("The id of the thread's first comment to reply to; absent: start a new thread"),
  }),
  write: true,
  run: (call, input) => createApiComment(call, input.pond, input.page, { body: input.body, parentId: input.reply_to ?? null }),
});

export const commentTools: AnyMcpTool[] = [addComment];
