import assert from 'node:assert/strict';
import { test } from 'node:test';
import { highlightParts, plainText } from './highlight.ts';

test('marked parts come out as such, the rest as plain text, markup as text', () => {
  assert.deepEqual(highlightParts('Die \uE000Bäume\uE001 am <b>\uE000Teich\uE001</b>'), [
    { text: 'Die ', marked: false },
    { text: 'Bäume', marked: true },
    { text: ' am <b>', marked: false },
    { text: 'Teich', marked: true },
    { text: '</b>', marked: false },
  ]);
  assert.deepEqual(highlightParts('no hit'), [{ text: 'no hit', marked: false }]);
  assert.deepEqual(highlightParts(''), []);
  assert.equal(plainText('\uE000Straße\uE001 frei'), 'Straße frei');
});
