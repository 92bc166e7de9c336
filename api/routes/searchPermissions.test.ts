/**
 * GET /search and the read policy: a search answers only pages the caller may read. Page-level
 * denies, label-only allows and denies, public and signed-in grants reaching non-members;
 * trashed pages (promote and subtree) and trashed ponds never found, restored ones found again
 * (a pond restore brings back only the pages that were live); and the filter applied before
 * the LIMIT, so hidden matches never shorten a page of results or end the list early. The pond
 * and label filters: narrowing, label descendants, 404 for what the caller cannot see, 400 for
 * malformed ids. The rest of search is in searchRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedGrant, seedSharedPond } from '../testing/accessFixtures.ts';
import { assertError, assertFieldError, createLabel, fieldPaths, MISSING_UUID, putLabels, usePondCast } from '../testing/pondTestSetup.ts';
import { searchPath, type SearchParams } from '../testing/searchRequests.ts';
import type { TestClient } from '../testing/testClient.ts';

interface Hit {
  id: string;
  match: 'fulltext' | 'substring';
}
type Answer = { items: Hit[]; nextCursor: string | null };

describe('GET /search permissions', () => {
  const cast = usePondCast();

  async function createPage(client: TestClient, pondId: string, title: string, markdown?: string, parentId?: string) {
    const response = await client.post(`/ponds/${pondId}/pages`, { title, ...(markdown === undefined ? {} : { markdown }), ...(parentId ? { parentId } : {}) });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; title: string; slug: string };
  }


  async function search(client: TestClient, params: SearchParams): Promise<Answer> {
    const response = await client.get(searchPath(params));
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** The ids of the hits, in order. */
  async function ids(client: TestClient, params: SearchParams): Promise<string[]> {
    return (await search(client, params)).items.map((hit) => hit.id);
  }

  /** The ids found, sorted (order is searchRoutes.test.ts's subject). */
  async function found(client: TestClient, q: string, pondId?: string): Promise<string[]> {
    return (await search(client, { q, ...(pondId ? { pondId } : {}) })).items.map((hit) => hit.id).sort();
  }

  /** Every hit of a cursor walk with `limit`, and the number of requests it took. */
  async function walk(client: TestClient, params: SearchParams, limit: number) {
    const hits: Hit[] = [];
    let cursor: string | null = null;
    let requests = 0;
    do {
      const page: Answer = await search(client, { ...params, limit, ...(cursor ? { cursor } : {}) });
      requests += 1;
      if (page.nextCursor !== null) assert.equal(page.items.length, limit, 'a full page before every cursor');
      hits.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null && requests < 50);
    return { hits, requests };
  }

  const sortedIds = (...pages: { id: string }[]) => pages.map((page) => page.id).sort();
  const trash = (client: TestClient, pageId: string, mode?: 'subtree') => client.request('DELETE', `/pages/${pageId}${mode ? `?mode=${mode}` : ''}`);
  const restore = (client: TestClient, pageId: string) => client.post(`/pages/${pageId}/restore`);

  test('a page denied to the reader at page level is found by the editor, not by the reader', async () => {
    const pond = await cast.seedTeamPond();
    const denied = await createPage(cast.editor.client, pond.id, 'Geheimplan', 'Der Seerosenplan.\n');
    const open = await createPage(cast.editor.client, pond.id, 'Offener Plan', 'Auch ein Seerosenplan.\n');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: denied.id }, effect: 'deny' });
    assert.deepEqual(await found(cast.editor.client, 'seerosenplan'), sortedIds(denied, open));
    assert.deepEqual(await found(cast.reader.client, 'seerosenplan'), [open.id]);
    assert.deepEqual(await found(cast.reader.client, 'seerosenplan', pond.id), [open.id]);
    assert.deepEqual(await found(cast.reader.client, 'geheimplan'), [], 'not by its title either');
    assert.deepEqual(await found(cast.reader.client, 'seerosenpl'), [open.id], 'the substring fallback alike');
    assert.deepEqual(await found(cast.outsider.client, 'seerosenplan'), [], 'a non-member finds nothing of a private pond');
  });

  test('a page readable only through a label grant is found; its unlabelled siblings are not', async () => {
    // The reader holds no pond grant here, only a label-scope allow.
    const pond = await seedSharedPond(cast.owner.user.id);
    const label = await createLabel(cast.owner.client, pond.id, 'Freigegeben');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'label', id: label.id } });
    const shared = await createPage(cast.owner.client, pond.id, 'Geteilt', 'Krebsscherenwort.\n');
    const sibling = await createPage(cast.owner.client, pond.id, 'Nicht geteilt', 'Krebsscherenwort.\n');
    const kid = await createPage(cast.owner.client, pond.id, 'Kind', 'Krebsscherenwort.\n', shared.id);
    assert.equal((await putLabels(cast.owner.client, shared.id, [label.id])).status, 200);
    assert.deepEqual(await found(cast.owner.client, 'krebsscherenwort'), sortedIds(shared, sibling, kid));
    assert.deepEqual(await found(cast.reader.client, 'krebsscherenwort'), [shared.id]);
    assert.deepEqual(await found(cast.reader.client, 'krebsscherenwort', pond.id), [shared.id]);
    assert.deepEqual(await found(cast.reader.client, 'krebsscheren'), [shared.id], 'the substring fallback too');
    assert.deepEqual((await search(cast.reader.client, { q: 'krebsscherenwort', labels: label.id })).items.map((hit) => hit.id), [shared.id]);
    assert.deepEqual(await found(cast.reader.client, 'geteilt'), [shared.id], 'the sibling is not found by its title');
    assert.deepEqual(await found(cast.outsider.client, 'krebsscherenwort'), []);
    assertError(await cast.outsider.client.get(`/search?q=krebsscherenwort&pondId=${pond.id}`), 404, 'not_found');
  });

  test('a label deny hides the pages carrying it from the reader, not from the editor', async () => {
    const pond = await cast.seedTeamPond();
    const label = await createLabel(cast.owner.client, pond.id, 'Vertraulich');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'label', id: label.id }, effect: 'deny' });
    const hidden = await createPage(cast.editor.client, pond.id, 'Intern', 'Libellenwort.\n');
    const open = await createPage(cast.editor.client, pond.id, 'Extern', 'Libellenwort.\n');
    assert.equal((await putLabels(cast.owner.client, hidden.id, [label.id])).status, 200);
    assert.deepEqual(await found(cast.editor.client, 'libellenwort'), sortedIds(hidden, open));
    assert.deepEqual(await found(cast.reader.client, 'libellenwort'), [open.id]);
    assert.deepEqual(await found(cast.reader.client, 'vertraulich'), [], 'not by the label name either');
  });

  test('public and signed-in grants let a non-member find the pages they open, and nothing else', async () => {
    const publicPond = await seedSharedPond(cast.owner.user.id);
    await seedGrant(publicPond.id, { subject: { type: 'public' }, role: 'reader' });
    const inPublic = [await createPage(cast.owner.client, publicPond.id, 'Eins', 'Reiherwort.\n'), await createPage(cast.owner.client, publicPond.id, 'Zwei', 'Reiherwort.\n')];
    const pagePond = await seedSharedPond(cast.owner.user.id);
    const published = await createPage(cast.owner.client, pagePond.id, 'Veröffentlicht', 'Reiherwort.\n');
    await createPage(cast.owner.client, pagePond.id, 'Unveröffentlicht', 'Reiherwort.\n');
    await seedGrant(pagePond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: published.id } });
    const signedInPond = await seedSharedPond(cast.owner.user.id);
    const forMembers = await createPage(cast.owner.client, signedInPond.id, 'Für alle', 'Reiherwort.\n');
    await seedGrant(signedInPond.id, { subject: { type: 'signed-in' }, role: 'reader' });
    const privatePond = await seedSharedPond(cast.owner.user.id);
    await createPage(cast.owner.client, privatePond.id, 'Privat', 'Reiherwort.\n');

    assert.deepEqual(await found(cast.outsider.client, 'reiherwort'), sortedIds(...inPublic, published, forMembers));
    assert.deepEqual(await found(cast.outsider.client, 'reiherwort', publicPond.id), sortedIds(...inPublic));
    assert.deepEqual(await found(cast.outsider.client, 'reiherwort', pagePond.id), [published.id]);
    assert.deepEqual(await found(cast.outsider.client, 'reiherw'), sortedIds(...inPublic, published, forMembers), 'the fallback alike');
    assert.equal((await found(cast.owner.client, 'reiherwort')).length, 6);
    assertError(await cast.anonymous.get('/search?q=reiherwort'), 401, 'unauthenticated');
  });

  test('trashed pages are not found, by anyone; restored ones are found again', async () => {
    const pond = await cast.seedTeamPond();
    const root = await createPage(cast.editor.client, pond.id, 'Wurzel', 'Schilfwort oben.\n');
    const child = await createPage(cast.editor.client, pond.id, 'Kind', 'Schilfwort darunter.\n', root.id);
    const branch = await createPage(cast.editor.client, pond.id, 'Ast', 'Schilfwort im Ast.\n');
    const twig = await createPage(cast.editor.client, pond.id, 'Zweig', 'Schilfwort im Zweig.\n', branch.id);
    const leaf = await createPage(cast.editor.client, pond.id, 'Blatt', 'Schilfwort im Blatt.\n', twig.id);
    const all = sortedIds(root, child, branch, twig, leaf);
    assert.deepEqual(await found(cast.reader.client, 'schilfwort'), all);

    assert.equal((await trash(cast.editor.client, root.id)).status, 200);
    assert.equal((await trash(cast.editor.client, branch.id, 'subtree')).status, 200);
    for (const client of [cast.reader.client, cast.editor.client, cast.owner.client]) {
      assert.deepEqual(await found(client, 'schilfwort'), [child.id], 'the promoted child stays');
      assert.deepEqual(await found(client, 'schilfwort', pond.id), [child.id]);
      assert.deepEqual(await found(client, 'schilfw'), [child.id], 'the fallback does not find them either');
      assert.deepEqual(await found(client, 'wurzel'), [], 'nor their titles');
    }

    assert.equal((await restore(cast.editor.client, root.id)).status, 200);
    assert.equal((await restore(cast.editor.client, branch.id)).status, 200);
    assert.deepEqual(await found(cast.reader.client, 'schilfwort'), all);
    assert.deepEqual(await found(cast.reader.client, 'zweig'), [twig.id]);
  });

  test("a trashed pond's pages are not found, even by its admin; its restore brings back only the live ones", async () => {
    const pond = await cast.seedTeamPond();
    const live = await createPage(cast.editor.client, pond.id, 'Lebendig', 'Kolbenwort.\n');
    const alsoLive = await createPage(cast.editor.client, pond.id, 'Auch lebendig', 'Kolbenwort.\n');
    const trashedBefore = await createPage(cast.editor.client, pond.id, 'Vorher weg', 'Kolbenwort.\n');
    assert.equal((await trash(cast.editor.client, trashedBefore.id)).status, 200);
    assert.equal((await cast.owner.client.post(`/ponds/${pond.id}/trash`)).status, 200);

    for (const client of [cast.owner.client, cast.editor.client, cast.reader.client]) {
      assert.deepEqual(await found(client, 'kolbenwort'), []);
      assert.deepEqual(await found(client, 'kolbenw'), []);
      const named = await client.get(`/search?q=kolbenwort&pondId=${pond.id}`);
      // Whether the trashed pond is still visible to the caller decides 404 or an empty answer.
      if (named.status === 200) assert.deepEqual(named.body, { items: [], nextCursor: null });
      else assertError(named, 404, 'not_found');
    }

    assert.equal((await cast.owner.client.post(`/ponds/${pond.id}/restore`)).status, 200);
    assert.deepEqual(await found(cast.reader.client, 'kolbenwort'), sortedIds(live, alsoLive));
    assert.deepEqual(await found(cast.owner.client, 'kolbenw'), sortedIds(live, alsoLive));
    assert.deepEqual(await found(cast.owner.client, 'vorher'), [], 'a page trashed before stays in the trash');
    assert.equal((await restore(cast.editor.client, trashedBefore.id)).status, 200);
    assert.deepEqual(await found(cast.reader.client, 'kolbenwort'), sortedIds(live, alsoLive, trashedBefore));
  });

  test('the permission filter runs before the LIMIT: hidden better matches neither shorten nor end the list', async () => {
    const pond = await cast.seedTeamPond();
    // Title hits rank first: hidden ones would fill every page if the filter came after the LIMIT.
    const hidden = [];
    for (let i = 0; i < 30; i += 1) hidden.push(await createPage(cast.editor.client, pond.id, `Limitwort ${i}`));
    for (const page of hidden) await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
    const readable = [];
    for (let i = 0; i < 3; i += 1) readable.push(await createPage(cast.editor.client, pond.id, `Lesbar ${i}`, 'Ein Limitwort.\n'));

    for (const q of ['limitwort', 'limitwo']) {
      const first = await search(cast.reader.client, { q, limit: 2 });
      assert.equal(first.items.length, 2, q);
      assert.notEqual(first.nextCursor, null, q);
      const second = await search(cast.reader.client, { q, limit: 2, cursor: first.nextCursor! });
      assert.equal(second.items.length, 1, q);
      assert.equal(second.nextCursor, null, q);
      assert.deepEqual([...first.items, ...second.items].map((hit) => hit.id).sort(), sortedIds(...readable), q);
      assert.deepEqual(await found(cast.reader.client, q, pond.id), sortedIds(...readable));
    }

    // The editor sees all 33: a default page of 20, then the rest through the cursor.
    const firstPage = await search(cast.editor.client, { q: 'limitwort' });
    assert.equal(firstPage.items.length, 20);
    assert.notEqual(firstPage.nextCursor, null);
    const editorWalk = await walk(cast.editor.client, { q: 'limitwort', pondId: pond.id }, 7);
    assert.deepEqual(editorWalk.hits.map((hit) => hit.id).sort(), sortedIds(...hidden, ...readable));
    assert.equal(new Set(editorWalk.hits.map((hit) => hit.id)).size, 33);
    assert.equal(editorWalk.requests, 5);
    assert.deepEqual(editorWalk.hits.slice(0, 30).map((hit) => hit.id).sort(), sortedIds(...hidden), 'the title hits first');
  });

  describe('filters', () => {
    test('pondId narrows to one pond', async () => {
      const first = await cast.seedTeamPond();
      const second = await cast.seedTeamPond();
      const a = await createPage(cast.editor.client, first.id, 'Erster', 'Grenzwort hier.\n');
      const b = await createPage(cast.editor.client, second.id, 'Zweiter', 'Grenzwort dort.\n');
      assert.deepEqual((await ids(cast.reader.client, { q: 'grenzwort' })).sort(), sortedIds(a, b));
      assert.deepEqual(await ids(cast.reader.client, { q: 'grenzwort', pondId: first.id }), [a.id]);
      assert.deepEqual(await ids(cast.reader.client, { q: 'grenzwort', pondId: second.id }), [b.id]);
    });

    test('labels narrow to pages carrying one of them or a descendant; comma-separated or repeated', async () => {
      const pond = await cast.seedTeamPond();
      const parent = await createLabel(cast.editor.client, pond.id, 'Gewässer');
      const child = await createLabel(cast.editor.client, pond.id, 'Teich', parent.id);
      const grandchild = await createLabel(cast.editor.client, pond.id, 'Tümpel', child.id);
      const other = await createLabel(cast.editor.client, pond.id, 'Wald');
      const onChild = await createPage(cast.editor.client, pond.id, 'A', 'Filterwort.\n');
      const onParent = await createPage(cast.editor.client, pond.id, 'B', 'Filterwort.\n');
      const onGrandchild = await createPage(cast.editor.client, pond.id, 'C', 'Filterwort.\n');
      const onOther = await createPage(cast.editor.client, pond.id, 'D', 'Filterwort.\n');
      await createPage(cast.editor.client, pond.id, 'E', 'Filterwort.\n');
      for (const [page, label] of [[onChild, child], [onParent, parent], [onGrandchild, grandchild], [onOther, other]] as const) {
        assert.equal((await putLabels(cast.editor.client, page.id, [label.id])).status, 200);
      }
      const q = 'filterwort';
      assert.equal((await ids(cast.reader.client, { q, pondId: pond.id })).length, 5);
      assert.deepEqual((await ids(cast.reader.client, { q, labels: parent.id })).sort(), sortedIds(onChild, onParent, onGrandchild));
      assert.deepEqual((await ids(cast.reader.client, { q, labels: parent.id, pondId: pond.id })).sort(), sortedIds(onChild, onParent, onGrandchild));
      assert.deepEqual((await ids(cast.reader.client, { q, labels: child.id })).sort(), sortedIds(onChild, onGrandchild));
      assert.deepEqual((await ids(cast.reader.client, { q, labels: `${grandchild.id},${other.id}` })).sort(), sortedIds(onGrandchild, onOther));
      assert.deepEqual((await ids(cast.reader.client, { q, labels: [grandchild.id, other.id.toUpperCase()] })).sort(), sortedIds(onGrandchild, onOther));
      assert.deepEqual((await ids(cast.reader.client, { q, labels: [`${child.id}, ${other.id}`, parent.id] })).sort(), sortedIds(onChild, onParent, onGrandchild, onOther));
      // The filter narrows a query that matches through a label name too.
      assert.deepEqual(await ids(cast.reader.client, { q: 'wald', labels: other.id }), [onOther.id]);
      assert.deepEqual(await ids(cast.reader.client, { q: 'wald', labels: child.id }), []);
    });

    test('an unknown or invisible pond or label is 404; malformed ones are 400', async () => {
      const visible = await cast.seedTeamPond();
      const hidden = await seedSharedPond(cast.owner.user.id);
      await createPage(cast.editor.client, visible.id, 'Sichtbar', 'Suchwort.\n');
      const hiddenLabel = await createLabel(cast.owner.client, hidden.id, 'Verborgen');
      const visibleLabel = await createLabel(cast.editor.client, visible.id, 'Offen');
      const outsider = cast.outsider.client;
      const get = (params: SearchParams, client: TestClient = outsider) => client.get(searchPath({ q: 'suchwort', ...params }));
      assertError(await get({ pondId: visible.id }), 404, 'not_found');
      assertError(await get({ pondId: MISSING_UUID }, cast.reader.client), 404, 'not_found');
      assertError(await get({ labels: visibleLabel.id }), 404, 'not_found');
      assertError(await get({ labels: MISSING_UUID }, cast.reader.client), 404, 'not_found');
      assertError(await get({ labels: `${visibleLabel.id},${MISSING_UUID}` }, cast.reader.client), 404, 'not_found');
      assertError(await get({ pondId: hidden.id }, cast.reader.client), 404, 'not_found');
      assertError(await get({ labels: hiddenLabel.id }, cast.reader.client), 404, 'not_found');
      assertError(await get({ labels: hiddenLabel.id, pondId: visible.id }, cast.reader.client), 404, 'not_found');
      assertError(await get({ labels: `${visibleLabel.id},${hiddenLabel.id}` }, cast.reader.client), 404, 'not_found');
      assert.equal((await get({ labels: hiddenLabel.id }, cast.owner.client)).status, 200, 'the owner sees that label');
      assert.equal((await get({ labels: visibleLabel.id }, cast.reader.client)).status, 200);
      assertFieldError(await get({ pondId: 'nope' }, cast.reader.client), 'query.pondId');
      for (const labels of ['nope', `${visibleLabel.id},nope`]) {
        const response = await get({ labels }, cast.reader.client);
        assertError(response, 400, 'validation_failed');
        assert.ok(fieldPaths(response).every((path) => path.startsWith('query.labels')), fieldPaths(response).join());
      }
      const tooMany = Array.from({ length: 51 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      const response = await get({ labels: tooMany.join(',') }, cast.reader.client);
      assertError(response, 400, 'validation_failed');
      assert.ok(fieldPaths(response).every((path) => path.startsWith('query.labels')));
    });
  });

});
