/**
 * `POST /api/mcp` (spec: MCP endpoint) with the official SDK client: the ten tools and their
 * input schemas, no resources; 401 for no token, a garbage token and a session cookie alone;
 * 405 with `Allow: POST` for GET and DELETE; the instance switch `mcp.enabled` (404
 * `mcp_disabled`, the client cannot connect); the pond switch `mcpEnabled` independent of the
 * REST one in both directions; the token's scope (`scope_required`, nothing written) and pond
 * restriction; the rate limit counted per POST.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorMessagesEn } from '../i18n/errorMessages.en.ts';
import { AuditEntry, Page, type Pond } from '../models/index.ts';
import { seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { callTool, connectMcp, issueToken, rawMcpPost, setInstanceSwitches, setPondSwitches, toolError, toolResult } from '../testing/mcpClient.ts';
import { signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const TOOL_NAMES = ['add_comment', 'create_page', 'export_pond', 'list_labels', 'list_pages', 'list_ponds', 'read_page', 'search', 'set_page_labels', 'update_page'];

let instance: TestInstance;
let admin: TestClient;
let owner: SignedIn;
let pond: Pond;
let otherPond: Pond;
let welcome: Page;
let writeSecret: string;
let readSecret: string;
const clients: Client[] = [];

async function connect(secret: string): Promise<Client> {
  const client = await connectMcp(instance, secret);
  clients.push(client);
  return client;
}

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  [owner] = (await signInUsers(instance, 1)) as [SignedIn];
  pond = await seedSharedPond(owner.user.id, 'Handbook');
  otherPond = await seedSharedPond(owner.user.id, 'Other');
  welcome = await seedPage(pond.id, 'Welcome', { createdBy: owner.user.id });
  await setPondSwitches(owner.client, pond.id, { mcp: true });
  await setPondSwitches(owner.client, otherPond.id, { mcp: true });
  writeSecret = await issueToken(instance, owner.user.id, { scope: 'write' });
  readSecret = await issueToken(instance, owner.user.id, { scope: 'read' });
});

after(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await instance.close();
});

beforeEach(async () => {
  await setInstanceSwitches(admin, { mcp: true, api: false });
  await instance.services.sequelize.query(`DELETE FROM rate_limit_counters WHERE key LIKE 'pat:%'`);
});

async function assertEnvelope(response: Response, status: number, code: string): Promise<void> {
  assert.equal(response.status, status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, code);
  assert.ok(body.error.message.length > 0, 'a message in the envelope');
}

describe('the endpoint', () => {
  test('lists exactly the ten tools, each with a description and an object input schema whose fields are described; no resources', async () => {
    const client = await connect(readSecret);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOL_NAMES);
    for (const tool of tools) {
      assert.ok((tool.description ?? '').length > 40, `${tool.name} tells an agent what it does`);
      assert.equal(tool.inputSchema.type, 'object');
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok(typeof (schema as { description?: unknown }).description === 'string', `${tool.name}.${field} is described`);
      }
    }
    const updatePage = tools.find((tool) => tool.name === 'update_page')!;
    assert.deepEqual(Object.keys(updatePage.inputSchema.properties ?? {}).sort(), ['content', 'mode', 'page', 'parent', 'pond', 'title']);
    assert.deepEqual([...(updatePage.inputSchema.required ?? [])].sort(), ['page', 'pond']);
    assert.equal(updatePage.annotations?.readOnlyHint, false);
    assert.equal(tools.find((tool) => tool.name === 'read_page')!.annotations?.readOnlyHint, true);
    assert.equal(client.getServerCapabilities()?.resources, undefined);
    assert.equal(client.getServerCapabilities()?.prompts, undefined);
    assert.match(client.getInstructions() ?? '', /list_ponds/);
  });

  test('401 without a token (with the Bearer challenge), with a garbage token, and with a session cookie alone', async () => {
    const anonymous = await rawMcpPost(instance);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer realm="dorfteich"/);
    await assertEnvelope(anonymous, 401, 'unauthenticated');
    await assertEnvelope(await rawMcpPost(instance, { authorization: 'Bearer dt_pat_not-a-real-secret' }), 401, 'access_token_invalid');
    await assertEnvelope(await rawMcpPost(instance, { authorization: 'Bearer garbage' }), 401, 'access_token_invalid');
    await assertEnvelope(await rawMcpPost(instance, { cookie: `dt_session=${owner.client.sessionCookie}` }), 401, 'unauthenticated');
  });

  test('GET and DELETE answer 405 with Allow: POST, in the error envelope', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/api/mcp', instance.baseUrl), { method, headers: { authorization: `Bearer ${writeSecret}` } });
      assert.equal(response.headers.get('allow'), 'POST');
      await assertEnvelope(response, 405, 'method_not_allowed');
    }
  });

  test('the body: malformed JSON is 400 invalid_request, over 1 MB is 413 payload_too_large, both in the envelope', async () => {
    const post = (body: string) =>
      fetch(new URL('/api/mcp', instance.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${writeSecret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    await assertEnvelope(await post('{"jsonrpc": "2.0",'), 400, 'invalid_request');
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_page', arguments: { pond: pond.slug, title: 'Big', markdown: 'x'.repeat(1_100_000) } } });
    await assertEnvelope(await post(huge), 413, 'payload_too_large');
  });

  test('a raw JSON-RPC POST with a valid token is answered as plain JSON (stateless, no session id)', async () => {
    const response = await rawMcpPost(instance, { authorization: `Bearer ${readSecret}` });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(response.headers.get('mcp-session-id'), null);
    const body = (await response.json()) as { result: { tools: unknown[] } };
    assert.equal(body.result.tools.length, 10);
  });
});

describe('the switches', () => {
  test('mcp.enabled off: 404 mcp_disabled before any token is looked at, and the client cannot connect', async () => {
    await setInstanceSwitches(admin, { mcp: false });
    await assertEnvelope(await rawMcpPost(instance, { authorization: `Bearer ${writeSecret}` }), 404, 'mcp_disabled');
    await assertEnvelope(await rawMcpPost(instance), 404, 'mcp_disabled');
    await assert.rejects(connect(writeSecret), (error: { code?: unknown }) => error.code === 404);
  });

  test('the REST switch does not open MCP: api.enabled on, mcp.enabled off is still 404', async () => {
    await setInstanceSwitches(admin, { mcp: false, api: true });
    await assertEnvelope(await rawMcpPost(instance, { authorization: `Bearer ${writeSecret}` }), 404, 'mcp_disabled');
  });

  test('a pond with apiEnabled but not mcpEnabled: not_found over MCP while REST reads it', async () => {
    await setInstanceSwitches(admin, { mcp: true, api: true });
    await setPondSwitches(owner.client, pond.id, { api: true, mcp: false });
    try {
      const client = await connect(writeSecret);
      assert.equal((await toolError(client, 'list_pages', { pond: pond.slug })).code, 'not_found');
      assert.ok(!(await toolResult(client, 'list_ponds')).items.some((item: { slug: string }) => item.slug === pond.slug));
      const rest = await fetch(new URL(`/api/public/v1/ponds/${pond.slug}/pages`, instance.baseUrl), { headers: { authorization: `Bearer ${writeSecret}` } });
      assert.equal(rest.status, 200);
    } finally {
      await setPondSwitches(owner.client, pond.id, { api: false, mcp: true });
    }
  });

  test('a pond with mcpEnabled but not apiEnabled: MCP reads it while REST answers 404 not_found', async () => {
    await setInstanceSwitches(admin, { mcp: true, api: true });
    const client = await connect(readSecret);
    assert.ok((await toolResult(client, 'list_pages', { pond: pond.slug })).items.some((item: { title: string }) => item.title === 'Welcome'));
    const rest = await fetch(new URL(`/api/public/v1/ponds/${pond.slug}/pages`, instance.baseUrl), { headers: { authorization: `Bearer ${readSecret}` } });
    await assertEnvelope(rest, 404, 'not_found');
  });

  test('MCP works with the REST API switched off for the instance', async () => {
    const client = await connect(readSecret);
    assert.ok((await toolResult(client, 'list_ponds')).items.some((item: { slug: string }) => item.slug === pond.slug));
  });
});

describe('the token', () => {
  test('a read token is refused every write tool with scope_required, and nothing is written or audited', async () => {
    const client = await connect(readSecret);
    const pagesBefore = await Page.count({ where: { pondId: pond.id } });
    const auditBefore = await AuditEntry.count({ where: { action: 'api.write' } });
    const writes: [string, Record<string, unknown>][] = [
      ['create_page', { pond: pond.slug, title: 'Not allowed' }],
      ['update_page', { pond: pond.slug, page: welcome.slug, title: 'Renamed' }],
      ['add_comment', { pond: pond.slug, page: welcome.slug, body: 'Hello' }],
      ['set_page_labels', { pond: pond.slug, page: welcome.slug, labels: [] }],
    ];
    for (const [tool, args] of writes) {
      const error = await toolError(client, tool, args);
      assert.equal(error.code, 'scope_required', tool);
      assert.ok(error.message.length > 0);
    }
    assert.equal(await Page.count({ where: { pondId: pond.id } }), pagesBefore);
    assert.equal((await Page.findByPk(welcome.id))?.title, 'Welcome');
    assert.equal(await AuditEntry.count({ where: { action: 'api.write' } }), auditBefore);
  });

  test('scope_required comes before the pond is looked up (a write to a missing pond is still a scope refusal)', async () => {
    const client = await connect(readSecret);
    assert.equal((await toolError(client, 'create_page', { pond: 'no-such-pond', title: 'x' })).code, 'scope_required');
  });

  test('a token restricted to one pond: not_found for another readable pond, as for a missing one', async () => {
    const client = await connect(await issueToken(instance, owner.user.id, { scope: 'read', pondId: pond.id }));
    assert.deepEqual((await toolResult(client, 'list_ponds')).items.map((item: { slug: string }) => item.slug), [pond.slug]);
    assert.equal((await toolError(client, 'list_pages', { pond: otherPond.slug })).code, 'not_found');
    assert.equal((await toolError(client, 'list_pages', { pond: 'no-such-pond' })).code, 'not_found');
  });

  test("tool errors are worded in the token owner's language", async () => {
    await owner.client.patch('/users/me', { locale: 'de' });
    try {
      const client = await connect(readSecret);
      const german = await callTool(client, 'create_page', { pond: pond.slug, title: 'x' });
      assert.equal(german.error?.code, 'scope_required');
      assert.notEqual(german.error?.message, errorMessagesEn.scope_required);
    } finally {
      await owner.client.patch('/users/me', { locale: 'en' });
    }
  });
});

describe('the rate limit', () => {
  test('a JSON-RPC batch (a JSON array) is refused with 400 and a JSON-RPC error before any of its messages runs', async () => {
    const pagesBefore = await Page.count({ where: { pondId: pond.id } });
    const batch = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'create_page', arguments: { pond: pond.slug, title: `Batched ${i}` } } }));
    const refused = await rawMcpPost(instance, { authorization: `Bearer ${writeSecret}` }, batch);
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /batch/i);
    assert.equal(await Page.count({ where: { pondId: pond.id } }), pagesBefore, 'no page was created');
  });
  test('a batch whose content type our JSON parser skips but the transport reads as JSON is refused too, and runs nothing', async () => {
    // A trailing no-break space: Express' parser does not take it for JSON, the SDK's does.
    const pagesBefore = await Page.count({ where: { pondId: pond.id } });
    const batch = Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'create_page', arguments: { pond: pond.slug, title: `Smuggled ${i}` } } }));
    const refused = await rawMcpPost(instance, { authorization: `Bearer ${writeSecret}`, 'content-type': 'application/json\u00a0' }, batch);
    assert.equal(refused.status, 400, await refused.clone().text());
    assert.equal(((await refused.json()) as { error: { code: number } }).error.code < 0, true, 'a JSON-RPC error');
    assert.equal(await Page.count({ where: { pondId: pond.id } }), pagesBefore, 'no page was created');
  });
  test('each POST counts against the token once; over the limit: 429 rate_limited with Retry-After', async () => {
    const limited = await startTestInstance({ env: { API_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const limitedAdmin = await completeSetup(limited);
      await setInstanceSwitches(limitedAdmin, { mcp: true });
      const [user] = (await signInUsers(limited, 1)) as [SignedIn];
      const secret = await issueToken(limited, user.user.id, { scope: 'read' });
      for (let i = 0; i < 3; i += 1) assert.equal((await rawMcpPost(limited, { authorization: `Bearer ${secret}` })).status, 200);
      const refused = await rawMcpPost(limited, { authorization: `Bearer ${secret}` });
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      await assertEnvelope(refused, 429, 'rate_limited');
      // Another token of the same owner has a budget of its own.
      const other = await issueToken(limited, user.user.id, { scope: 'read' });
      assert.equal((await rawMcpPost(limited, { authorization: `Bearer ${other}` })).status, 200);
    } finally {
      await limited.close();
    }
  });
});
