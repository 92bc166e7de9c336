/** Every MCP tool, one module per family; the spec names exactly these ten. No resources or prompts are offered. */
import type { AnyMcpTool } from '../toolWrapper.ts';
import { commentTools } from './commentTools.ts';
import { exportTools } from './exportTools.ts';
import { labelTools } from './labelTools.ts';
import { pageTools } from './pageTools.ts';
import { searchTools } from './searchTools.ts';

export const mcpTools: AnyMcpTool[] = [...pageTools, ...searchTools, ...commentTools, ...labelTools, ...exportTools];
