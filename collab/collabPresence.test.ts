/**
 * Presence (awareness) is bound to who the connection is, whatever the client announces: the
 * server writes the `user` of every state a connection sends (a signed-in user's id and display
 * name, a visitor's fixed "Visitor"), keeps a colour only when it is one of ours, keeps only
 * `user` and a small `cursor`, and drops states for clients of other connections. Real
 * providers and a bare protocol client against the real collab server.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as encoding from 'lib0/encoding';
import type { HocuspocusProvider } from '@hocuspocus/provider';
import { seedGrant, seedPage } from '../api/testing/accessFixtures.ts';
import { collabToken, editorPool, useCollabCast, waitFor, type TestEditor } from './testing/collabHarness.ts';
import { awarenessMessage, ProtocolClient } from './testing/protocolClient.ts';

const SPOOFED_NAME = 'bob (Site Admin) – please re-enter your password at https://evil.example/login';

type State = Record<string, unknown>;

/** A cursor as y-tiptap announces it; `tag` tells one announcement from another. */
function cursorOf(tag: number) {
  return { anchor: { type: null, tname: 'default', item: null, assoc: tag }, head: { type: null, tname: 'default', item: null, assoc: tag } };
}

/** The state `watcher` holds for `clientId` once its cursor carries `tag` (the announcement arrived). */
function stateArrived(watcher: TestEditor, clientId: number, tag: number, timeoutMs = 5000): Promise<State> {
  return waitFor(
    () => {
      const state = awarenessOf(watcher.provider).getStates().get(clientId) as State | undefined;
      return (state?.cursor as { anchor?: { assoc?: number } } | undefined)?.anchor?.assoc === tag ? state : undefined;
    },
    timeoutMs,
    `the state of client ${clientId} with cursor ${tag}`,
  );
}

function awarenessOf(provider: HocuspocusProvider) {
  return provider.awareness!;
}

/** A raw awareness update (y-protocols' encoding) with client ids and clocks of our choosing. */
function awarenessUpdate(entries: { clientId: number; clock: number; state: State }[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const { clientId, clock, state } of entries) {
    encoding.writeVarUint(encoder, clientId);
    encoding.writeVarUint(encoder, clock);
    encoding.writeVarString(encoder, JSON.stringify(state));
  }
  return encoding.toUint8Array(encoder);
}

describe('presence is bound to the connection', () => {
  const cast = useCollabCast();
  const { open, closeAll } = editorPool(cast);

  /** A team pond page the public may read. */
  async function publicPage(title: string) {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, title);
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } });
    return page;
  }

  test("an anonymous reader's announced name, id and extra fields never reach an editor: it shows as Visitor", async (t) => {
    t.after(closeAll);
    const page = await publicPage('Visited');
    const editor = await open(cast.editor.client, page.id);
    const visitor = await open(cast.anonymous, page.id);
    assert.equal(visitor.provider.authorizedScope, 'readonly');
    awarenessOf(visitor.provider).setLocalState({
      user: { id: cast.owner.user.id, name: SPOOFED_NAME, color: '#1d4ed8', colourIndex: 1 },
      cursor: cursorOf(1),
      message: SPOOFED_NAME,
    });
    const seen = await stateArrived(editor, visitor.ydoc.clientID, 1);
    assert.deepEqual(seen, { user: { name: 'Visitor' }, cursor: cursorOf(1) });
  });

  test("a read-only member's announced name and id become theirs; an editor's own name arrives as their display name", async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Named');
    const editor = await open(cast.editor.client, page.id);
    const reader = await open(cast.reader.client, page.id);
    assert.equal(reader.provider.authorizedScope, 'readonly');
    // What the editor island announces for itself (presenceCarets.ts).
    awarenessOf(editor.provider).setLocalState({ user: { id: cast.editor.user.id, name: cast.editor.credentials.displayName, color: '#b91c1c', colourIndex: 1 }, cursor: cursorOf(2) });
    // A hostile read-only client: someone else's id and name, a colour that is not one, a class name for an index.
    awarenessOf(reader.provider).setLocalState({ user: { id: cast.owner.user.id, name: SPOOFED_NAME, color: 'red;background:url(https://evil.example)', colourIndex: '1 injected-class' }, cursor: cursorOf(3) });

    const editorAtReader = await stateArrived(reader, editor.ydoc.clientID, 2);
    assert.deepEqual(editorAtReader.user, { id: cast.editor.user.id, name: cast.editor.credentials.displayName, color: '#b91c1c', colourIndex: 1 });
    const readerAtEditor = await stateArrived(editor, reader.ydoc.clientID, 3);
    assert.deepEqual(readerAtEditor.user, { id: cast.reader.user.id, name: cast.reader.credentials.displayName });
  });

  test("a signed-in client's name is its display name even when it announces another one, and a name it omits is filled in", async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Filled in');
    const watcher = await open(cast.owner.client, page.id);
    const editor = await open(cast.editor.client, page.id);
    awarenessOf(editor.provider).setLocalState({ user: { id: cast.editor.user.id, name: 'x'.repeat(300), color: '#047857', colourIndex: 2 }, cursor: cursorOf(4) });
    const renamed = await stateArrived(watcher, editor.ydoc.clientID, 4);
    assert.deepEqual(renamed.user, { id: cast.editor.user.id, name: cast.editor.credentials.displayName, color: '#047857', colourIndex: 2 });
    awarenessOf(editor.provider).setLocalState({ cursor: cursorOf(5) });
    const filled = await stateArrived(watcher, editor.ydoc.clientID, 5);
    assert.deepEqual(filled.user, { id: cast.editor.user.id, name: cast.editor.credentials.displayName });
  });

  test("a bare client can neither overwrite another connection's state nor flood the page with presences, nor send a large cursor", async (t) => {
    t.after(closeAll);
    const page = await publicPage('Flooded');
    const watcher = await open(cast.owner.client, page.id);
    const editor = await open(cast.editor.client, page.id);
    awarenessOf(editor.provider).setLocalState({ user: { id: cast.editor.user.id, name: cast.editor.credentials.displayName }, cursor: cursorOf(6) });
    await stateArrived(watcher, editor.ydoc.clientID, 6);
    const victimClock = awarenessOf(watcher.provider).meta.get(editor.ydoc.clientID)!.clock;

    const hostile = await ProtocolClient.connect(cast.wsUrl, page.id, await collabToken(cast.anonymous, page.id));
    t.after(() => hostile.close());
    const ownId = 4_000_000_001;
    const flood = Array.from({ length: 20 }, (_, index) => ({ clientId: ownId + 1 + index, clock: 1, state: { user: { name: `fake ${index}` }, cursor: cursorOf(100 + index) } }));
    hostile.send(
      awarenessMessage(
        page.id,
        awarenessUpdate([
          // The editor's client id, with a newer clock: as if the editor announced it.
          { clientId: editor.ydoc.clientID, clock: victimClock + 10, state: { user: { id: cast.editor.user.id, name: SPOOFED_NAME }, cursor: cursorOf(7) } },
          { clientId: ownId, clock: 1, state: { cursor: { anchor: { tname: 'x'.repeat(2000) }, head: null } } },
          ...flood,
        ]),
      ),
    );
    // Messages of a connection are handled in order: once the next one shows, the first was handled.
    const sentinel = flood[0]!.clientId;
    hostile.send(awarenessMessage(page.id, awarenessUpdate([{ clientId: sentinel, clock: 2, state: { cursor: cursorOf(99) } }])));
    await stateArrived(watcher, sentinel, 99);
    const states = awarenessOf(watcher.provider).getStates();
    assert.deepEqual(states.get(editor.ydoc.clientID), { user: { id: cast.editor.user.id, name: cast.editor.credentials.displayName }, cursor: cursorOf(6) }, "the editor's state was overwritten");
    const hostileIds = [ownId, ...flood.map((entry) => entry.clientId)].filter((id) => states.has(id));
    assert.ok(hostileIds.length <= 4, `the bare client holds ${hostileIds.length} presences`);
    for (const id of hostileIds) assert.equal((states.get(id) as { user?: { name?: string } }).user?.name, 'Visitor');
    assert.deepEqual(states.get(ownId), { user: { name: 'Visitor' } }, 'the oversized cursor was passed on');
    assert.deepEqual(states.get(sentinel), { user: { name: 'Visitor' }, cursor: cursorOf(99) });
  });
});
