import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { caretName, presenceUser } from './presenceCarets.ts';

describe('caretName', () => {
  test("a person's caret carries their name; a visitor's (no id, as the server sends it) the word for a visitor", () => {
    assert.equal(caretName(presenceUser('0b6f7a52-3c1e-4e0a-9a55-1d2a3b4c5d6e', 'Ada Lovelace'), 'Besucher'), 'Ada Lovelace');
    assert.equal(caretName({ name: 'Visitor' }, 'Besucher'), 'Besucher');
    assert.equal(caretName({}, 'Visitor'), 'Visitor');
  });
});
