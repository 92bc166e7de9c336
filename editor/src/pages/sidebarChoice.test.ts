import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sidebarChoiceFor, withSidebarChoice } from './sidebarChoice.ts';

const A = '0b7d2c1e-1111-4a4a-8a8a-000000000001';
const B = '0b7d2c1e-1111-4a4a-8a8a-000000000002';

test('a choice is found per pond; none chosen is null', () => {
  const value = withSidebarChoice(withSidebarChoice('', A, 'labels'), B, 'tree');
  assert.equal(sidebarChoiceFor(value, A), 'labels');
  assert.equal(sidebarChoiceFor(value, B), 'tree');
  assert.equal(sidebarChoiceFor(value, '0b7d2c1e-1111-4a4a-8a8a-000000000003'), null);
  assert.equal(sidebarChoiceFor('', A), null);
});

test('choosing again replaces the pond\'s entry and puts it first', () => {
  const value = withSidebarChoice(withSidebarChoice(withSidebarChoice('', A, 'labels'), B, 'tree'), A, 'tree');
  assert.equal(value, `${A}:tree|${B}:tree`);
});

test('garbage in the cookie is ignored, and at most 30 ponds are remembered', () => {
  assert.equal(sidebarChoiceFor(`nonsense|${A}:graph|${A.toUpperCase()}:labels`, A), 'labels');
  let value = '';
  for (let index = 0; index < 40; index++) value = withSidebarChoice(value, `0b7d2c1e-1111-4a4a-8a8a-${String(index).padStart(12, '0')}`, 'labels');
  assert.equal(value.split('|').length, 30);
  assert.equal(sidebarChoiceFor(value, `0b7d2c1e-1111-4a4a-8a8a-${String(39).padStart(12, '0')}`), 'labels');
  assert.equal(sidebarChoiceFor(value, `0b7d2c1e-1111-4a4a-8a8a-${String(0).padStart(12, '0')}`), null);
});
