import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageSummaryView } from '../../../editor/src/api/apiViews.ts';
import { buildTree, pathTo } from './pondTree.ts';

const page = (id: string, parentId: string | null, position: string): PageSummaryView => ({
  id, pondId: 'p', slug: id, title: id.toUpperCase(), parentId, position, trashedAt: null, createdAt: '', updatedAt: '',
});

test('the tree nests children under their parents in sibling order, whatever the list order', () => {
  const pages = [page('c', 'a', 'a1'), page('b', null, 'a1'), page('a', null, 'a0'), page('d', 'a', 'a0'), page('orphan', null, 'Z')];
  const tree = buildTree(pages);
  assert.deepEqual(tree.map((node) => node.id), ['orphan', 'a', 'b'], 'code-unit order: "Z" before "a0"');
  assert.deepEqual(tree[1]!.children.map((node) => node.id), ['d', 'c']);
});

test('the path to a page lists it and its ancestors', () => {
  const pages = [page('a', null, 'a0'), page('b', 'a', 'a0'), page('c', 'b', 'a0'), page('x', null, 'a1')];
  assert.deepEqual([...pathTo(pages, 'c')], ['c', 'b', 'a']);
  assert.deepEqual([...pathTo(pages, null)], []);
});
