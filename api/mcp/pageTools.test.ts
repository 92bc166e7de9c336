/**
 * The page tools over MCP (spec: MCP endpoint): `list_ponds`, `list_pages` with `parent`
 * slugs, `created_since`, `updated_since` and paging; `read_page` as Markdown and HTML;
 * `create_page` under a parent slug; `update_page` with title, content replaced or appended
 * (`mode` required with content), `parent` slug or null; the permission model behind a write
 * token; `api.write` audit entries naming tool, pond and page.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AuditEntry, Page, type Pond } from '../models/index.ts';
import { seedGrant, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { connectMcp, issueToken, setInstanceSwitches, setPondSwitches, toolError, toolResult } from '../testing/mcpClient.ts';
import { signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let owner: SignedIn;
let reader: SignedIn;
let pond: Pond;
let mcp: Client;
let readerMcp: Client;

before(async () => {
  instance = await startTestInstance();
  const admin = await completeSetup(instance);
  [owner, reader] = (await signInUsers(instance, 2)) as [SignedIn, SignedIn];
  pond = await seedSharedPond(owner.user.id, 'Handbook');
  await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader' });
  await setInstanceSwitches(admin, { mcp: true });
  await setPondSwitches(owner.client, pond.id, { mcp: true });
  mcp = await connectMcp(instance, await issueToken(instance, owner.user.id, { scope: 'write' }));
  readerMcp = await connectMcp(instance, await issueToken(instance, reader.user.id, { scope: 'write' }));
});

after(async () => {
  await Promise.all([mcp.close(), readerMcp.close()]);
  await instance.close();
});

beforeEach(() => instance.services.sequelize.query(`DELETE FROM rate_limit_counters WHERE key LIKE 'pat:%'`));

const create = (args: Record<string, unknown>) => toolResult(mcp, 'create_page', { pond: pond.slug, ...args });
const update = (page: string, args: Record<string, unknown>) => toolResult(mcp, 'update_page', { pond: pond.slug, page, ...args });
const read = (page: string, format?: 'markdown' | 'html') => toolResult(mcp, 'read_page', { pond: pond.slug, page, ...(format ? { format } : {}) });

async function mcpWrites(): Promise<Record<string, unknown>[]> {
  return (await AuditEntry.findAll({ where: { action: 'api.write' }, order: [['id', 'ASC']] })).map((entry) => entry.details);
}

describe('reading', () => {
  test('list_ponds: the pond with its slug and id', async () => {
    const { items } = await toolResult(mcp, 'list_ponds');
    const listed = items.find((item: { slug: string }) => item.slug === pond.slug);
    assert.equal(listed?.id, pond.id);
    assert.equal(listed?.name, 'Handbook');
  });

  test('create_page from Markdown, read back as Markdown and as HTML', async () => {
    const created = await create({ title: 'Getting started', markdown: '# Hello\n\nSome **bold** words.\n' });
    assert.equal(created.title, 'Getting started');
    assert.equal(created.parent, null);
    assert.match(created.content, /Some \*\*bold\*\* words\./);
    assert.equal(created.url, `${instance.baseUrl}/${pond.slug}/${created.slug}`);
    const markdown = await read(created.slug);
    assert.equal(markdown.format, 'markdown');
    assert.equal(markdown.id, created.id);
    assert.equal(markdown.content, created.content);
    const html = await read(created.slug, 'html');
    assert.equal(html.format, 'html');
    assert.match(html.content, /<strong>bold<\/strong>/);
  });

  test('list_pages: parent slugs, the parent filter, created_since and updated_since', async () => {
    const parent = await create({ title: 'Guides' });
    const child = await create({ title: 'Install', parent: parent.slug });
    assert.equal(child.parent, parent.slug);
    const all = await toolResult(mcp, 'list_pages', { pond: pond.slug });
    assert.equal(all.items.find((item: { slug: string }) => item.slug === child.slug)?.parent, parent.slug);
    const children = await toolResult(mcp, 'list_pages', { pond: pond.slug, parent: parent.slug });
    assert.deepEqual(children.items.map((item: { slug: string }) => item.slug), [child.slug]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.deepEqual((await toolResult(mcp, 'list_pages', { pond: pond.slug, created_since: future })).items, []);
    assert.deepEqual((await toolResult(mcp, 'list_pages', { pond: pond.slug, updated_since: future })).items, []);
    const sinceChild = await toolResult(mcp, 'list_pages', { pond: pond.slug, created_since: child.createdAt });
    assert.ok(sinceChild.items.some((item: { slug: string }) => item.slug === child.slug));
  });

  test('list_pages pages with limit and cursor through the whole list', async () => {
    const everything = (await toolResult(mcp, 'list_pages', { pond: pond.slug, limit: 1000 })).items.map((item: { slug: string }) => item.slug);
    assert.ok(everything.length >= 3);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { slug: string }[]; nextCursor: string | null } = await toolResult(mcp, 'list_pages', { pond: pond.slug, limit: 2, ...(cursor ? { cursor } : {}) });
      assert.ok(page.items.length <= 2);
      paged.push(...page.items.map((item) => item.slug));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(paged, everything);
  });

  test('bad arguments are refused by the input schema, naming the field', async () => {
    assert.match((await toolError(mcp, 'read_page', { pond: pond.slug, page: 'x', format: 'pdf' })).message, /format/);
    assert.match((await toolError(mcp, 'list_pages', { pond: pond.slug, cursor: 'not-a-cursor' })).message, /cursor/);
    assert.match((await toolError(mcp, 'list_pages', { pond: pond.slug, created_since: 'yesterday' })).message, /created_since/);
    assert.match((await toolError(mcp, 'create_page', { pond: pond.slug, title: 'A\u0000B' })).message, /title/);
  });

  test('an unknown page and an unknown pond are not_found', async () => {
    assert.equal((await toolError(mcp, 'read_page', { pond: pond.slug, page: 'no-such-page' })).code, 'not_found');
    assert.equal((await toolError(mcp, 'list_pages', { pond: 'no-such-pond' })).code, 'not_found');
  });
});

describe('writing', () => {
  test('create_page under an unknown parent is not_found and creates nothing', async () => {
    const before = await Page.count({ where: { pondId: pond.id } });
    assert.equal((await toolError(mcp, 'create_page', { pond: pond.slug, title: 'Orphan', parent: 'no-such-page' })).code, 'not_found');
    assert.equal(await Page.count({ where: { pondId: pond.id } }), before);
  });

  test("update_page: the title, and content with mode 'replace'", async () => {
    const page = await create({ title: 'Draft', markdown: 'Old words.\n' });
    const renamed = await update(page.slug, { title: 'Final' });
    assert.equal(renamed.title, 'Final');
    assert.equal(renamed.slug, page.slug);
    const replaced = await update(page.slug, { content: 'New words.\n', mode: 'replace' });
    assert.match(replaced.content, /New words\./);
    assert.doesNotMatch(replaced.content, /Old words\./);
    assert.equal((await read(page.slug)).content, replaced.content);
  });

  test("update_page with mode 'append' keeps the old content and adds the new after it", async () => {
    const page = await create({ title: 'Log', markdown: 'First entry.\n' });
    const appended = await update(page.slug, { content: 'Second entry.\n', mode: 'append' });
    assert.match(appended.content, /First entry\.[\s\S]*Second entry\./);
    assert.match((await read(page.slug)).content, /First entry\.[\s\S]*Second entry\./);
  });

  test('update_page refuses content without mode (and mode without content, and no change at all); nothing changes', async () => {
    const page = await create({ title: 'Careful', markdown: 'Keep me.\n' });
    const noMode = await toolError(mcp, 'update_page', { pond: pond.slug, page: page.slug, content: 'Lost?' });
    assert.match(noMode.message, /mode is required when content is given/);
    assert.match((await toolError(mcp, 'update_page', { pond: pond.slug, page: page.slug, mode: 'append' })).message, /mode needs content/);
    assert.match((await toolError(mcp, 'update_page', { pond: pond.slug, page: page.slug })).message, /nothing to change/);
    assert.match((await read(page.slug)).content, /Keep me\./);
  });

  test('update_page moves a page: parent slug nests it at the end, null moves it to the top level; a cycle is page_cycle', async () => {
    const folder = await create({ title: 'Folder' });
    const first = await create({ title: 'First', parent: folder.slug });
    const moved = await create({ title: 'Moved' });
    assert.equal((await update(moved.slug, { parent: folder.slug })).parent, folder.slug);
    const children = (await toolResult(mcp, 'list_pages', { pond: pond.slug, parent: folder.slug })).items.map((item: { slug: string }) => item.slug);
    assert.deepEqual(children, [first.slug, moved.slug]);
    assert.equal((await update(moved.slug, { parent: null })).parent, null);
    assert.equal((await toolError(mcp, 'update_page', { pond: pond.slug, page: folder.slug, parent: first.slug })).code, 'page_cycle');
    assert.equal((await toolError(mcp, 'update_page', { pond: pond.slug, page: moved.slug, parent: 'no-such-page' })).code, 'not_found');
  });

  test('the permission model still applies behind a write token: a reader may read but not write (forbidden)', async () => {
    const page = await create({ title: 'Readable' });
    assert.equal((await toolResult(readerMcp, 'read_page', { pond: pond.slug, page: page.slug })).title, 'Readable');
    assert.equal((await toolError(readerMcp, 'update_page', { pond: pond.slug, page: page.slug, title: 'Mine now' })).code, 'forbidden');
    assert.equal((await toolError(readerMcp, 'create_page', { pond: pond.slug, title: 'Mine' })).code, 'forbidden');
    assert.equal((await read(page.slug)).title, 'Readable');
  });

  test('every successful write tool call is audited as api.write with the token, tool, pond and page; a refused one is not', async () => {
    const before = (await mcpWrites()).length;
    const page = await create({ title: 'Audited' });
    await update(page.slug, { title: 'Audited twice' });
    await toolError(readerMcp, 'update_page', { pond: pond.slug, page: page.slug, title: 'Refused' });
    const entries = (await mcpWrites()).slice(before);
    assert.equal(entries.length, 2);
    assert.deepEqual(
      entries.map(({ channel, tool, pond: pondSlug, page: pageSlug }) => ({ channel, tool, pond: pondSlug, page: pageSlug })),
      [
        { channel: 'mcp', tool: 'create_page', pond: pond.slug, page: page.slug },
        { channel: 'mcp', tool: 'update_page', pond: pond.slug, page: page.slug },
      ],
    );
    assert.ok(entries.every((entry) => typeof entry.tokenId === 'string' && entry.tokenName === 'mcp write'));
    const actors = await AuditEntry.findAll({ where: { action: 'api.write' }, order: [['id', 'DESC']], limit: 2 });
    assert.ok(actors.every((entry) => entry.actorId === owner.user.id));
  });
});
