import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageSummaryView } from '../api/apiViews.ts';
import { buildPageTree, moveRequest } from './pageTreeModel.ts';

const page = (id: string, parentId: string | null, position: string): PageSummaryView => ({
  id, pondId: 'p', slug: id, title: id.toUpperCase(), parentId, position, trashedAt: null, createdAt: '', updatedAt: '',
});

// a ─ a1, a2 ─ a2x ; b ; c   (and a page whose parent is unreadable: top level)
const pages = [page('c', null, 'a2'), page('a2', 'a', 'a1'), page('a', null, 'a0'), page('b', null, 'a1'), page('a1', 'a', 'a0'), page('a2x', 'a2', 'a0'), page('lost', 'hidden', 'Z')];
const tree = buildPageTree(pages);

test('the tree: sibling order, children, descendants, unreadable parents at the top', () => {
  assert.deepEqual(tree.map((node) => node.id), ['lost', 'a', 'b', 'c']);
  assert.deepEqual(tree[1]!.children.map((node) => node.id), ['a1', 'a2']);
  assert.deepEqual(tree[1]!.descendantIds, ['a1', 'a2', 'a2x']);
  assert.equal(tree[0]!.parentId, null);
});

test('keyboard moves become position requests; none where the step does not exist', () => {
  assert.deepEqual(moveRequest(tree, 'b', 'up'), { parentId: null, before: 'a' });
  assert.deepEqual(moveRequest(tree, 'b', 'down'), { parentId: null, after: 'c' });
  assert.deepEqual(moveRequest(tree, 'b', 'in'), { parentId: 'a', index: 2 });
  assert.deepEqual(moveRequest(tree, 'a2x', 'out'), { parentId: 'a', after: 'a2' });
  assert.deepEqual(moveRequest(tree, 'a1', 'out'), { parentId: null, after: 'a' });
  assert.equal(moveRequest(tree, 'a1', 'up'), null);
  assert.equal(moveRequest(tree, 'c', 'down'), null);
  assert.equal(moveRequest(tree, 'a1', 'in'), null);
  assert.equal(moveRequest(tree, 'b', 'out'), null);
  assert.equal(moveRequest(tree, 'nope', 'up'), null);
});

test('ancestors, top first; none for a top-level page or one under an unreadable parent', async () => {
  const { ancestorsOf } = await import('./pageTreeModel.ts');
  assert.deepEqual(ancestorsOf(pages, 'a2x').map((entry) => entry.id), ['a', 'a2']);
  assert.deepEqual(ancestorsOf(pages, 'a'), []);
  assert.deepEqual(ancestorsOf(pages, 'lost'), []);
});
