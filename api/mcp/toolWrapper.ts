/**
 * The one wrapper every MCP tool runs through (spec: MCP endpoint), so no tool can forget a
 * step: a write tool checks the token's scope before anything is looked up and records
 * `api.write` once it has succeeded (REST does both in the route table); a result goes back
 * as JSON text and as `structuredContent`; a refusal goes back as a tool error carrying the
 * API's error code and its message in the caller's language, as REST's error envelope does,
 * so an agent can react to `not_found` or `scope_required` the same way on both
 * channels. Anything else is logged and answered as `internal_error` without details.
 *
 * Arguments that do not fit a tool's input schema never reach the tool: the SDK refuses them
 * with a tool error naming the field (its standard behaviour, which lets a model correct itself).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { ApiError } from '../http/apiError.ts';
import { errorMessage } from '../i18n/locale.ts';
import { auditApiWrite, requireWriteScope, type ApiCall } from '../publicApi/apiCall.ts';

export type ToolResult = Record<string, unknown>;

/** Every tool names a pond; most a page too (what `api.write` records as the write's target). */
interface ToolTarget {
  pond: string;
  page?: string | undefined;
}

export interface McpTool<Input extends z.ZodObject> {
  name: string;
  /** What an agent reads to decide whether and how to call the tool. */
  description: string;
  input: Input;
  /** A write tool needs a write-scope token and is audited as `api.write`. */
  write: boolean;
  /** A write that replaces or removes something (the client may ask before calling it). */
  destructive?: boolean;
  run(call: ApiCall, input: z.output<Input>): Promise<ToolResult>;
  /** The page a write touched when the input does not name it (e.g. the slug of a new page). */
  writtenPage?(input: z.output<Input>, result: ToolResult): string;
}

/** Identity function that lets TypeScript infer one tool's input type from its schema. */
export function defineTool<Input extends z.ZodObject>(tool: McpTool<Input>): McpTool<Input> {
  return tool;
}

// Tools of different inputs share one list.
export type AnyMcpTool = McpTool<any>;

export function registerMcpTool(server: McpServer, call: ApiCall, tool: AnyMcpTool): void {
  server.registerTool(
    tool.name,
    {
      description: tool.description,
      inputSchema: tool.input,
      annotations: { readOnlyHint: !tool.write, destructiveHint: tool.destructive ?? false, openWorldHint: false },
    },
    (input: z.output<AnyMcpTool['input']>) => runMcpTool(call, tool, input),
  );
}

export async function runMcpTool(call: ApiCall, tool: AnyMcpTool, input: ToolTarget & Record<string, unknown>): Promise<CallToolResult> {
  try {
    if (tool.write) requireWriteScope(call);
    const result = await tool.run(call, input);
    if (tool.write) {
      const page = tool.writtenPage?.(input, result) ?? input.page;
      await auditApiWrite(call, { tool: tool.name, pond: input.pond, ...(page === undefined ? {} : { page }) });
    }
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    return toolError(call, tool, error);
  }
}

async function toolError(call: ApiCall, tool: AnyMcpTool, error: unknown): Promise<CallToolResult> {
  // A unique violation (e.g. a slug taken in a race) is the caller's conflict, as REST answers it.
  let apiError = error instanceof ApiError ? error : uniqueViolationError(error);
  if (!apiError) {
    call.services.logger.error({ err: error, tool: tool.name, tokenId: call.actor.token?.id }, 'MCP tool failed');
    apiError = new ApiError('internal_error', 500);
  }
  const locale = await call.locale().catch(() => 'en' as const);
  const hasDetails = apiError.code !== 'internal_error' && Object.keys(apiError.details).length > 0;
  const body = { error: { code: apiError.code, message: errorMessage(apiError.code, locale, apiError.messageVariant), ...(hasDetails ? { details: apiError.details } : {}) } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
