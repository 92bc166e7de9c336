import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyWithMentions, editableText, insertMention, matchMembers, mentionQueryAt } from './commentMentions.ts';

const VERA = '0b5c1f3e-1111-4222-8333-444455556666';
const ANN = '1b5c1f3e-1111-4222-8333-444455556666';
const members = [
  { userId: VERA, displayName: 'Vera Müller', username: 'vera' },
  { userId: ANN, displayName: 'Ann Lee', username: 'annl' },
  { userId: 'c', displayName: 'Tom Avery', username: 'tom' },
];

test('an @ that starts a word opens a query; one inside a word or after a space in the query does not', () => {
  assert.deepEqual(mentionQueryAt('Hi @Ve', 6), { start: 3, end: 6, query: 'Ve' });
  assert.deepEqual(mentionQueryAt('@', 1), { start: 0, end: 1, query: '' });
  assert.deepEqual(mentionQueryAt('line\n(@to', 9), { start: 6, end: 9, query: 'to' });
  assert.equal(mentionQueryAt('mail me@example', 15), null);
  assert.equal(mentionQueryAt('@Vera M', 7), null);
  assert.deepEqual(mentionQueryAt('Hi @Ve and more', 6), { start: 3, end: 6, query: 'Ve' }, 'the caret decides, not the text after it');
});

test('members match on any word of their name or their username, word starts first', () => {
  assert.deepEqual(matchMembers(members, 'mü').map((member) => member.username), ['vera']);
  assert.deepEqual(matchMembers(members, 'l').map((member) => member.username), ['annl', 'vera']);
  assert.deepEqual(matchMembers(members, 'ver').map((member) => member.username), ['vera', 'tom'], 'Avery contains "ver" after the word start');
  assert.deepEqual(matchMembers(members, '').map((member) => member.username), ['annl', 'tom', 'vera']);
  assert.deepEqual(matchMembers(members, 'zz'), []);
  assert.equal(matchMembers(Array.from({ length: 20 }, (_, index) => ({ userId: `${index}`, displayName: `P ${index}`, username: `p${index}` })), 'p').length, 8);
});

test('choosing puts the name in place of the query, one space after it', () => {
  assert.deepEqual(insertMention('Hi @Ve', { start: 3, end: 6, query: 'Ve' }, 'Vera Müller'), { text: 'Hi @Vera Müller ', caret: 16 });
  assert.deepEqual(insertMention('@a thanks', { start: 0, end: 2, query: 'a' }, 'Ann Lee'), { text: '@Ann Lee thanks', caret: 9 });
});

test('chosen names become mention Markdown; a name edited away, or only a prefix of a longer word, stays text', () => {
  const chosen = [{ label: 'Vera Müller', userId: VERA }, { label: 'Ann', userId: ANN }, { label: 'Ann Lee', userId: 'x'.repeat(36) }];
  assert.equal(
    bodyWithMentions('@Vera Müller and @Ann Lee, not @Annika or mail@Ann or @Vera', chosen),
    `[@Vera Müller](dt-mention:${VERA}) and [@Ann Lee](dt-mention:${'x'.repeat(36)}), not @Annika or mail@Ann or @Vera`,
  );
  assert.equal(bodyWithMentions('(@Ann) [x]', [{ label: 'Ann', userId: ANN }]), `([@Ann](dt-mention:${ANN})) [x]`);
  assert.equal(bodyWithMentions('plain', []), 'plain');
  assert.equal(bodyWithMentions('@A [b]', [{ label: 'A [b]', userId: ANN }]), `[@A \\[b\\]](dt-mention:${ANN})`, 'brackets in a name are escaped');
});

test('a stored body reads back as the text the field showed, with its mentions', () => {
  const chosen = [{ label: 'Vera Müller', userId: VERA }, { label: 'A [b]', userId: ANN }];
  const text = 'Hi @Vera Müller and @A [b], twice @Vera Müller';
  const stored = bodyWithMentions(text, chosen);
  assert.deepEqual(editableText(stored), { text, chosen });
  assert.deepEqual(editableText(`[@Ann](dt-mention\\:${ANN})`), { text: '@Ann', chosen: [{ label: 'Ann', userId: ANN }] }, 'the page exporter\'s escaped form reads too');
  assert.deepEqual(editableText('[a](https://x.example)'), { text: '[a](https://x.example)', chosen: [] });
});
