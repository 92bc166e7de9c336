/**
 * `POST /api/mcp` (spec: MCP endpoint; ARCHITECTURE: stateless Streamable HTTP, a new server
 * and transport per POST). Stateless means no session to keep or to steal: every POST carries
 * its bearer token and is answered as plain JSON, so the endpoint scales like any REST route
 * and a revoked token stops working with the next request.
 *
 * Order: setup complete → the instance switch `mcp.enabled` (off: 404 `mcp_disabled` for every
 * method, the endpoint does not exist then) → only POST (405 with `Allow: POST`; there is no
 * stream to open with GET and no session to end with DELETE) → the bearer token and its rate
 * limit, counted once per POST (bearerAuthentication.ts) → the body, one JSON-RPC message (a
 * batch is refused with 400, so one POST is never many tool calls) → the tools, where scope,
 * the pond's `mcpEnabled` and the permission model follow (toolWrapper.ts, apiCall.ts).
 * Refusals before the transport go to the app's error handler, so they carry the same
 * envelope and localized message as REST. Cookies are never read.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { authenticateRequest, knownActor } from '../auth/authenticateRequest.ts';
import { ApiError, bearerRequired } from '../http/apiError.ts';
import { resolveRequestLocale } from '../http/requestLocale.ts';
import type { Locale } from '../i18n/locale.ts';
import { accessSubjectOf } from '../policies/accessPolicy.ts';
import type { ApiCall } from '../publicApi/apiCall.ts';
import { bearerTokenAuthentication } from '../publicApi/bearerAuthentication.ts';
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { assertSetupComplete } from '../setup/setupState.ts';
import { registerMcpTool } from './toolWrapper.ts';
import { mcpTools } from './tools/index.ts';

export const MCP_PATH = '/api/mcp';
/** As the REST routers: a page's Markdown fits, a runaway body does not. */
const JSON_BODY_LIMIT = '1mb';
const SERVER_INFO = { name: 'dorfteich', version: '1' };
/** What a client may hand its model before the tool list: where to start and how things are named. */
const INSTRUCTIONS =
  'Dorfteich is a knowledge base of ponds (workspaces) holding pages of Markdown. Start with list_ponds; ponds and pages are named by their slugs. Find pages with search or list_pages, read them with read_page. Writing tools need a write token and act with the permissions of the token owner.';

/** A check before the transport: passes on, or hands its refusal to the app's error handler. */
function check(run: (req: Request, res: Response) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction) => {
    run(req, res).then(() => next(), next);
  };
}

async function assertMcpAvailable(): Promise<void> {
  await assertSetupComplete();
  if (!(await getSetting('mcp.enabled'))) throw new ApiError('mcp_disabled', 404);
}

/**
 * JSON-RPC's "Invalid Request" for a batch body. The MCP revision we serve has no batching, and
 * a batch would run many tool calls on one POST, which the rate limit counts once; so a JSON
 * array is refused whole, before any of its messages reaches a tool.
 */
const BATCH_REFUSAL = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported; send one message per POST.' } };

/** Remembers the actor on the request, so the error handler answers in the token owner's language. */
async function authenticate(req: Request, res: Response, services: AppServices): Promise<void> {
  const actor = await authenticateRequest(req, res, services, bearerTokenAuthentication);
  if (!actor?.token) throw bearerRequired();
}

/** One server with every tool, bound to this POST's caller. No resources or prompts: the tools are the interface. */
export function createMcpServer(call: ApiCall): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  for (const tool of mcpTools) registerMcpTool(server, call, tool);
  return server;
}

async function serve(req: Request, res: Response, services: AppServices): Promise<void> {
  const actor = knownActor(req);
  if (!actor?.token) throw bearerRequired();
  let locale: Promise<Locale> | undefined;
  const call: ApiCall = { services, actor, subject: accessSubjectOf(actor), channel: 'mcp', locale: () => (locale ??= resolveRequestLocale(req)), ip: req.ip };
  const server = createMcpServer(call);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // Closing the server closes its transport; the answer is written (or the client gone) by then.
  res.on('close', () => {
    server.close().catch((error: unknown) => services.logger.warn({ err: error }, 'closing an MCP server failed'));
  });
  await server.connect(transport);
  // Never undefined: given nothing, the transport would read and parse the raw body itself, and
  // a batch in a body our JSON parser skipped would pass the batch check unseen. null (no body
  // parsed) is an invalid message to the transport, and its content-type check comes first.
  await transport.handleRequest(req, res, req.body ?? null);
}

export function mountMcpEndpoint(app: Express, services: AppServices): void {
  // `route().all` is one handler for every method; `app.all` would register a route per method
  // (CONNECT and HEAD included), which is what route walkers such as the malformed-input sweep then see.
  app.route(MCP_PATH).all(check(assertMcpAvailable));
  app.post(
    MCP_PATH,
    check((req, res) => authenticate(req, res, services)),
    express.json({ limit: JSON_BODY_LIMIT, type: ['application/json', '+json'] }),
    (req: Request, res: Response, next: NextFunction) => {
      if (Array.isArray(req.body)) res.status(400).json(BATCH_REFUSAL);
      else next();
    },
    // The transport answers by itself (its promise may settle before the answer is written), so
    // success never passes on; a failure before any answer goes to the error handler.
    (req: Request, res: Response, next: NextFunction) => {
      serve(req, res, services).catch(next);
    },
  );
  app.route(MCP_PATH).all((_req, _res, next) => next(new ApiError('method_not_allowed', 405, {}, { Allow: 'POST' })));
}
