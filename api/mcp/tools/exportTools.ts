/**
 * `export_pond` (spec: MCP endpoint: "returns a link to the REST ZIP"). A tool result is JSON
 * text, no place for an archive; the link is the REST route, which the same token opens
 * (with the REST switches on), so the ZIP is streamed by one implementation.
 */
import { z } from 'zod';
import { exportApiUrl } from '../../publicApi/operations/exportOperations.ts';
import { defineTool, type AnyMcpTool } from '../toolWrapper.ts';
import { pondField } from './toolFields.ts';

const exportPond = defineTool({
  name: 'export_pond',
  description:
    "Returns { url }: the link to a ZIP of the pond's pages as Markdown files (one <slug>.md per page, with a front-matter block). Download it with GET and the same `Authorization: Bearer` header. It is served by the REST API: where that is switched off for the instance or the pond, the tool answers api_disabled or not_found instead of a link.",
  input: z.object({ pond: pondField }),
  write: false,
  run: async (call, input) => ({ url: await exportApiUrl(call, input.pond) }),
});

export const exportTools: AnyMcpTool[] = [exportPond];
