/**
 * Pages through the public REST API (spec: Public REST API, page rules): the list with
 * `parent`, `createdSince` and `updatedSince`; reading as Markdown and HTML; creating from
 * Markdown under a parent; PATCH of title, content (a `MANUAL` version "API update"), the
 * explicit append, and `parent` (null to the top level, appended at the end of the new group;
 * 409 `page_cycle`; 404 for an unknown parent); DELETE to the trash. Every answer is checked
 * against the OpenAPI document by the client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pond } from '../../models/index.ts';
import { seedSharedPond } from '../../testing/accessFixtures.ts';
import { completeSetup } from '../../testing/fixtures.ts';
import { signInUsers, type SignedIn } from '../../testing/pondTestSetup.ts';
import { PublicApiClient } from '../../testing/publicApiClient.ts';
import { issueToken, setInstanceSwitches, setPondSwitches } from '../../testing/publicApiFixtures.ts';
import { startTestInstance, type TestInstance } from '../../testing/testInstance.ts';

let instance: TestInstance;
let owner: SignedIn;
let pond: Pond;
let api: PublicApiClient;

before(async () => {
  instance = await startTestInstance();
  await completeSetup(instance);
  [owner] = (await signInUsers(instance, 1)) as [SignedIn];
  pond = await seedSharedPond(owner.user.id, 'Handbook');
  await setInstanceSwitches(instance, { api: true });
  await setPondSwitches(pond.id, { api: true });
  api = new PublicApiClient(instance.baseUrl, (await issueToken(instance, owner.user.id)).secret);
});

after(() => instance.close());

const pagesPath = () => `/ponds/${pond.slug}/pages`;
const pagePath = (slug: string) => `/ponds/${pond.slug}/pages/${slug}`;

async function create(body: Record<string, unknown>): Promise<any> {
  const response = await api.post(pagesPath(), body);
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

async function childSlugs(parent: string | null): Promise<string[]> {
  const response = await api.get(`${pagesPath()}?limit=1000${parent ? `&parent=${parent}` : ''}`);
  assert.equal(response.status, 200);
  return response.body.items.filter((item: any) => item.parent === parent).map((item: any) => item.slug);
}

describe('create and read', () => {
  test('a page from Markdown, read back as Markdown and as HTML', async () => {
    const created = await create({ title: 'Getting started', markdown: '# Hello\n\nSome **bold** words.\n' });
    assert.equal(created.title, 'Getting started');
    assert.equal(created.parent, null);
    assert.equal(created.format, 'markdown');
    assert.match(created.content, /Some \*\*bold\*\* words\./);
    assert.equal(created.url, `${instance.baseUrl}/${pond.slug}/${created.slug}`);
    const html = await api.get(`${pagePath(created.slug)}?format=html`);
    assert.equal(html.status, 200);
    assert.equal(html.body.format, 'html');
    assert.match(html.body.content, /<strong>bold<\/strong>/);
    const markdown = await api.get(pagePath(created.slug));
    assert.equal(markdown.body.content, created.content);
  });

  test('create under a parent by slug; an unknown parent is 404 and creates nothing', async () => {
    const parent = await create({ title: 'Guides' });
    const child = await create({ title: 'Install', parent: parent.slug });
    assert.equal(child.parent, parent.slug);
    const before = (await api.get(`${pagesPath()}?limit=1000`)).body.items.length;
    const refused = await api.post(pagesPath(), { title: 'Orphan', parent: 'no-such-page' });
    assert.equal(refused.status, 404);
    assert.equal((await api.get(`${pagesPath()}?limit=1000`)).body.items.length, before);
  });

  test('a bad format or body is a 400 validation_failed naming the field', async () => {
    const badFormat = await api.get(`${pagePath('anything')}?format=pdf`);
    assert.equal(badFormat.status, 400);
    const noTitle = await api.post(pagesPath(), { markdown: 'x' });
    assert.equal(noTitle.status, 400);
    assert.equal(noTitle.body.error.code, 'validation_failed');
  });
});

describe('list', () => {
  test('parent filters to the children; createdSince and updatedSince bound the list; cursor pages through', async () => {
    const folder = await create({ title: 'Folder' });
    const first = await create({ title: 'First child', parent: folder.slug });
    const second = await create({ title: 'Second child', parent: folder.slug });
    const children = await api.get(`${pagesPath()}?parent=${folder.slug}`);
    assert.deepEqual(children.body.items.map((item: any) => item.slug), [first.slug, second.slug]);
    assert.ok(children.body.items.every((item: any) => item.parent === folder.slug));

    const since = await api.get(`${pagesPath()}?createdSince=${encodeURIComponent(second.createdAt)}`);
    assert.ok(since.body.items.some((item: any) => item.slug === second.slug));
    assert.ok(!since.body.items.some((item: any) => item.slug === folder.slug));

    await api.patch(pagePath(first.slug), { title: 'First child, renamed' });
    const changed = (await api.get(pagePath(first.slug))).body.updatedAt;
    const updated = await api.get(`${pagesPath()}?updatedSince=${encodeURIComponent(changed)}`);
    assert.deepEqual(updated.body.items.map((item: any) => item.slug), [first.slug]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: any = await api.get(`${pagesPath()}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.ok(response.body.items.length <= 2);
      seen.push(...response.body.items.map((item: any) => item.slug));
      cursor = response.body.nextCursor;
    } while (cursor);
    const all = (await api.get(`${pagesPath()}?limit=1000`)).body.items.map((item: any) => item.slug);
    assert.deepEqual(seen, all);
    assert.equal((await api.get(`${pagesPath()}?parent=no-such-page`)).status, 404);
  });
});

describe('change', () => {
  test('content replaces the body and stores a MANUAL version labelled "API update"', async () => {
    const page = await create({ title: 'Replace me', markdown: 'Old text.\n' });
    const response = await api.patch(pagePath(page.slug), { content: 'New text.\n' });
    assert.equal(response.status, 200);
    assert.equal(response.body.content.trim(), 'New text.');
    const versions = await instance.services.sequelize.query<{ trigger: string; label: string | null }>(`SELECT trigger, label FROM page_versions WHERE page_id = :id ORDER BY created_at`, {
      replacements: { id: page.id },
      type: 'SELECT' as never,
    });
    assert.ok(versions.some((version) => version.trigger === 'MANUAL' && version.label === 'API update'), JSON.stringify(versions));
  });

  test('append adds to the end and never replaces; content and append together are refused', async () => {
    const page = await create({ title: 'Append to me', markdown: 'First paragraph.\n' });
    const appended = await api.patch(pagePath(page.slug), { append: 'Second paragraph.\n' });
    assert.equal(appended.status, 200);
    assert.match(appended.body.content, /First paragraph\.\s+Second paragraph\./);
    const both = await api.patch(pagePath(page.slug), { content: 'x', append: 'y' });
    assert.equal(both.status, 400);
    assert.match((await api.get(pagePath(page.slug))).body.content, /First paragraph\.\s+Second paragraph\./);
  });

  test('parent nests at the end of the new group, null moves to the top level; a cycle is 409 page_cycle; an unknown parent 404', async () => {
    const root = await create({ title: 'Root' });
    const existing = await create({ title: 'Existing child', parent: root.slug });
    const moving = await create({ title: 'Moving' });
    const nested = await api.patch(pagePath(moving.slug), { parent: root.slug });
    assert.equal(nested.status, 200);
    assert.equal(nested.body.parent, root.slug);
    assert.deepEqual(await childSlugs(root.slug), [existing.slug, moving.slug]);

    const cycle = await api.patch(pagePath(root.slug), { parent: moving.slug });
    assert.equal(cycle.status, 409);
    assert.equal(cycle.body.error.code, 'page_cycle');
    const unknown = await api.patch(pagePath(moving.slug), { parent: 'no-such-page', title: 'Not renamed' });
    assert.equal(unknown.status, 404);
    assert.equal((await api.get(pagePath(moving.slug))).body.title, 'Moving', 'nothing changes when the parent is unknown');

    const top = await api.patch(pagePath(moving.slug), { parent: null });
    assert.equal(top.body.parent, null);
    const topLevel = await childSlugs(null);
    assert.equal(topLevel.at(-1), moving.slug, 'appended at the end of the top level');
  });

  test('DELETE moves the page to the trash: it is gone from reads and lists', async () => {
    const page = await create({ title: 'Trash me' });
    const response = await api.delete(pagePath(page.slug));
    assert.equal(response.status, 204);
    assert.equal((await api.get(pagePath(page.slug))).status, 404);
    assert.ok(!(await api.get(`${pagesPath()}?limit=1000`)).body.items.some((item: any) => item.slug === page.slug));
    const [row] = await instance.services.sequelize.query<{ trashed_at: Date | null }>(`SELECT trashed_at FROM pages WHERE id = :id`, { replacements: { id: page.id }, type: 'SELECT' as never });
    assert.ok(row?.trashed_at, 'trashed, not deleted');
  });
});
