/**
 * The MCP tests' client side: the official SDK client over Streamable HTTP with a bearer token
 * (what an agent runs), tool results unpacked into the result or the API error, the switches
 * flipped through the real admin and pond routes, and tokens issued straight through the token
 * module (its routes have tests of their own).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAccessToken, type TokenScope } from '../auth/accessTokens.ts';
import type { TestClient } from './testClient.ts';
import type { TestInstance } from './testInstance.ts';

export function mcpUrl(instance: TestInstance): URL {
  return new URL('/api/mcp', instance.baseUrl);
}

/** A connected client (initialize done); close it when done. Rejects as the SDK does, e.g. with the HTTP status of a refused POST. */
export async function connectMcp(instance: TestInstance, secret: string): Promise<Client> {
  const client = new Client({ name: 'dorfteich-tests', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(instance), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
  return client;
}

export interface ToolError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A tool's answer: `result` (its structured content) or `error` (the API error, or the SDK's schema refusal as `input_invalid`). */
export type ToolOutcome = { result: any; error?: undefined; raw: CallToolResult } | { result?: undefined; error: ToolError; raw: CallToolResult };

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const raw = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = raw.content[0];
  assert.equal(first?.type, 'text', `a text result from ${name}`);
  const text = first.type === 'text' ? first.text : '';
  if (!raw.isError) {
    assert.deepEqual(JSON.parse(text), raw.structuredContent, 'the text and the structured content say the same');
    return { result: raw.structuredContent, raw };
  }
  if (text.startsWith('{')) return { error: (JSON.parse(text) as { error: ToolError }).error, raw };
  return { error: { code: 'input_invalid', message: text }, raw };
}

/** The tool's result; fails the test with the tool's error otherwise. */
export async function toolResult(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const outcome = await callTool(client, name, args);
  assert.equal(outcome.error, undefined, `${name}: ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}

/** The tool's error code (and the outcome); fails the test when the tool succeeded. */
export async function toolError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolError> {
  const outcome = await callTool(client, name, args);
  assert.ok(outcome.error, `${name} should have failed, got ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

/** The instance switches, as a Site Admin flips them. */
export async function setInstanceSwitches(admin: TestClient, switches: { api?: boolean; mcp?: boolean }): Promise<void> {
  const patch = { ...(switches.api === undefined ? {} : { 'api.enabled': switches.api }), ...(switches.mcp === undefined ? {} : { 'mcp.enabled': switches.mcp }) };
  const response = await admin.patch('/admin/settings', patch);
  assert.equal(response.status, 200, response.text);
}

/** A pond's opt-ins, as its pond admin flips them. */
export async function setPondSwitches(pondAdmin: TestClient, pondId: string, switches: { api?: boolean; mcp?: boolean }): Promise<void> {
  const settings = { ...(switches.api === undefined ? {} : { apiEnabled: switches.api }), ...(switches.mcp === undefined ? {} : { mcpEnabled: switches.mcp }) };
  const response = await pondAdmin.patch(`/ponds/${pondId}`, { settings });
  assert.equal(response.status, 200, response.text);
}

export async function issueToken(instance: TestInstance, userId: string, options: { scope?: TokenScope; pondId?: string | null } = {}): Promise<string> {
  const { sequelize } = instance.services;
  const scope = options.scope ?? 'write';
  const { secret } = await sequelize.transaction((transaction) =>
    createAccessToken(sequelize, { userId, name: `mcp ${scope}`, scope, expiresAt: null, pondId: options.pondId ?? null }, transaction),
  );
  return secret;
}

/** A raw POST of one JSON-RPC request, for what the SDK client would not send (no token, a bad one). */
export function rawMcpPost(instance: TestInstance, headers: Record<string, string> = {}, message: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }): Promise<Response> {
  return fetch(mcpUrl(instance), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
}
