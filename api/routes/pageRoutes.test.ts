/**
 * Pages, the basic part, through HTTP: creating (slugs, parents, depth, positions, races),
 * reading and renaming, with every refusal. The pond's page list: pages/pageListing.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { documentToMarkdown, markdownToDocument, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { Page, Pond } from '../models/index.ts';
import { invalidateAllPondAccess } from '../policies/pondAccessCache.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels } from '../testing/accessFixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, PAGE_VIEW_KEYS, usePondCast } from '../testing/pondTestSetup.ts';

const DETAIL_VIEW_KEYS = [...PAGE_VIEW_KEYS, 'canWrite', 'labelIds', 'pond', 'publicRead'].sort();

describe('pages', () => {
  const cast = usePondCast();

  async function searchVectorOf(pageId: string): Promise<string | null> {
    const rows = await cast.instance.services.sequelize.query<{ vector: string | null }>(`SELECT search_vector::text AS vector FROM pages WHERE id = :pageId`, {
      replacements: { pageId },
      type: QueryTypes.SELECT,
    });
    return rows[0]?.vector ?? null;
  }

  describe('POST /ponds/:id/pages', () => {
    test('creates a root page: 201 with the detail view, derived slug, creator, search vector', async () => {
      const pond = await cast.seedTeamPond();
      const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: '  Über Größe  ' });
      assert.equal(response.status, 201, response.text);
      const view = response.body;
      assert.deepEqual(Object.keys(view).sort(), DETAIL_VIEW_KEYS);
      assert.equal(view.title, 'Über Größe');
      assert.equal(view.slug, 'ueber-groesse');
      assert.equal(view.pondId, pond.id);
      assert.equal(view.parentId, null);
      assert.equal(view.trashedAt, null);
      assert.equal(view.createdBy, cast.editor.user.id);
      assert.equal(view.updatedBy, cast.editor.user.id);
      assert.equal(typeof view.position, 'string');
      assert.ok(!Number.isNaN(Date.parse(view.createdAt)) && !Number.isNaN(Date.parse(view.updatedAt)));
      assert.deepEqual(view.labelIds, []);
      assert.equal(view.canWrite, true);
      assert.deepEqual(view.pond, { id: pond.id, slug: pond.slug, name: pond.name });
      const stored = await Page.findByPk(view.id);
      assert.ok(stored);
      assert.equal(stored.slug, 'ueber-groesse');
      assert.equal(stored.initialMarkdown, null);
      // Title words carry weight A, folded (lowercase, no diacritics) as queries are; ß is
      // kept apart as ƨ so that "Größe" and "Grösse" are two spellings (docs/search.md).
      assert.match((await searchVectorOf(view.id)) ?? '', /'groƨe':2A/);
      // The same page through GET.
      const fetched = await cast.editor.client.get(`/pages/${view.id}`);
      assert.equal(fetched.status, 200, fetched.text);
      assert.deepEqual(fetched.body, view);
    });

    test('derives -2, -3 on a repeated title and "page" from a title without letters', async () => {
      const pond = await cast.seedTeamPond();
      const slugs: string[] = [];
      for (const title of ['Über Größe', 'über größe', 'ÜBER GRÖSSE', '!!!', '???']) {
        const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title });
        assert.equal(response.status, 201, response.text);
        slugs.push(response.body.slug);
      }
      assert.deepEqual(slugs, ['ueber-groesse', 'ueber-groesse-2', 'ueber-groesse-3', 'page', 'page-2']);
    });

    test('a derived slug avoids slugs of trashed pages; slugs of other ponds do not count', async () => {
      const pond = await cast.seedTeamPond();
      const trashed = await seedPage(pond.id, 'Old', { trashed: true });
      await Page.update({ slug: 'notes' }, { where: { id: trashed.id } });
      const elsewhere = await cast.seedTeamPond();
      const other = await seedPage(elsewhere.id, 'Other');
      await Page.update({ slug: 'minutes' }, { where: { id: other.id } });
      assert.equal((await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Notes' })).body.slug, 'notes-2');
      assert.equal((await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Minutes' })).body.slug, 'minutes');
    });

    test('a given slug is normalized and must be free in the pond, case-insensitively, trashed pages included', async () => {
      const pond = await cast.seedTeamPond();
      const created = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Manual', slug: 'Handbuch-2024' });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.slug, 'handbuch-2024');
      const again = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Another manual', slug: 'HANDBUCH-2024' });
      assertError(again, 409, 'slug_taken');
      const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
      await Page.update({ slug: 'binned' }, { where: { id: trashed.id } });
      assertError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Binned again', slug: 'binned' }), 409, 'slug_taken');
      // Another pond may use the same slug.
      const elsewhere = await cast.seedTeamPond();
      assert.equal((await cast.editor.client.post(`/ponds/${elsewhere.id}/pages`, { title: 'Manual', slug: 'handbuch-2024' })).status, 201);
      assert.equal(await Page.count({ where: { pondId: pond.id } }), 2);
    });

    test('an invalid slug answers 400 naming slug', async () => {
      const pond = await cast.seedTeamPond();
      for (const slug of ['two words', 'trailing-', 'a--b', 'ümlaut', '', 'x'.repeat(81), 42]) {
        assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Title', slug }), 'slug');
      }
      assert.equal(await Page.count({ where: { pondId: pond.id } }), 0);
    });

    test('the title is required, trimmed and at most 300 characters', async () => {
      const pond = await cast.seedTeamPond();
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, {}), 'title');
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: '   ' }), 'title');
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'x'.repeat(301) }), 'title');
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 7 }), 'title');
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Fine', colour: 'red' }), '');
      assert.equal(await Page.count({ where: { pondId: pond.id } }), 0);
      const longest = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'x'.repeat(300) });
      assert.equal(longest.status, 201, longest.text);
      assert.equal(longest.body.title.length, 300);
    });

    test('the Markdown body becomes the document (first log row, caches) at creation; over 1,000,000 characters answers 400', async () => {
      const pond = await cast.seedTeamPond();
      const markdown = '# Heading\n\nSome *text* with [[a-link]].\n';
      const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'With body', markdown });
      assert.equal(response.status, 201, response.text);
      assert.equal((await Page.findByPk(response.body.id))!.initialMarkdown, null);
      const [log] = await cast.instance.services.sequelize.query<{ update: Buffer }>(`SELECT update FROM page_updates WHERE page_id = :id`, { replacements: { id: response.body.id }, type: QueryTypes.SELECT });
      assert.deepEqual(yjsUpdateToDocument(new Uint8Array(log!.update)), markdownToDocument(markdown));
      const [cache] = await cast.instance.services.sequelize.query<{ markdown: string }>(`SELECT markdown FROM page_contents WHERE page_id = :id`, { replacements: { id: response.body.id }, type: QueryTypes.SELECT });
      assert.equal(cache!.markdown, documentToMarkdown(markdownToDocument(markdown)));
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Too long', markdown: 'a'.repeat(1_000_001) }), 'markdown');
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Not text', markdown: ['a'] }), 'markdown');
      assert.equal(await Page.count({ where: { pondId: pond.id } }), 1);
    });

    test('a child goes under its parent; siblings get strictly increasing positions in creation order', async () => {
      const pond = await cast.seedTeamPond();
      const parent = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Parent' });
      const positions: string[] = [];
      for (const title of ['First', 'Second', 'Third']) {
        const child = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title, parentId: parent.body.id });
        assert.equal(child.status, 201, child.text);
        assert.equal(child.body.parentId, parent.body.id);
        positions.push(child.body.position);
      }
      for (let i = 1; i < positions.length; i += 1) assert.ok(positions[i - 1]! < positions[i]!, `${positions[i - 1]} < ${positions[i]}`);
      // A root page after the children is last among the roots, not among the children.
      const root = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Second root', parentId: null });
      assert.equal(root.body.parentId, null);
      assert.ok(root.body.position > parent.body.position);
    });

    test('10 concurrent creations under one parent all succeed with distinct positions and slugs', async () => {
      const pond = await cast.seedTeamPond();
      const parent = await seedPage(pond.id, 'Parent');
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Parallel', parentId: parent.id })),
      );
      for (const response of responses) assert.equal(response.status, 201, response.text);
      const positions = new Set(responses.map((response) => response.body.position));
      assert.equal(positions.size, 10);
      const slugs = responses.map((response) => response.body.slug as string).sort();
      assert.deepEqual(slugs, ['parallel', ...Array.from({ length: 9 }, (_, i) => `parallel-${i + 2}`)].sort());
      const stored = await Page.findAll({ where: { parentId: parent.id } });
      assert.equal(new Set(stored.map((page) => page.position)).size, 10);
    });

    test('a parent that is missing, in another pond, trashed or unreadable answers the same 400 on parentId', async () => {
      const pond = await cast.seedTeamPond();
      const elsewhere = await cast.seedTeamPond();
      const foreign = await seedPage(elsewhere.id, 'Foreign');
      const trashed = await seedPage(pond.id, 'Trashed', { trashed: true });
      const hidden = await seedPage(pond.id, 'Hidden');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
      const answers = [];
      for (const parentId of [MISSING_UUID, foreign.id, trashed.id, hidden.id]) {
        const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Child', parentId });
        assertFieldError(response, 'parentId');
        answers.push(response.body);
      }
      for (const answer of answers.slice(1)) assert.deepEqual(answer, answers[0], 'no answer tells the cases apart');
      assertFieldError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Child', parentId: 'not-a-uuid' }), 'parentId');
      assert.equal(await Page.count({ where: { pondId: pond.id, title: 'Child' } }), 0);
    });

    test('a parent the caller can read but not write answers 403', async () => {
      const pond = await cast.seedTeamPond();
      const readOnly = await seedPage(pond.id, 'Read-only');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor', scope: { type: 'page', id: readOnly.id }, effect: 'deny' });
      assert.equal((await cast.editor.client.get(`/pages/${readOnly.id}`)).status, 200);
      assertError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Child', parentId: readOnly.id }), 403, 'forbidden');
      assert.equal(await Page.count({ where: { parentId: readOnly.id } }), 0);
    });

    test('depth: a page at depth 6 is fine, one at depth 7 answers 409 page_depth_exceeded', async () => {
      const pond = await cast.seedTeamPond();
      let parentId: string | null = null;
      const chain: Page[] = [];
      for (let depth = 1; depth <= 5; depth += 1) {
        const page: Page = await seedPage(pond.id, `Level ${depth}`, { parentId });
        chain.push(page);
        parentId = page.id;
      }
      const sixth = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Level 6', parentId });
      assert.equal(sixth.status, 201, sixth.text);
      const seventh = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Level 7', parentId: sixth.body.id });
      assertError(seventh, 409, 'page_depth_exceeded');
      assert.equal(await Page.count({ where: { parentId: sixth.body.id } }), 0);
    });

    test('a reader answers 403, a non-member 404, anonymous 401, a malformed or unknown pond id 404', async () => {
      const pond = await cast.seedTeamPond();
      assertError(await cast.reader.client.post(`/ponds/${pond.id}/pages`, { title: 'Nope' }), 403, 'forbidden');
      assertError(await cast.outsider.client.post(`/ponds/${pond.id}/pages`, { title: 'Nope' }), 404, 'not_found');
      assertError(await cast.anonymous.post(`/ponds/${pond.id}/pages`, { title: 'Nope' }), 401, 'unauthenticated');
      assertError(await cast.owner.client.post(`/ponds/not-a-uuid/pages`, { title: 'Nope' }), 404, 'not_found');
      assertError(await cast.owner.client.post(`/ponds/${MISSING_UUID}/pages`, { title: 'Nope' }), 404, 'not_found');
      assert.equal(await Page.count({ where: { pondId: pond.id } }), 0);
    });

    test('a trashed pond: its admin gets 409 pond_trashed, an editor 404', async () => {
      const pond = await cast.seedTeamPond();
      await Pond.update({ trashedAt: new Date() }, { where: { id: pond.id } });
      invalidateAllPondAccess();
      assertError(await cast.owner.client.post(`/ponds/${pond.id}/pages`, { title: 'In the bin' }), 409, 'pond_trashed');
      assertError(await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'In the bin' }), 404, 'not_found');
      assert.equal(await Page.count({ where: { pondId: pond.id } }), 0);
    });
  });

  describe('GET /pages/:id', () => {
    test('a reader sees the page with sorted labelIds and canWrite false', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Labelled', { createdBy: cast.owner.user.id });
      const labels = [await seedLabel(pond.id, 'One'), await seedLabel(pond.id, 'Two'), await seedLabel(pond.id, 'Three')];
      await seedPageLabels(page, labels);
      const response = await cast.reader.client.get(`/pages/${page.id}`);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), DETAIL_VIEW_KEYS);
      assert.deepEqual(response.body.labelIds, labels.map((label) => label.id).sort());
      assert.equal(response.body.canWrite, false);
      assert.equal(response.body.createdBy, cast.owner.user.id);
      assert.equal((await cast.editor.client.get(`/pages/${page.id}`)).body.canWrite, true);
    });

    test('parentId is nulled for a caller who may not read the parent', async () => {
      const pond = await cast.seedTeamPond();
      const parent = await seedPage(pond.id, 'Secret parent');
      const child = await seedPage(pond.id, 'Open child', { parentId: parent.id });
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: parent.id }, effect: 'deny' });
      assertError(await cast.reader.client.get(`/pages/${parent.id}`), 404, 'not_found');
      assert.equal((await cast.reader.client.get(`/pages/${child.id}`)).body.parentId, null);
      assert.equal((await cast.editor.client.get(`/pages/${child.id}`)).body.parentId, parent.id);
    });

    test('anonymous: 404 without a public grant, 200 with a page-scope public reader grant', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Published');
      const other = await seedPage(pond.id, 'Unpublished');
      assertError(await cast.anonymous.get(`/pages/${page.id}`), 404, 'not_found');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } });
      const response = await cast.anonymous.get(`/pages/${page.id}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.id, page.id);
      assert.equal(response.body.canWrite, false);
      assertError(await cast.anonymous.get(`/pages/${other.id}`), 404, 'not_found');
    });

    test('a trashed page: 404 page_trashed for an editor, plain 404 for a reader', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Binned', { trashed: true });
      const forEditor = await cast.editor.client.get(`/pages/${page.id}`);
      assertError(forEditor, 404, 'page_trashed');
      assert.ok(forEditor.body.error.details.trashedAt);
      const forReader = await cast.reader.client.get(`/pages/${page.id}`);
      assertError(forReader, 404, 'not_found');
      assert.deepEqual(forReader.body.error.details, {});
    });

    test('a non-member, a malformed id and an unknown id answer 404', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Members only');
      assertError(await cast.outsider.client.get(`/pages/${page.id}`), 404, 'not_found');
      assertError(await cast.owner.client.get('/pages/not-a-uuid'), 404, 'not_found');
      assertError(await cast.owner.client.get(`/pages/${MISSING_UUID}`), 404, 'not_found');
    });
  });

  describe('PATCH /pages/:id', () => {
    test('renames: 200, title trimmed, slug kept, updatedBy set, search vector follows', async () => {
      const pond = await cast.seedTeamPond();
      const created = await cast.owner.client.post(`/ponds/${pond.id}/pages`, { title: 'Draft' });
      const response = await cast.editor.client.patch(`/pages/${created.body.id}`, { title: '  Zebrastreifen  ' });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), DETAIL_VIEW_KEYS);
      assert.equal(response.body.title, 'Zebrastreifen');
      assert.equal(response.body.slug, 'draft');
      assert.equal(response.body.createdBy, cast.owner.user.id);
      assert.equal(response.body.updatedBy, cast.editor.user.id);
      assert.equal(response.body.position, created.body.position);
      assert.match((await searchVectorOf(created.body.id)) ?? '', /zebrastreifen/);
      assert.doesNotMatch((await searchVectorOf(created.body.id)) ?? '', /draft/);
      assert.equal((await Page.findByPk(created.body.id))!.title, 'Zebrastreifen');
    });

    test('changes the slug; a slug taken in the pond (any case, trashed pages included) answers 409', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Mine');
      const other = await seedPage(pond.id, 'Other');
      await Page.update({ slug: 'occupied' }, { where: { id: other.id } });
      const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
      await Page.update({ slug: 'binned' }, { where: { id: trashed.id } });
      const changed = await cast.editor.client.patch(`/pages/${page.id}`, { slug: 'Brand-New' });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.slug, 'brand-new');
      assert.equal(changed.body.title, 'Mine');
      assertError(await cast.editor.client.patch(`/pages/${page.id}`, { slug: 'OCCUPIED' }), 409, 'slug_taken');
      assertError(await cast.editor.client.patch(`/pages/${page.id}`, { title: 'Renamed', slug: 'binned' }), 409, 'slug_taken');
      // Keeping one's own slug is no conflict.
      const same = await cast.editor.client.patch(`/pages/${page.id}`, { slug: 'BRAND-NEW', title: 'Mine again' });
      assert.equal(same.status, 200, same.text);
      assert.equal(same.body.title, 'Mine again');
      const stored = await Page.findByPk(page.id);
      assert.equal(stored!.slug, 'brand-new');
      assert.equal(stored!.title, 'Mine again');
    });

    test('validation: empty body, unknown key, bad title or slug answer 400', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Stable');
      assertError(await cast.editor.client.patch(`/pages/${page.id}`, {}), 400, 'validation_failed');
      assertFieldError(await cast.editor.client.patch(`/pages/${page.id}`, { title: 'Ok', parentId: null }), '');
      assertFieldError(await cast.editor.client.patch(`/pages/${page.id}`, { title: '  ' }), 'title');
      assertFieldError(await cast.editor.client.patch(`/pages/${page.id}`, { title: 'x'.repeat(301) }), 'title');
      assertFieldError(await cast.editor.client.patch(`/pages/${page.id}`, { slug: 'Not A Slug' }), 'slug');
      const stored = await Page.findByPk(page.id);
      assert.equal(stored!.title, 'Stable');
      assert.equal(stored!.slug, page.slug);
    });

    test('a reader answers 403, a non-member 404, anonymous 401, a malformed id 404, a trashed page page_trashed', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Guarded');
      assertError(await cast.reader.client.patch(`/pages/${page.id}`, { title: 'Hijacked' }), 403, 'forbidden');
      assertError(await cast.outsider.client.patch(`/pages/${page.id}`, { title: 'Hijacked' }), 404, 'not_found');
      assertError(await cast.anonymous.patch(`/pages/${page.id}`, { title: 'Hijacked' }), 401, 'unauthenticated');
      assertError(await cast.owner.client.patch('/pages/not-a-uuid', { title: 'Hijacked' }), 404, 'not_found');
      assertError(await cast.owner.client.patch(`/pages/${MISSING_UUID}`, { title: 'Hijacked' }), 404, 'not_found');
      const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
      assertError(await cast.editor.client.patch(`/pages/${trashed.id}`, { title: 'Revived' }), 404, 'page_trashed');
      assertError(await cast.reader.client.patch(`/pages/${trashed.id}`, { title: 'Revived' }), 404, 'not_found');
      assert.equal((await Page.findByPk(page.id))!.title, 'Guarded');
      assert.equal((await Page.findByPk(trashed.id))!.title, 'Binned');
    });
  });
});
