/** Every MCP tool, one module per family; the spec names exactly these ten. No resources or prompts are offered. */
import type { AnyMcpTool } from '../toolWrapper.ts';
import { pageTools } from './pageTools.ts';

export const mcpTools: AnyMcpTool[] = [...pageTools];
