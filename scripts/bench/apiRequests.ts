/**
 * Requests of `npm run bench:api`: single ones through `fetch` (one keep-alive pool for every
 * channel, so REST, MCP and the internal API pay the same client), the MCP `tools/call` POST
 * as an agent's client sends it after connecting, list walks for the correctness checks, and
 * autocannon rounds of several paths on one server, interleaved.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { ApiBenchProcess } from './apiBenchProcess.ts';
import { loadRound, summarize, type RoundResult, type Summary } from './publicLoad.ts';

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  ms: number;
}

export async function timedFetch(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = process.hrtime.bigint();
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

export async function getJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  const answer = await timedFetch(url, { headers });
  if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as T;
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

let rpcId = 0;

/**
 * One `tools/call` POST as the SDK's Streamable HTTP client sends it once connected: JSON-RPC
 * body, both media types accepted, the negotiated protocol version. The endpoint is stateless
 * (no session id, so the SDK's transport skips its session check, and the server answers any
 * request without an `initialize` first): a connected client pays exactly this per tool call.
 */
export function mcpToolCall(origin: string, secret: string, name: string, args: Record<string, unknown>): Promise<Answer> {
  rpcId += 1;
  return timedFetch(`${origin}/api/mcp`, {
    method: 'POST',
    headers: { ...bearer(secret), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name, arguments: args } }),
  });
}

/** The tool's structured result from a JSON-mode answer; throws on anything else. */
export function toolResultOf<T>(answer: Answer): T {
  if (answer.status !== 200 || !answer.contentType.startsWith('application/json')) throw new Error(`MCP answered ${answer.status} (${answer.contentType}): ${answer.text.slice(0, 300)}`);
  const reply = JSON.parse(answer.text) as { result?: { isError?: boolean; structuredContent?: T; content?: { text: string }[] }; error?: unknown };
  if (!reply.result || reply.result.isError || !reply.result.structuredContent) throw new Error(`MCP tool call failed: ${answer.text.slice(0, 300)}`);
  return reply.result.structuredContent;
}

/** Every item id of a keyset-paged list, following `nextCursor`. */
export async function walkList(url: string, headers: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: { id: string }[]; nextCursor: string | null } = await getJson(`${url}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers);
    ids.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

export interface LoadCase {
  path: string;
  headers: Record<string, string>;
}

/**
 * A warm-up round per case, then `rounds` rounds of each, the order reversed every other
 * round, so drift in the machine's load weighs on every case alike.
 */
export async function compareCases<K extends string>(
  server: ApiBenchProcess,
  cases: Record<K, LoadCase>,
  options: { rounds: number; seconds: number; warmup: number; connections: number },
): Promise<Record<K, Summary>> {
  const names = Object.keys(cases) as K[];
  const round = (name: K, duration: number) => loadRound(server, { ...cases[name], duration, connections: options.connections, expectStatus: 200 });
  for (const name of names) await round(name, options.warmup);
  const results = Object.fromEntries(names.map((name) => [name, [] as RoundResult[]])) as Record<K, RoundResult[]>;
  for (let index = 0; index < options.rounds; index += 1) {
    for (const name of index % 2 === 0 ? names : [...names].reverse()) results[name].push(await round(name, options.seconds));
  }
  return Object.fromEntries(names.map((name) => [name, summarize(results[name])])) as Record<K, Summary>;
}
