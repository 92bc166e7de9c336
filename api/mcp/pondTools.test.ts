/**
 * The pond-wide tools over MCP (spec: MCP endpoint): `search` with `**` highlights and parent
 * slugs, `list_labels` as a tree, `set_page_labels` as an exact replace (ids, or a name only
 * one label carries), `add_comment` (thread and reply), `export_pond` as a link to the REST
 * ZIP that the same token downloads. The operations behind them have REST tests of their own;
 * these show the tools reach them, answer their views and audit their writes.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AuditEntry, type Label, type Pond } from '../models/index.ts';
import { seedLabel, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { connectMcp, issueToken, setInstanceSwitches, setPondSwitches, toolError, toolResult } from '../testing/mcpClient.ts';
import { signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let admin: TestClient;
let owner: SignedIn;
let pond: Pond;
let secret: string;
let mcp: Client;

before(async () => {
  instance = await startTestInstance();
  admin = await completeSetup(instance);
  [owner] = (await signInUsers(instance, 1)) as [SignedIn];
  pond = await seedSharedPond(owner.user.id, 'Orchard');
  await setInstanceSwitches(admin, { mcp: true });
  await setPondSwitches(owner.client, pond.id, { mcp: true });
  secret = await issueToken(instance, owner.user.id, { scope: 'write' });
  mcp = await connectMcp(instance, secret);
});

after(async () => {
  await mcp.close();
  await instance.close();
});

beforeEach(() => instance.services.sequelize.query(`DELETE FROM rate_limit_counters WHERE key LIKE 'pat:%'`));

const create = (title: string, markdown: string, parent?: string) => toolResult(mcp, 'create_page', { pond: pond.slug, title, markdown, ...(parent ? { parent } : {}) });

async function lastMcpWrite(): Promise<Record<string, unknown> | undefined> {
  return (await AuditEntry.findOne({ where: { action: 'api.write' }, order: [['id', 'DESC']] }))?.details;
}

describe('search', () => {
  test('hits with ** around the matches, the parent slug and the url; limit and cursor page through them', async () => {
    const garden = await create('Garden', 'Where the trees grow.\n');
    const apples = await create('Apple trees', 'We planted three apple trees in spring.\n', garden.slug);
    await create('Apple pie', 'An apple pie recipe.\n');
    const { items, nextCursor } = await toolResult(mcp, 'search', { pond: pond.slug, query: 'apple' });
    assert.equal(nextCursor, null);
    const hit = items.find((item: { id: string }) => item.id === apples.id);
    assert.equal(hit.slug, apples.slug);
    assert.equal(hit.title, 'Apple trees');
    assert.equal(hit.snippet, 'We planted three **apple** trees in spring.');
    assert.equal(hit.parent, garden.slug);
    assert.equal(hit.url, apples.url);
    const first = await toolResult(mcp, 'search', { pond: pond.slug, query: 'apple', limit: 1 });
    assert.equal(first.items.length, 1);
    assert.equal(typeof first.nextCursor, 'string');
    const second = await toolResult(mcp, 'search', { pond: pond.slug, query: 'apple', limit: 1, cursor: first.nextCursor });
    assert.equal(second.items.length, 1);
    assert.notEqual(second.items[0].id, first.items[0].id);
    assert.deepEqual((await toolResult(mcp, 'search', { pond: pond.slug, query: 'zeppelin' })).items, []);
  });

  test('an empty query is refused by the input schema', async () => {
    assert.match((await toolError(mcp, 'search', { pond: pond.slug, query: '  ' })).message, /query/);
  });
});

describe('labels', () => {
  let fruit: Label;
  let apple: Label;
  let pear: Label;

  before(async () => {
    fruit = await seedLabel(pond.id, 'Fruit');
    apple = await seedLabel(pond.id, 'Apple', { parentId: fruit.id });
    pear = await seedLabel(pond.id, 'Pear', { parentId: fruit.id });
  });

  test('list_labels: the tree with children', async () => {
    const { items } = await toolResult(mcp, 'list_labels', { pond: pond.slug });
    const root = items.find((item: { id: string }) => item.id === fruit.id);
    assert.equal(root.name, 'Fruit');
    assert.deepEqual(root.children.map((child: { name: string }) => child.name), ['Apple', 'Pear']);
    assert.equal(root.children[0].parentId, fruit.id);
  });

  test('set_page_labels replaces exactly: by ids, then by a name, then none', async () => {
    const page = await create('Basket', 'Fruit in a basket.\n');
    const both = await toolResult(mcp, 'set_page_labels', { pond: pond.slug, page: page.slug, labels: [apple.id, pear.id] });
    assert.equal(both.page, page.slug);
    assert.deepEqual(both.labels.map((label: { id: string }) => label.id).sort(), [apple.id, pear.id].sort());
    const audited = await lastMcpWrite();
    assert.deepEqual({ tool: audited?.tool, page: audited?.page }, { tool: 'set_page_labels', page: page.slug });
    const byName = await toolResult(mcp, 'set_page_labels', { pond: pond.slug, page: page.slug, labels: ['Pear'] });
    assert.deepEqual(byName.labels.map((label: { id: string }) => label.id), [pear.id]);
    assert.deepEqual((await toolResult(mcp, 'read_page', { pond: pond.slug, page: page.slug })).labels.map((label: { id: string }) => label.id), [pear.id]);
    assert.deepEqual((await toolResult(mcp, 'set_page_labels', { pond: pond.slug, page: page.slug, labels: [] })).labels, []);
  });

  test('an unknown label or a name two labels carry is refused and changes nothing', async () => {
    const page = await create('Crate', 'A crate.\n');
    await toolResult(mcp, 'set_page_labels', { pond: pond.slug, page: page.slug, labels: [apple.id] });
    const twin = await seedLabel(pond.id, 'Apple');
    try {
      for (const labels of [['No such label'], ['Apple'], ['00000000-0000-4000-8000-000000000000']]) {
        const error = await toolError(mcp, 'set_page_labels', { pond: pond.slug, page: page.slug, labels });
        assert.ok(['validation_failed', 'not_found'].includes(error.code), `${labels}: ${error.code}`);
      }
      assert.deepEqual((await toolResult(mcp, 'read_page', { pond: pond.slug, page: page.slug })).labels.map((label: { id: string }) => label.id), [apple.id]);
    } finally {
      await twin.destroy();
    }
  });
});

describe('comments', () => {
  test('add_comment starts a thread and replies in it; audited with the page', async () => {
    const page = await create('Discussed', 'Talk about me.\n');
    const root = await toolResult(mcp, 'add_comment', { pond: pond.slug, page: page.slug, body: 'Is this **right**?' });
    assert.equal(root.pageId, page.id);
    assert.equal(root.parentId, null);
    assert.equal(root.body, 'Is this **right**?');
    assert.equal(root.author.id, owner.user.id);
    const reply = await toolResult(mcp, 'add_comment', { pond: pond.slug, page: page.slug, body: 'Yes.', reply_to: root.id });
    assert.equal(reply.parentId, root.id);
    const audited = await lastMcpWrite();
    assert.equal(audited?.tool, 'add_comment');
    assert.equal(audited?.page, page.slug);
    // The app shows the thread with its reply, as it shows one written there.
    const threads = await owner.client.get(`/pages/${page.id}/comments`);
    assert.equal(threads.status, 200, threads.text);
    assert.deepEqual(
      threads.body.items.map((thread: { id: string; replies: { id: string }[] }) => [thread.id, thread.replies.map((item) => item.id)]),
      [[root.id, [reply.id]]],
    );
  });

  test('an empty body is refused with the comment rule, a reply to an unknown comment too', async () => {
    const page = await create('Quiet', 'Nothing to say.\n');
    assert.equal((await toolError(mcp, 'add_comment', { pond: pond.slug, page: page.slug, body: '   ' })).code, 'comment_empty');
    const unknownParent = await toolError(mcp, 'add_comment', { pond: pond.slug, page: page.slug, body: 'Hm', reply_to: '00000000-0000-4000-8000-000000000000' });
    assert.notEqual(unknownParent.code, 'internal_error');
  });
});

describe('export', () => {
  test('export_pond returns the REST ZIP link once REST is on for the instance and the pond, and the same token downloads it', async () => {
    await create('Exported', 'In the archive.\n');
    // The link would be refused while REST is off: the tool says so instead of handing it out.
    assert.equal((await toolError(mcp, 'export_pond', { pond: pond.slug })).code, 'api_disabled');
    await setInstanceSwitches(admin, { api: true });
    try {
      const pondClosed = await toolError(mcp, 'export_pond', { pond: pond.slug });
      assert.equal(pondClosed.code, 'not_found');
      assert.deepEqual(pondClosed.details, { pond: pond.slug });
      await setPondSwitches(owner.client, pond.id, { api: true });
      const { url } = await toolResult(mcp, 'export_pond', { pond: pond.slug });
      assert.equal(url, `${instance.baseUrl}/api/public/v1/ponds/${pond.slug}/export.zip`);
      const response = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/zip');
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK');
    } finally {
      await setPondSwitches(owner.client, pond.id, { api: false });
      await setInstanceSwitches(admin, { api: false });
    }
  });

  test('export_pond for a pond the token cannot reach is refused, not a dead link', async () => {
    assert.equal((await toolError(mcp, 'export_pond', { pond: 'no-such-pond' })).code, 'not_found');
  });
});
