/**
 * The link routes through HTTP: backlinks, phantom links and the pond's link graph. Each is
 * the caller's readable slice (a page-level deny hides a referrer with its snippet, an edge
 * needs both ends, a phantom goes with its last readable referrer, trashed pages never
 * show), pages in key order with a cursor, and refuses outsiders and anonymous callers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedGrant, seedLabel, seedPageLabels } from '../testing/accessFixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, usePondCast } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { Page } from '../models/index.ts';

interface Referrer {
  page: { id: string; title: string; slug: string };
  snippet: string;
}

describe('link routes', () => {
  const cast = usePondCast();

  async function createPage(pondId: string, title: string, markdown?: string, slug?: string) {
    const response = await cast.editor.client.post(`/ponds/${pondId}/pages`, { title, ...(markdown === undefined ? {} : { markdown }), ...(slug ? { slug } : {}) });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; title: string; slug: string };
  }

  async function getOk(client: TestClient, path: string) {
    const response = await client.get(path);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** Every item of a paged list, following the cursor with `limit`. */
  async function allPages(client: TestClient, path: string, limit: number): Promise<{ items: unknown[]; pages: number }> {
    const items: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: { items: unknown[]; nextCursor: string | null } = await getOk(client, `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.ok(body.items.length <= limit);
      if (body.nextCursor !== null) assert.equal(body.items.length, limit);
      items.push(...body.items);
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor !== null);
    return { items, pages };
  }

  const denyReader = (pondId: string, pageId: string) =>
    seedGrant(pondId, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: pageId }, effect: 'deny' });

  describe('GET /pages/:id/backlinks', () => {
    test('lists live sources by title with their snippets; a denied or trashed source is left out', async () => {
      const pond = await cast.seedTeamPond();
      const target = await createPage(pond.id, 'Target', undefined, 'target');
      const zulu = await createPage(pond.id, 'Zulu', 'Zulu links to [[target]] here.\n');
      const alpha = await createPage(pond.id, 'Alpha', 'First [[TARGET|the target]] then [[target]] again.\n');
      const secret = await createPage(pond.id, 'Secret', 'Secret words near [[target]].\n');
      const trashed = await createPage(pond.id, 'Trashed', 'Gone [[target]].\n');
      await createPage(pond.id, 'Unrelated', 'Nothing [[elsewhere]].\n');
      assert.equal((await cast.editor.client.request('DELETE', `/pages/${trashed.id}`)).status, 200);
      await denyReader(pond.id, secret.id);

      const forEditor = await getOk(cast.editor.client, `/pages/${target.id}/backlinks`);
      assert.deepEqual(forEditor, {
        items: [
          { page: { id: alpha.id, title: 'Alpha', slug: alpha.slug }, snippet: 'First the target then target again.' },
          { page: { id: secret.id, title: 'Secret', slug: secret.slug }, snippet: 'Secret words near target.' },
          { page: { id: zulu.id, title: 'Zulu', slug: zulu.slug }, snippet: 'Zulu links to target here.' },
        ],
        nextCursor: null,
      });
      const forReader = await getOk(cast.reader.client, `/pages/${target.id}/backlinks`);
      assert.deepEqual(forReader.items.map((item: Referrer) => item.page.id), [alpha.id, zulu.id]);
      assert.ok(!JSON.stringify(forReader).includes('Secret'), 'the denied page and its snippet stay hidden');
    });

    test('pages by title with a cursor, skipping unreadable sources across batches', async () => {
      const pond = await cast.seedTeamPond();
      const target = await createPage(pond.id, 'Paged target', undefined, 'paged-target');
      const sources = [];
      for (const title of ['B', 'A', 'D', 'C', 'F', 'E', 'H', 'G']) sources.push(await createPage(pond.id, `Source ${title}`, `To [[paged-target]].\n`));
      // Same title twice: the id breaks the tie.
      sources.push(await createPage(pond.id, 'Source A', 'Also to [[paged-target]].\n'));
      const hidden = sources.filter((source) => ['Source C', 'Source D', 'Source E'].includes(source.title));
      for (const page of hidden) await denyReader(pond.id, page.id);
      const byTitle = (list: { id: string; title: string }[]) => [...list].sort((a, b) => (a.title === b.title ? (a.id < b.id ? -1 : 1) : a.title < b.title ? -1 : 1)).map((page) => page.id);

      const editorList = await allPages(cast.editor.client, `/pages/${target.id}/backlinks`, 2);
      assert.deepEqual(editorList.items.map((item) => (item as Referrer).page.id), byTitle(sources));
      assert.equal(editorList.pages, 5);
      const readerList = await allPages(cast.reader.client, `/pages/${target.id}/backlinks`, 2);
      assert.deepEqual(readerList.items.map((item) => (item as Referrer).page.id), byTitle(sources.filter((source) => !hidden.includes(source))));
      assert.equal(readerList.pages, 3);
    });

    test('refusals: 404 for outsiders, unknown and malformed ids, 401 for anonymous on a public page, 400 for a bad query', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Private', 'x\n');
      assertError(await cast.outsider.client.get(`/pages/${page.id}/backlinks`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/pages/${page.id}/backlinks`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/pages/${MISSING_UUID}/backlinks`), 404, 'not_found');
      assertError(await cast.reader.client.get('/pages/not-a-uuid/backlinks'), 404, 'not_found');
      await denyReader(pond.id, page.id);
      assertError(await cast.reader.client.get(`/pages/${page.id}/backlinks`), 404, 'not_found');

      const publicPond = await cast.seedTeamPond();
      await seedGrant(publicPond.id, { subject: { type: 'public' }, role: 'reader' });
      const publicPage = await createPage(publicPond.id, 'Public', 'x\n');
      assertError(await cast.anonymous.get(`/pages/${publicPage.id}/backlinks`), 401, 'unauthenticated');
      assert.equal((await cast.outsider.client.get(`/pages/${publicPage.id}/backlinks`)).status, 200);

      assertFieldError(await cast.reader.client.get(`/pages/${publicPage.id}/backlinks?cursor=nonsense`), 'query.cursor');
      assertFieldError(await cast.reader.client.get(`/pages/${publicPage.id}/backlinks?limit=0`), 'query.limit');
      assertFieldError(await cast.reader.client.get(`/pages/${publicPage.id}/backlinks?limit=501`), 'query.limit');
    });

    test('a trashed page answers page_trashed to editors and 404 to readers', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Soon trashed', 'x\n');
      assert.equal((await cast.editor.client.request('DELETE', `/pages/${page.id}`)).status, 200);
      assertError(await cast.editor.client.get(`/pages/${page.id}/backlinks`), 404, 'page_trashed');
      assertError(await cast.reader.client.get(`/pages/${page.id}/backlinks`), 404, 'not_found');
    });
  });

  describe('GET /ponds/:id/phantom-links', () => {
    test('missing targets by slug with their readable live referrers; a target without one is omitted', async () => {
      const pond = await cast.seedTeamPond();
      const open = await createPage(pond.id, 'Open', 'Wants [[ghost]] and [[Zombie]].\n');
      const secret = await createPage(pond.id, 'Secret', 'Secret wants [[ghost]] and [[only-secret]].\n');
      const trashed = await createPage(pond.id, 'Trashed', 'Trashed wants [[only-trashed]].\n');
      assert.equal((await cast.editor.client.request('DELETE', `/pages/${trashed.id}`)).status, 200);
      await denyReader(pond.id, secret.id);

      assert.deepEqual(await getOk(cast.editor.client, `/ponds/${pond.id}/phantom-links`), {
        items: [
          {
            targetSlug: 'ghost',
            linkText: null,
            referrers: [
              { page: { id: open.id, title: 'Open', slug: open.slug }, snippet: 'Wants ghost and Zombie.' },
              { page: { id: secret.id, title: 'Secret', slug: secret.slug }, snippet: 'Secret wants ghost and only-secret.' },
            ],
          },
          { targetSlug: 'only-secret', linkText: null, referrers: [{ page: { id: secret.id, title: 'Secret', slug: secret.slug }, snippet: 'Secret wants ghost and only-secret.' }] },
          { targetSlug: 'zombie', linkText: null, referrers: [{ page: { id: open.id, title: 'Open', slug: open.slug }, snippet: 'Wants ghost and Zombie.' }] },
        ],
        nextCursor: null,
      });
      const forReader = await getOk(cast.reader.client, `/ponds/${pond.id}/phantom-links`);
      assert.deepEqual(
        forReader.items.map((item: { targetSlug: string; referrers: Referrer[] }) => [item.targetSlug, item.referrers.map((referrer) => referrer.page.id)]),
        [['ghost', [open.id]], ['zombie', [open.id]]],
      );
      assert.ok(!JSON.stringify(forReader).includes('Secret'));
    });

    test('pages by target slug, omitting targets whose referrers are all unreadable', async () => {
      const pond = await cast.seedTeamPond();
      const visible = await createPage(pond.id, 'Visible', ['a', 'c', 'e', 'g', 'i'].map((slug) => `[[phantom-${slug}]]`).join(' ') + '\n');
      const hidden = await createPage(pond.id, 'Hidden', ['b', 'd', 'f', 'h'].map((slug) => `[[phantom-${slug}]]`).join(' ') + '\n');
      await denyReader(pond.id, hidden.id);
      const letters = (items: unknown[]) => items.map((item) => (item as { targetSlug: string }).targetSlug.replace('phantom-', '')).join('');

      const forEditor = await allPages(cast.editor.client, `/ponds/${pond.id}/phantom-links`, 3);
      assert.equal(letters(forEditor.items), 'abcdefghi');
      assert.equal(forEditor.pages, 3);
      const forReader = await allPages(cast.reader.client, `/ponds/${pond.id}/phantom-links`, 2);
      assert.equal(letters(forReader.items), 'acegi');
      assert.equal(forReader.pages, 3);
      for (const item of forReader.items) assert.deepEqual((item as { referrers: Referrer[] }).referrers.map((referrer) => referrer.page.id), [visible.id]);
    });

    test('the link text is the missing page’s title: the first readable referrer (by title) that writes more than the slug', async () => {
      const pond = await cast.seedTeamPond();
      const bare = await createPage(pond.id, 'A bare link', 'Water by [[giessplan]], see [[Weird-Case|Über & <Größe>]].\n');
      const named = await createPage(pond.id, 'B named link', 'The **[[giessplan|Gießplan]]** for the week.\n');
      const hidden = await createPage(pond.id, 'AA hidden', 'Hidden calls it [[giessplan|Geheimplan]].\n');
      await denyReader(pond.id, hidden.id);

      const forEditor = await getOk(cast.editor.client, `/ponds/${pond.id}/phantom-links`);
      assert.deepEqual(forEditor.items.map((item: { targetSlug: string; linkText: string | null }) => [item.targetSlug, item.linkText]), [['giessplan', 'Geheimplan'], ['weird-case', 'Über & <Größe>']]);
      const forReader = await getOk(cast.reader.client, `/ponds/${pond.id}/phantom-links`);
      assert.deepEqual(forReader.items.map((item: { targetSlug: string; linkText: string | null }) => [item.targetSlug, item.linkText]), [['giessplan', 'Gießplan'], ['weird-case', 'Über & <Größe>']]);
      assert.ok(!JSON.stringify(forReader).includes('Geheimplan'), 'a hidden referrer’s text stays hidden');

      // One target, for the missing-page screen; the slug in any case.
      assert.deepEqual(await getOk(cast.reader.client, `/ponds/${pond.id}/phantom-links/GIESSPLAN`), {
        targetSlug: 'giessplan',
        linkText: 'Gießplan',
        referrers: [
          { page: { id: bare.id, title: 'A bare link', slug: bare.slug }, snippet: 'Water by giessplan, see Über & <Größe>.' },
          { page: { id: named.id, title: 'B named link', slug: named.slug }, snippet: 'The Gießplan for the week.' },
        ],
      });
    });

    test('one target: 404 where no readable page links there, for outsiders and anonymous callers', async () => {
      const pond = await cast.seedTeamPond();
      const hidden = await createPage(pond.id, 'Hidden', 'Only [[hidden-target|Hidden target]] here.\n');
      const existing = await createPage(pond.id, 'Existing', 'x\n', 'existing');
      await createPage(pond.id, 'Linker', 'To [[existing]].\n');
      await denyReader(pond.id, hidden.id);
      assert.equal((await getOk(cast.editor.client, `/ponds/${pond.id}/phantom-links/hidden-target`)).linkText, 'Hidden target');
      assertError(await cast.reader.client.get(`/ponds/${pond.id}/phantom-links/hidden-target`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/ponds/${pond.id}/phantom-links/${existing.slug}`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/ponds/${pond.id}/phantom-links/nobody-links-here`), 404, 'not_found');
      assertError(await cast.editor.client.get(`/ponds/${pond.id}/phantom-links/${encodeURIComponent('Gießplan')}`), 404, 'not_found');
      assertError(await cast.outsider.client.get(`/ponds/${pond.id}/phantom-links/hidden-target`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/ponds/${pond.id}/phantom-links/hidden-target`), 404, 'not_found');
    });

    test('refusals: 404 for outsiders and anonymous on a private pond, 401 for anonymous on a public one, 400 for a bad query', async () => {
      const pond = await cast.seedTeamPond();
      assertError(await cast.outsider.client.get(`/ponds/${pond.id}/phantom-links`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/ponds/${pond.id}/phantom-links`), 404, 'not_found');
      assertError(await cast.reader.client.get(`/ponds/${MISSING_UUID}/phantom-links`), 404, 'not_found');
      const publicPond = await cast.seedTeamPond();
      await seedGrant(publicPond.id, { subject: { type: 'public' }, role: 'reader' });
      assertError(await cast.anonymous.get(`/ponds/${publicPond.id}/phantom-links`), 401, 'unauthenticated');
      assertFieldError(await cast.reader.client.get(`/ponds/${pond.id}/phantom-links?cursor=%%%`), 'query.cursor');
      assertFieldError(await cast.reader.client.get(`/ponds/${pond.id}/phantom-links?limit=x`), 'query.limit');
    });
  });

  describe('GET /ponds/:id/links', () => {
    test('the readable slice: nodes with labels, edges between readable ends once per direction, phantoms with readable referrers', async () => {
      const pond = await cast.seedTeamPond();
      const otherPond = await cast.seedTeamPond();
      await createPage(otherPond.id, 'Foreign', 'To [[a]].\n', 'foreign');
      const a = await createPage(pond.id, 'A', 'To [[b]], [[secret]], [[foreign]] and [[nowhere]].\n', 'a');
      const b = await createPage(pond.id, 'B', 'Back to [[a]] and [[only-from-secret-or-trash]].\n', 'b');
      const secret = await createPage(pond.id, 'Secret', 'To [[a]] and [[only-from-secret-or-trash]] and [[nowhere]].\n', 'secret');
      const trashed = await createPage(pond.id, 'Trashed', 'To [[a]] and [[only-from-trash]].\n', 'trashed');
      const label = await seedLabel(pond.id, 'Fish');
      await seedPageLabels((await Page.findByPk(a.id))!, [label]);
      // The same direction twice (older rows may differ in case only) is one edge.
      await cast.instance.services.sequelize.query(`INSERT INTO page_links (source_page_id, pond_id, target_slug, target_page_id) VALUES (:a, :pondId, 'B', :b)`, {
        replacements: { a: a.id, b: b.id, pondId: pond.id },
      });
      assert.equal((await cast.editor.client.request('DELETE', `/pages/${trashed.id}`)).status, 200);
      await denyReader(pond.id, secret.id);

      const forEditor = await getOk(cast.editor.client, `/ponds/${pond.id}/links`);
      assert.deepEqual(forEditor, {
        nodes: [
          { id: a.id, title: 'A', slug: 'a', labelIds: [label.id] },
          { id: b.id, title: 'B', slug: 'b', labelIds: [] },
          { id: secret.id, title: 'Secret', slug: 'secret', labelIds: [] },
        ],
        edges: sortEdges([
          { source: a.id, target: b.id },
          { source: a.id, target: secret.id },
          { source: b.id, target: a.id },
          { source: secret.id, target: a.id },
        ]),
        phantoms: [
          { targetSlug: 'foreign', referrerIds: [a.id] },
          { targetSlug: 'nowhere', referrerIds: [a.id, secret.id].sort() },
          { targetSlug: 'only-from-secret-or-trash', referrerIds: [b.id, secret.id].sort() },
        ],
      });
      const forReader = await getOk(cast.reader.client, `/ponds/${pond.id}/links`);
      assert.deepEqual(forReader, {
        nodes: [
          { id: a.id, title: 'A', slug: 'a', labelIds: [label.id] },
          { id: b.id, title: 'B', slug: 'b', labelIds: [] },
        ],
        edges: sortEdges([
          { source: a.id, target: b.id },
          { source: b.id, target: a.id },
        ]),
        phantoms: [
          { targetSlug: 'foreign', referrerIds: [a.id] },
          { targetSlug: 'nowhere', referrerIds: [a.id] },
          { targetSlug: 'only-from-secret-or-trash', referrerIds: [b.id] },
        ],
      });
      assert.ok(!JSON.stringify(forReader).includes(secret.id));
      assert.ok(!JSON.stringify(forEditor).includes(trashed.id));
    });

    test('a transclusion is no link: an embedded page is no edge, a missing one no phantom, and neither is a backlink', async () => {
      const pond = await cast.seedTeamPond();
      const embedded = await createPage(pond.id, 'Embedded', 'Shown elsewhere.\n', 'embedded');
      const host = await createPage(pond.id, 'Host', 'Intro.\n\n![[embedded]]\n![[missing-embed|Not there]]\n\nAnd a link to [[linked]].\n', 'host');
      const linked = await createPage(pond.id, 'Linked', 'x\n', 'linked');
      const graph = await getOk(cast.editor.client, `/ponds/${pond.id}/links`);
      assert.deepEqual(graph.edges, [{ source: host.id, target: linked.id }]);
      assert.deepEqual(graph.phantoms, []);
      assert.deepEqual((await getOk(cast.editor.client, `/pages/${embedded.id}/backlinks`)).items, []);
      assert.deepEqual((await getOk(cast.editor.client, `/ponds/${pond.id}/phantom-links`)).items, []);
    });

    test('an empty pond answers empty lists; refusals as for the other routes', async () => {
      const pond = await cast.seedTeamPond();
      assert.deepEqual(await getOk(cast.reader.client, `/ponds/${pond.id}/links`), { nodes: [], edges: [], phantoms: [] });
      assertError(await cast.outsider.client.get(`/ponds/${pond.id}/links`), 404, 'not_found');
      assertError(await cast.anonymous.get(`/ponds/${pond.id}/links`), 404, 'not_found');
      assertError(await cast.reader.client.get('/ponds/nope/links'), 404, 'not_found');
      const publicPond = await cast.seedTeamPond();
      await seedGrant(publicPond.id, { subject: { type: 'public' }, role: 'reader' });
      assertError(await cast.anonymous.get(`/ponds/${publicPond.id}/links`), 401, 'unauthenticated');
    });

    test('a pond visible through one page grant shows that page only', async () => {
      const pond = await cast.seedTeamPond();
      const shared = await createPage(pond.id, 'Shared', 'To [[hidden]] and [[nothing]].\n', 'shared');
      const hidden = await createPage(pond.id, 'Hidden', 'To [[shared]] and [[nothing-else]].\n', 'hidden');
      await seedGrant(pond.id, { subject: { type: 'user', id: cast.outsider.user.id }, role: 'reader', scope: { type: 'page', id: shared.id } });
      assert.deepEqual(await getOk(cast.outsider.client, `/ponds/${pond.id}/links`), {
        nodes: [{ id: shared.id, title: 'Shared', slug: 'shared', labelIds: [] }],
        edges: [],
        phantoms: [{ targetSlug: 'nothing', referrerIds: [shared.id] }],
      });
      assert.deepEqual((await getOk(cast.outsider.client, `/pages/${shared.id}/backlinks`)).items, []);
      assertError(await cast.outsider.client.get(`/pages/${hidden.id}/backlinks`), 404, 'not_found');
    });
  });
});

function sortEdges(edges: { source: string; target: string }[]) {
  return [...edges].sort((x, y) => (x.source === y.source ? (x.target < y.target ? -1 : 1) : x.source < y.source ? -1 : 1));
}
