/**
 * `PATCH /pages/:id/position` through HTTP: placement (before, after, index, last), reparent
 * atomic with placement, the cycle and depth refusals, permissions on the page and on the
 * new parent, and page creation at a chosen place. Concurrency: pageMoveConcurrency.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import type { Pond } from '../models/index.ts';
import { seedGrant } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { assertError, assertFieldError, MISSING_UUID, seedTeamPondFor, signInUsers, usePondCast, type SignedIn } from '../testing/pondTestSetup.ts';
import type { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

describe('PATCH /pages/:id/position', () => {
  const cast = usePondCast();
  let pond: Pond;

  async function createPage(title: string, parentId: string | null = null, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title, parentId, ...extra });
    assert.equal(response.status, 201, response.text);
    return response.body.id;
  }

  /** Titles of the live children of `parentId`, in position order. */
  async function childrenOf(parentId: string | null): Promise<string[]> {
    const rows = await cast.instance.services.sequelize.query<{ title: string }>(
      `SELECT title FROM pages WHERE pond_id = :pondId AND parent_id IS NOT DISTINCT FROM CAST(:parentId AS uuid) AND trashed_at IS NULL ORDER BY position`,
      { replacements: { pondId: pond.id, parentId }, type: QueryTypes.SELECT },
    );
    return rows.map((row) => row.title);
  }

  const move = (client: TestClient, pageId: string, body: unknown) => client.request('PATCH', `/pages/${pageId}/position`, { body });

  beforeEach(async () => {
    pond = await cast.seedTeamPond();
  });

  test('reorders among siblings: before, after, index and first/last, never renumbering the others', async () => {
    const ids = [await createPage('A'), await createPage('B'), await createPage('C'), await createPage('D')];
    const [a, b, c, d] = ids as [string, string, string, string];
    const before = await cast.instance.services.sequelize.query<{ id: string; position: string }>(`SELECT id, position FROM pages WHERE id IN (:ids)`, {
      replacements: { ids },
      type: QueryTypes.SELECT,
    });

    let response = await move(cast.editor.client, d, { before: b });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(await childrenOf(null), ['A', 'D', 'B', 'C']);
    assert.equal(response.body.id, d);
    assert.equal(response.body.parentId, null);

    response = await move(cast.editor.client, a, { after: c });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(await childrenOf(null), ['D', 'B', 'C', 'A']);

    assert.equal((await move(cast.editor.client, c, { index: 0 })).status, 200);
    assert.deepEqual(await childrenOf(null), ['C', 'D', 'B', 'A']);
    // Index counts the other siblings: 3 of them, so 3 is last and 2 is before the last.
    assert.equal((await move(cast.editor.client, c, { index: 3 })).status, 200);
    assert.deepEqual(await childrenOf(null), ['D', 'B', 'A', 'C']);
    assert.equal((await move(cast.editor.client, d, { index: 2 })).status, 200);
    assert.deepEqual(await childrenOf(null), ['B', 'A', 'D', 'C']);

    const afterMoves = await cast.instance.services.sequelize.query<{ id: string; position: string }>(`SELECT id, position FROM pages WHERE id IN (:ids)`, {
      replacements: { ids: [b] },
      type: QueryTypes.SELECT,
    });
    // B was never moved: its key is untouched.
    assert.equal(afterMoves[0]!.position, before.find((row) => row.id === b)!.position);
  });

  test('reparents atomically with the placement; null moves to the top level; the slug stays', async () => {
    const parent = await createPage('Parent');
    const first = await createPage('First', parent);
    const second = await createPage('Second', parent);
    const loose = await createPage('Loose');

    const response = await move(cast.editor.client, loose, { parentId: parent, before: second });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.parentId, parent);
    assert.equal(response.body.slug, 'loose');
    assert.deepEqual(await childrenOf(parent), ['First', 'Loose', 'Second']);

    // A parent alone: last in the new group.
    assert.equal((await move(cast.editor.client, first, { parentId: loose })).status, 200);
    assert.deepEqual(await childrenOf(loose), ['First']);

    const toTop = await move(cast.editor.client, first, { parentId: null, index: 0 });
    assert.equal(toTop.status, 200, toTop.text);
    assert.equal(toTop.body.parentId, null);
    assert.deepEqual(await childrenOf(null), ['First', 'Parent']);
  });

  test('the page list shows the new parent and position, and updatedSince catches the move', async () => {
    const parent = await createPage('Parent');
    const child = await createPage('Child');
    const since = new Date().toISOString();
    const response = await move(cast.editor.client, child, { parentId: parent });
    const list = await cast.reader.client.get(`/ponds/${pond.id}/pages?updatedSince=${encodeURIComponent(since)}`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((item: { id: string; parentId: string; position: string }) => [item.id, item.parentId, item.position]),
      [[child, parent, response.body.position]],
    );
  });

  test('a parent inside the own subtree, or the page itself, is a cycle: 409 page_cycle, nothing changes', async () => {
    const top = await createPage('Top');
    const middle = await createPage('Middle', top);
    const bottom = await createPage('Bottom', middle);
    assertError(await move(cast.editor.client, top, { parentId: bottom }), 409, 'page_cycle');
    assertError(await move(cast.editor.client, top, { parentId: middle }), 409, 'page_cycle');
    assertError(await move(cast.editor.client, top, { parentId: top }), 409, 'page_cycle');
    assert.deepEqual(await childrenOf(null), ['Top']);
    assert.deepEqual(await childrenOf(bottom), []);
  });

  test('depth counts the whole moved subtree: over 6 levels is 409 page_depth_exceeded', async () => {
    // A chain of 5 (depths 1-5) and a separate page with one child (height 2).
    let chainEnd: string | null = null;
    for (let level = 1; level <= 5; level += 1) chainEnd = await createPage(`Level ${level}`, chainEnd);
    const branch = await createPage('Branch');
    await createPage('Leaf', branch);
    const refused = await move(cast.editor.client, branch, { parentId: chainEnd });
    assertError(refused, 409, 'page_depth_exceeded');
    assert.equal(refused.body.error.details.maxDepth, 6);
    // A single page fits at depth 6.
    const leafOnly = await createPage('Alone');
    assert.equal((await move(cast.editor.client, leafOnly, { parentId: chainEnd })).status, 200);
  });

  test('bad bodies: 400 naming the field', async () => {
    const a = await createPage('A');
    const b = await createPage('B');
    const child = await createPage('Child', b);
    const other = await seedTeamPondFor(cast.owner.user.id, cast.editor.user.id, cast.reader.user.id);
    const elsewhere = (await cast.editor.client.post(`/ponds/${other.id}/pages`, { title: 'Elsewhere' })).body.id as string;

    assertError(await move(cast.editor.client, a, {}), 400, 'validation_failed');
    assertError(await move(cast.editor.client, a, { before: b, after: b }), 400, 'validation_failed');
    assertFieldError(await move(cast.editor.client, a, { index: -1 }), 'index');
    assertFieldError(await move(cast.editor.client, a, { index: 1.5 }), 'index');
    assertFieldError(await move(cast.editor.client, a, { parentId: 'nope' }), 'parentId');
    assertFieldError(await move(cast.editor.client, a, { colour: 'red' }), '');
    // Not a sibling in the target group, the page itself, a missing page, a page of another pond.
    assertFieldError(await move(cast.editor.client, a, { before: child }), 'before');
    assertFieldError(await move(cast.editor.client, a, { after: a }), 'after');
    assertFieldError(await move(cast.editor.client, a, { before: MISSING_UUID }), 'before');
    assertFieldError(await move(cast.editor.client, a, { before: elsewhere }), 'before');
    const outOfRange = await move(cast.editor.client, a, { index: 2 });
    assertFieldError(outOfRange, 'index');
    assert.equal(outOfRange.body.error.details.fields[0].max, 1);
    // A parent elsewhere or missing: the same answer, revealing nothing.
    assertFieldError(await move(cast.editor.client, a, { parentId: elsewhere }), 'parentId');
    assertFieldError(await move(cast.editor.client, a, { parentId: MISSING_UUID }), 'parentId');
    assert.deepEqual(await childrenOf(null), ['A', 'B']);
  });

  test('a trashed parent is refused like a missing one; a trashed page answers page_trashed', async () => {
    const a = await createPage('A');
    const gone = await createPage('Gone');
    assert.equal((await cast.editor.client.request('DELETE', `/pages/${gone}`)).status, 200);
    assertFieldError(await move(cast.editor.client, a, { parentId: gone }), 'parentId');
    assertError(await move(cast.editor.client, gone, { index: 0 }), 404, 'page_trashed');
    assertError(await move(cast.reader.client, gone, { index: 0 }), 404, 'not_found');
  });

  test('permissions: 401 anonymous, 404 outsider and missing, 403 reader, 403 without write on the new parent', async () => {
    const a = await createPage('A');
    const locked = await createPage('Locked');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'editor', scope: { type: 'page', id: locked }, effect: 'deny' });
    const hidden = await createPage('Hidden');
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.editor.user.id }, role: 'reader', scope: { type: 'page', id: hidden }, effect: 'deny' });

    assertError(await move(cast.anonymous, a, { index: 0 }), 401, 'unauthenticated');
    assertError(await move(cast.outsider.client, a, { index: 0 }), 404, 'not_found');
    assertError(await move(cast.editor.client, MISSING_UUID, { index: 0 }), 404, 'not_found');
    assertError(await move(cast.editor.client, 'not-a-uuid', { index: 0 }), 404, 'not_found');
    assertError(await move(cast.reader.client, a, { index: 0 }), 403, 'forbidden');
    // Readable but not writable parent: 403; unreadable parent: the same 400 as a missing one.
    assertError(await move(cast.editor.client, a, { parentId: locked }), 403, 'forbidden');
    assertFieldError(await move(cast.editor.client, a, { parentId: hidden }), 'parentId');
    // The locked page itself cannot be moved by the editor.
    assertError(await move(cast.editor.client, locked, { index: 0 }), 403, 'forbidden');
    // The owner (pond admin) can do all of it.
    assert.equal((await move(cast.owner.client, a, { parentId: locked })).status, 200);
  });

  test('the target parent must be writable, also for a reorder in place; the top level needs write on the pond', async () => {
    const parent = await createPage('Parent');
    const child = await createPage('Child', parent);
    const sibling = await createPage('Sibling', parent);
    const top = await createPage('Top');
    // A page-scope editor (reader of the pond) of the child and of the top-level page.
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'editor', scope: { type: 'page', id: child } });
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'editor', scope: { type: 'page', id: top } });
    assertError(await move(cast.reader.client, child, { parentId: null }), 403, 'forbidden');
    assertError(await move(cast.reader.client, child, { after: sibling }), 403, 'forbidden');
    assertError(await move(cast.reader.client, top, { index: 0 }), 403, 'forbidden');
    assert.deepEqual(await childrenOf(parent), ['Child', 'Sibling']);
    // With write on the parent as well, the reorder goes through.
    await seedGrant(pond.id, { subject: { type: 'user', id: cast.reader.user.id }, role: 'editor', scope: { type: 'page', id: parent } });
    const reorder = await move(cast.reader.client, child, { after: sibling });
    assert.equal(reorder.status, 200, reorder.text);
    assert.deepEqual(await childrenOf(parent), ['Sibling', 'Child']);
    // Moving under a page it may write, out of the top level: allowed.
    assert.equal((await move(cast.reader.client, top, { parentId: child })).status, 200);
  });

  test('a pond in the trash refuses moves', async () => {
    const a = await createPage('A');
    assert.equal((await cast.owner.client.post(`/ponds/${pond.id}/trash`, {})).status, 200);
    assertError(await move(cast.owner.client, a, { index: 0 }), 409, 'pond_trashed');
    // Members who are not pond admins no longer see the pond at all.
    assertError(await move(cast.editor.client, a, { index: 0 }), 404, 'not_found');
  });
});

describe('POST /ponds/:id/pages placement', () => {
  let instance: TestInstance;
  let owner: SignedIn;
  let editor: SignedIn;
  let reader: SignedIn;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    [owner, editor, reader] = (await signInUsers(instance, 3)) as [SignedIn, SignedIn, SignedIn];
  });
  after(() => instance.close());

  test('a new page goes last unless told: before, after or index', async () => {
    const pond = await seedTeamPondFor(owner.user.id, editor.user.id, reader.user.id);
    const create = async (body: Record<string, unknown>) => {
      const response = await editor.client.post(`/ponds/${pond.id}/pages`, body);
      assert.equal(response.status, 201, response.text);
      return response.body.id as string;
    };
    const a = await create({ title: 'A' });
    const c = await create({ title: 'C' });
    await create({ title: 'B', after: a });
    await create({ title: 'Start', index: 0 });
    await create({ title: 'Before C', before: c });
    await create({ title: 'End' });
    const rows = await instance.services.sequelize.query<{ title: string }>(`SELECT title FROM pages WHERE pond_id = :pondId ORDER BY position`, {
      replacements: { pondId: pond.id },
      type: QueryTypes.SELECT,
    });
    assert.deepEqual(
      rows.map((row) => row.title),
      ['Start', 'A', 'B', 'Before C', 'C', 'End'],
    );
    assertFieldError(await editor.client.post(`/ponds/${pond.id}/pages`, { title: 'X', before: MISSING_UUID }), 'before');
    assertFieldError(await editor.client.post(`/ponds/${pond.id}/pages`, { title: 'X', index: 99 }), 'index');
  });
});
