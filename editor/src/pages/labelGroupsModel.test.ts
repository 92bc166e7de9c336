import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LabelSummaryView, PageSummaryView } from '../api/apiViews.ts';
import { groupPagesByLabel } from './labelGroupsModel.ts';

const page = (id: string, title: string, labelIds: string[]): PageSummaryView => ({ id, pondId: 'p', slug: id, title, parentId: null, position: 'a', trashedAt: null, createdAt: '', updatedAt: '', labelIds });
const label = (id: string, name: string, parentId: string | null, depth: number): LabelSummaryView => ({ id, parentId, name, color: '#1b6480', depth, pageCount: 0, subtreePageCount: 0 });

test('pages stand under each of their labels, sorted by title; nested labels nest; the rest is unlabelled', () => {
  const labels = [label('L1', 'Projects', null, 1), label('L2', 'Bridges', 'L1', 2), label('L3', 'Empty', null, 1)];
  const pages = [page('a', 'Zebra', ['L1']), page('b', 'Äpfel', ['L1', 'L2']), page('c', 'Bridge 10', ['L2']), page('d', 'Bridge 9', ['L2']), page('e', 'Loose', []), page('f', 'Gone label', ['L9'])];
  const { groups, unlabelled } = groupPagesByLabel(pages, labels, 'de');
  assert.deepEqual(groups.map((group) => group.label.name), ['Projects', 'Empty']);
  assert.deepEqual(groups[0]!.pages.map((entry) => entry.title), ['Äpfel', 'Zebra']);
  assert.deepEqual(groups[0]!.children.map((group) => group.label.name), ['Bridges']);
  assert.deepEqual(groups[0]!.children[0]!.pages.map((entry) => entry.title), ['Äpfel', 'Bridge 9', 'Bridge 10']);
  assert.equal(groups[0]!.pageCount, 4, 'a page under a label and its sub-label counts once');
  assert.equal(groups[1]!.pageCount, 0);
  assert.deepEqual(unlabelled.map((entry) => entry.title), ['Gone label', 'Loose'], 'a label id the list does not know counts as none');
});
