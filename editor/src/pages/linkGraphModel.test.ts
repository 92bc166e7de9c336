/**
 * The link graph's data apart from drawing: nodes with link counts, the label filter (with
 * sub-labels, phantoms following their referrers), list order and the search's choice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LabelSummaryView } from '../api/apiViews.ts';
import { buildGraphData, circlePositions, findNode, listRows, phantomKey, visibleKeys, type LinkGraphView } from './linkGraphModel.ts';

const view: LinkGraphView = {
  nodes: [
    { id: 'a', title: 'Alpha', slug: 'alpha', labelIds: ['l1'] },
    { id: 'b', title: 'Brücke', slug: 'bruecke', labelIds: ['l2'] },
    { id: 'c', title: 'Canal', slug: 'canal', labelIds: [] },
  ],
  edges: [
    { source: 'a', target: 'b' },
    { source: 'c', target: 'a' },
  ],
  phantoms: [{ targetSlug: 'dam', referrerIds: ['a', 'c'] }],
};
const labels = [
  { id: 'l1', parentId: null, name: 'Projects', color: '#000', depth: 1, pageCount: 1 },
  { id: 'l2', parentId: 'l1', name: 'Bridges', color: '#000', depth: 2, pageCount: 1 },
] as LabelSummaryView[];

test('nodes count their links in and out, phantoms included', () => {
  const data = buildGraphData(view);
  const counts = Object.fromEntries(data.nodes.map((node) => [node.key, [node.linksOut, node.linksIn]]));
  assert.deepEqual(counts, { a: [2, 1], b: [0, 1], c: [2, 0], [phantomKey('dam')]: [0, 2] });
  assert.equal(data.edges.filter((edge) => edge.toPhantom).length, 2);
});

test('a label filter keeps its pages, its sub-labels\' pages and the phantoms they link to', () => {
  const data = buildGraphData(view);
  assert.deepEqual([...visibleKeys(data, labels, 'l1')].sort(), ['a', 'b', phantomKey('dam')]);
  assert.deepEqual([...visibleKeys(data, labels, 'l2')], ['b']);
  assert.equal(visibleKeys(data, labels, null).size, 4);
});

test('the list view has pages by title, then missing targets', () => {
  const data = buildGraphData(view);
  assert.deepEqual(listRows(data, visibleKeys(data, labels, null), 'de').map((node) => node.key), ['a', 'b', 'c', phantomKey('dam')]);
});

test('search prefers an equal title, then a prefix, then a part, ignoring case and accents', () => {
  const data = buildGraphData(view);
  const all = visibleKeys(data, labels, null);
  assert.equal(findNode(data, all, 'brucke')?.key, 'b');
  assert.equal(findNode(data, all, 'an')?.key, 'c');
  assert.equal(findNode(data, all, 'DA')?.key, phantomKey('dam'));
  assert.equal(findNode(data, all, '  '), null);
  assert.equal(findNode(data, new Set(['a']), 'canal'), null, 'only shown nodes are found');
});

test('starting positions are the same on every call', () => {
  assert.deepEqual(circlePositions(5), circlePositions(5));
  assert.equal(new Set(circlePositions(5).map((point) => `${point.x.toFixed(3)},${point.y.toFixed(3)}`)).size, 5);
});
