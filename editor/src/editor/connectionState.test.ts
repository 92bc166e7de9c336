import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connectionState, hasUnsavedChanges, INITIAL_FACTS, type ConnectionFacts } from './connectionState.ts';
import { distinctInitials, initialsOf, presenceColourIndex, PRESENCE_COLOURS } from './presenceColours.ts';

const facts = (change: Partial<ConnectionFacts>): ConnectionFacts => ({ ...INITIAL_FACTS, ...change });
const live = { socket: 'connected', everConnected: true, synced: true, mode: 'rw' } as const;

describe('connectionState', () => {
  test('connecting until the first sync, then saved or saving', () => {
    assert.equal(connectionState(INITIAL_FACTS), 'connecting');
    assert.equal(connectionState(facts({ socket: 'connected', everConnected: true })), 'connecting');
    assert.equal(connectionState(facts(live)), 'saved');
    assert.equal(connectionState(facts({ ...live, unsynced: 2 })), 'saving');
  });

  test('a dropped socket reconnects; the browser offline wins over the socket', () => {
    assert.equal(connectionState(facts({ ...live, socket: 'disconnected', synced: false })), 'reconnecting');
    assert.equal(connectionState(facts({ ...live, socket: 'connecting', online: false })), 'offline');
    assert.equal(connectionState(facts({ socket: 'disconnected', online: false })), 'offline');
  });

  test('read-only once synced with an ro token; refusal wins over everything, and says why', () => {
    assert.equal(connectionState(facts({ ...live, mode: 'ro' })), 'readOnly');
    assert.equal(connectionState(facts({ ...live, refused: 'noAccess', online: false })), 'noAccess');
    assert.equal(connectionState(facts({ ...live, refused: 'sessionEnded', mode: 'ro' })), 'sessionEnded');
  });

  test('unsaved changes warn only for writers', () => {
    assert.equal(hasUnsavedChanges(facts({ ...live, unsynced: 1 })), true);
    assert.equal(hasUnsavedChanges(facts({ ...live, unsynced: 0 })), false);
    assert.equal(hasUnsavedChanges(facts({ ...live, unsynced: 1, mode: 'ro' })), false);
  });
});

describe('presence colours and initials', () => {
  test('a stable colour in range per user id', () => {
    const index = presenceColourIndex('0b7c1e3a-user');
    assert.equal(index, presenceColourIndex('0b7c1e3a-user'));
    assert.ok(index >= 0 && index < PRESENCE_COLOURS);
  });

  test('initials of one or more words', () => {
    assert.equal(initialsOf('Ada Lovelace'), 'AL');
    assert.equal(initialsOf('zora'), 'Z');
    assert.equal(initialsOf('  '), '?');
    assert.equal(initialsOf('Émile de la Tour'), 'ÉT');
  });

  test('people sharing initials are told apart by the first character where their names differ; everyone else keeps theirs', () => {
    assert.deepEqual(distinctInitials(['User 13', 'User 14', 'Ada Lovelace']), ['U3', 'U4', 'AL']);
    assert.deepEqual(distinctInitials(['User 13', 'User 14', 'User 15']), ['U3', 'U4', 'U5']);
    assert.deepEqual(distinctInitials(['Anna Schmidt', 'Anton Schulz']), ['AN', 'AT']);
    assert.deepEqual(distinctInitials(['zora', 'Ada Lovelace']), ['Z', 'AL']);
    assert.deepEqual(distinctInitials([]), []);
  });

  test('when one name is the start of the other, the last character tells them apart; the same name twice gets a number', () => {
    assert.deepEqual(distinctInitials(['User 1', 'User 13']), ['U1', 'U3']);
    assert.deepEqual(distinctInitials(['Ada Lovelace', 'Ada Lovelace']), ['AL1', 'AL2']);
  });

  test('a label someone else already shows is not handed out again', () => {
    // "U3" is the initials of "U 3": "User 13" and "User 14" fall back to their last two characters.
    assert.deepEqual(distinctInitials(['User 13', 'User 14', 'U 3']), ['U13', 'U14', 'U3']);
  });
});
