import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packSidebarPages, unpackSidebarPages, type SidebarPage } from './sidebarPages.ts';

const page = (id: string, parentId: string | null, title: string, labelIds: string[] = []): SidebarPage => ({ id, parentId, slug: `s-${id}`, title, position: `a${id}`, labelIds });

test('packing and unpacking gives the same pages, parents first, whatever the order given', () => {
  const pages = [page('c', 'b', 'Child'), page('b', 'a', 'Middle', ['L1', 'L2']), page('a', null, 'Root'), page('d', null, 'Other')];
  const unpacked = unpackSidebarPages(packSidebarPages(pages));
  assert.deepEqual([...unpacked].sort((x, y) => x.id.localeCompare(y.id)), [...pages].sort((x, y) => x.id.localeCompare(y.id)));
  const order = unpacked.map((entry) => entry.id);
  assert.ok(order.indexOf('a') < order.indexOf('b') && order.indexOf('b') < order.indexOf('c'), 'parents come first');
});

test('titles with tabs, newlines, backslashes and escapes survive; a parent outside the list is the top level', () => {
  const tricky = [page('a', 'gone', 'Tab\there\nnew line \\t not a tab \\\\ two'), page('b', 'a', 'ümlaut & <b>')];
  assert.deepEqual(unpackSidebarPages(packSidebarPages(tricky)), [{ ...tricky[0]!, parentId: null }, tricky[1]]);
  assert.deepEqual(unpackSidebarPages(packSidebarPages([])), []);
});

test('a page is about a line of its fields: far below the tagged JSON of its object', () => {
  const many = Array.from({ length: 2000 }, (_, index) => ({ ...page(`0b7d2c1e-1111-4a4a-8a8a-${String(index).padStart(12, '0')}`, index === 0 ? null : `0b7d2c1e-1111-4a4a-8a8a-${String(Math.floor(index / 10)).padStart(12, '0')}`, `Page number ${index}`), slug: `page-number-${index}` }));
  const packed = packSidebarPages(many);
  assert.ok(packed.length / many.length < 130, `${(packed.length / many.length).toFixed(0)} bytes a page`);
  assert.equal(unpackSidebarPages(packed).length, 2000);
});
