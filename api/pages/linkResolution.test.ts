/**
 * The life of a wikilink through HTTP: a link to a missing page is a phantom; creating the
 * page resolves it (a backlink); changing the slug turns it back into a phantom and resolves
 * links to the new slug; trash (promote and subtree) makes links phantoms, restore resolves
 * them again, purge leaves phantoms. Pages created with a Markdown body have their document
 * log, caches and links from birth.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { documentToMarkdown, markdownToDocument, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { loadDocumentState, transactionClient } from '../documents/documentLog.ts';
import { Page } from '../models/index.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';

describe('link resolution', () => {
  const cast = usePondCast();

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return cast.instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  async function createPage(pondId: string, body: { title: string; slug?: string; markdown?: string; parentId?: string }, client: TestClient = cast.editor.client) {
    const response = await client.post(`/ponds/${pondId}/pages`, body);
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; slug: string };
  }

  async function phantomSlugs(pondId: string): Promise<string[]> {
    const response = await cast.editor.client.get(`/ponds/${pondId}/phantom-links`);
    assert.equal(response.status, 200, response.text);
    return response.body.items.map((item: { targetSlug: string }) => item.targetSlug);
  }

  async function backlinkIds(pageId: string): Promise<string[]> {
    const response = await cast.editor.client.get(`/pages/${pageId}/backlinks`);
    assert.equal(response.status, 200, response.text);
    return response.body.items.map((item: { page: { id: string } }) => item.page.id);
  }

  async function targetOf(sourceId: string, targetSlug: string): Promise<string | null | undefined> {
    const rows = await sql<{ target_page_id: string | null }>(`SELECT target_page_id FROM page_links WHERE source_page_id = :sourceId AND target_slug = :targetSlug`, { sourceId, targetSlug });
    return rows.length === 0 ? undefined : rows[0]!.target_page_id;
  }

  const trash = (pageId: string, mode = 'promote') => cast.editor.client.request('DELETE', `/pages/${pageId}?mode=${mode}`);
  const restore = (pageId: string) => cast.editor.client.post(`/pages/${pageId}/restore`);
  const purge = (pageId: string) => cast.editor.client.request('DELETE', `/pages/${pageId}/purge`);

  test('a page created with Markdown has its log row, caches and links from birth; initial_markdown stays empty', async () => {
    const pond = await cast.seedTeamPond();
    const markdown = '# Start\n\nSee [[Nowhere]] and myself: [[self-made]].\n';
    const page = await createPage(pond.id, { title: 'Self made', slug: 'self-made', markdown });
    const stored = await Page.findByPk(page.id);
    assert.equal(stored!.initialMarkdown, null);
    const state = await cast.instance.services.sequelize.transaction(async (transaction) => loadDocumentState(transactionClient(transaction), page.id));
    const expected = documentToMarkdown(markdownToDocument(markdown));
    assert.equal(documentToMarkdown(yjsUpdateToDocument(state.state)), expected);
    assert.deepEqual(await sql(`SELECT count(*)::int AS rows FROM page_updates WHERE page_id = :id`, { id: page.id }), [{ rows: 1 }]);
    assert.deepEqual(await sql(`SELECT markdown FROM page_contents WHERE page_id = :id`, { id: page.id }), [{ markdown: expected }]);
    assert.equal(await targetOf(page.id, 'Nowhere'), null);
    assert.equal(await targetOf(page.id, 'self-made'), page.id);
    assert.deepEqual(await phantomSlugs(pond.id), ['nowhere']);
    assert.deepEqual(await backlinkIds(page.id), [page.id]);
    const [vector] = await sql<{ vector: string }>(`SELECT search_vector::text AS vector FROM pages WHERE id = :id`, { id: page.id });
    assert.match(vector!.vector, /'start':\d+C/);

    // Without a body: an empty document, still with a log row and caches.
    const empty = await createPage(pond.id, { title: 'Empty' });
    assert.deepEqual(await sql(`SELECT count(*)::int AS rows FROM page_updates WHERE page_id = :id`, { id: empty.id }), [{ rows: 1 }]);
    assert.deepEqual(await sql(`SELECT markdown, plain_text, word_count FROM page_contents WHERE page_id = :id`, { id: empty.id }), [{ markdown: '', plain_text: '', word_count: 0 }]);
  });

  test('phantom → created (backlink) → slug changed (phantom again, the new slug resolves) → back', async () => {
    const pond = await cast.seedTeamPond();
    const source = await createPage(pond.id, { title: 'Source', markdown: 'Waiting for [[Missing]].\n' });
    const other = await createPage(pond.id, { title: 'Other', markdown: 'Points at [[renamed]].\n' });
    assert.deepEqual(await phantomSlugs(pond.id), ['missing', 'renamed']);

    const created = await createPage(pond.id, { title: 'The missing page', slug: 'missing' });
    assert.equal(await targetOf(source.id, 'Missing'), created.id);
    assert.deepEqual(await phantomSlugs(pond.id), ['renamed']);
    assert.deepEqual(await backlinkIds(created.id), [source.id]);

    const renamed = await cast.editor.client.patch(`/pages/${created.id}`, { slug: 'renamed' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(await targetOf(source.id, 'Missing'), null);
    assert.equal(await targetOf(other.id, 'renamed'), created.id);
    assert.deepEqual(await phantomSlugs(pond.id), ['missing']);
    assert.deepEqual(await backlinkIds(created.id), [other.id]);

    // A rename of the title alone leaves the links as they are.
    assert.equal((await cast.editor.client.patch(`/pages/${created.id}`, { title: 'New title' })).status, 200);
    assert.equal(await targetOf(other.id, 'renamed'), created.id);

    assert.equal((await cast.editor.client.patch(`/pages/${created.id}`, { slug: 'missing' })).status, 200);
    assert.equal(await targetOf(source.id, 'Missing'), created.id);
    assert.equal(await targetOf(other.id, 'renamed'), null);
    assert.deepEqual(await phantomSlugs(pond.id), ['renamed']);
  });

  test('trash (promote) makes links phantoms, restore resolves them again', async () => {
    const pond = await cast.seedTeamPond();
    const target = await createPage(pond.id, { title: 'Target', slug: 'target' });
    const child = await createPage(pond.id, { title: 'Child', slug: 'child', parentId: target.id });
    const source = await createPage(pond.id, { title: 'Source', markdown: '[[target]] and [[child]]\n' });
    assert.equal(await targetOf(source.id, 'target'), target.id);

    assert.equal((await trash(target.id)).status, 200);
    assert.equal(await targetOf(source.id, 'target'), null);
    // Promote trashes the page only: its child stays live and linked.
    assert.equal(await targetOf(source.id, 'child'), child.id);
    assert.deepEqual(await phantomSlugs(pond.id), ['target']);

    assert.equal((await restore(target.id)).status, 200);
    assert.equal(await targetOf(source.id, 'target'), target.id);
    assert.deepEqual(await phantomSlugs(pond.id), []);
    assert.deepEqual(await backlinkIds(target.id), [source.id]);
  });

  test('subtree trash makes links to every trashed page phantoms; restore resolves them all; a trashed source drops out', async () => {
    const pond = await cast.seedTeamPond();
    const parent = await createPage(pond.id, { title: 'Parent', slug: 'parent' });
    const child = await createPage(pond.id, { title: 'Child', slug: 'child', parentId: parent.id, markdown: 'Up to [[parent]].\n' });
    const source = await createPage(pond.id, { title: 'Source', markdown: '[[parent]] and [[child]]\n' });

    const trashed = await trash(parent.id, 'subtree');
    assert.equal(trashed.status, 200, trashed.text);
    assert.equal(await targetOf(source.id, 'parent'), null);
    assert.equal(await targetOf(source.id, 'child'), null);
    // The trashed child's own link is a phantom too, but a trashed referrer is not listed.
    assert.equal(await targetOf(child.id, 'parent'), null);
    const phantoms = await cast.editor.client.get(`/ponds/${pond.id}/phantom-links`);
    assert.deepEqual(
      phantoms.body.items.map((item: { targetSlug: string; referrers: { page: { id: string } }[] }) => [item.targetSlug, item.referrers.map((referrer) => referrer.page.id)]),
      [['child', [source.id]], ['parent', [source.id]]],
    );

    assert.equal((await restore(parent.id)).status, 200);
    assert.equal(await targetOf(source.id, 'parent'), parent.id);
    assert.equal(await targetOf(source.id, 'child'), child.id);
    assert.equal(await targetOf(child.id, 'parent'), parent.id);
    assert.deepEqual((await backlinkIds(parent.id)).sort(), [child.id, source.id].sort());
  });

  test('purge leaves the links as phantoms (the foreign key sets the target null)', async () => {
    const pond = await cast.seedTeamPond();
    const target = await createPage(pond.id, { title: 'Doomed', slug: 'doomed' });
    const source = await createPage(pond.id, { title: 'Source', markdown: 'To [[doomed]].\n' });
    assert.equal((await trash(target.id)).status, 200);
    assert.equal((await purge(target.id)).status, 204);
    assert.equal(await targetOf(source.id, 'doomed'), null);
    assert.deepEqual(await phantomSlugs(pond.id), ['doomed']);
    // A new page with the slug picks the phantom up.
    const reborn = await createPage(pond.id, { title: 'Reborn', slug: 'doomed' });
    assert.equal(await targetOf(source.id, 'doomed'), reborn.id);
  });

  test('links resolve only within their pond', async () => {
    const pond = await cast.seedTeamPond();
    const otherPond = await cast.seedTeamPond();
    const source = await createPage(pond.id, { title: 'Source', markdown: '[[shared-name]]\n' });
    const elsewhere = await createPage(otherPond.id, { title: 'Elsewhere', slug: 'shared-name' });
    assert.equal(await targetOf(source.id, 'shared-name'), null);
    assert.deepEqual(await backlinkIds(elsewhere.id), []);
    assert.deepEqual(await phantomSlugs(pond.id), ['shared-name']);
    assert.deepEqual(await phantomSlugs(otherPond.id), []);
  });
});
