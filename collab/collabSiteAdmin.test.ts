/**
 * Site Admin reaches every pond, so granting or revoking it changes what the user's open
 * collab sockets may do: both are announced (`user_sessions_changed`, sent at commit), and the
 * collab server checks that user's connections again within 5 s, as after any access change.
 * Revoked: the socket on a pond the user does not belong to closes, and its token no longer
 * opens one. Granted: a read-only socket closes and the provider comes back read-write.
 */
import assert from 'node:assert/strict';
import { before, describe, test, type TestContext } from 'node:test';
import * as Y from 'yjs';
import { User } from '../api/models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../api/testing/accessFixtures.ts';
import { createVerifiedUser } from '../api/testing/fixtures.ts';
import { collabToken, editorPool, useCollabCast, waitFor } from './testing/collabHarness.ts';
import { ProtocolClient, updateMessage } from './testing/protocolClient.ts';

const CLOSE_BOUND_MS = 5000;

/** One update message that inserts `text` as the page's first paragraph. */
function paragraphUpdate(pageId: string, text: string): Uint8Array {
  const ydoc = new Y.Doc();
  const paragraph = new Y.XmlElement('paragraph');
  ydoc.getXmlFragment('default').insert(0, [paragraph]);
  paragraph.insert(0, [new Y.XmlText(text)]);
  return updateMessage(pageId, Y.encodeStateAsUpdate(ydoc));
}

describe('collab sockets when Site Admin is granted or revoked', () => {
  const cast = useCollabCast();
  const { open, closeAll } = editorPool(cast);

  before(async () => {
    // The owner acts as the Site Admin who grants and revokes.
    await User.update({ isSiteAdmin: true }, { where: { id: cast.owner.user.id } });
  });

  function elapsedWithinBound(t: TestContext, what: string, since: number): void {
    const latency = Date.now() - since;
    t.diagnostic(`${what}: socket closed ${latency} ms after the request`);
    assert.ok(latency < CLOSE_BOUND_MS, `${what}: closed after ${latency} ms`);
  }

  test('revoking Site Admin closes the socket on a pond the user does not belong to within 5 s; its token opens none again', async (t) => {
    const admin = await createVerifiedUser(cast.instance);
    await User.update({ isSiteAdmin: true }, { where: { id: admin.user.id } });
    // A pond of the owner's where the admin holds no grant: only Site Admin lets them in.
    const pond = await seedSharedPond(cast.owner.user.id);
    const page = await seedPage(pond.id, 'Not theirs');
    const token = await collabToken(admin.client, page.id);
    const socket = await ProtocolClient.connect(cast.wsUrl, page.id, token);
    t.after(() => socket.close());
    socket.send(paragraphUpdate(page.id, 'while Site Admin'));
    await socket.until(() => socket.acks === 1, 5000, 'the update as Site Admin');

    const started = Date.now();
    const revoked = await cast.owner.client.request('DELETE', `/admin/users/${admin.user.id}/site-admin`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.isSiteAdmin, false);
    await socket.until(() => socket.closed, CLOSE_BOUND_MS + 1000, 'the ex-admin socket to close');
    elapsedWithinBound(t, 'revoke', started);
    assert.equal(socket.acks, 1, 'an update was acknowledged after the revocation');
    // The token, still unexpired, speaks for what the user is now: nothing on this pond.
    await assert.rejects(ProtocolClient.connect(cast.wsUrl, page.id, token), /refused: not-found/);
    assert.equal((await admin.client.get(`/pages/${page.id}/collab-token`)).status, 404);
  });

  test('granting Site Admin closes a read-only socket within 5 s, and the provider comes back read-write', async (t) => {
    t.after(closeAll);
    const user = await createVerifiedUser(cast.instance);
    // The public may read this page; the user holds no grant in the pond.
    const pond = await seedSharedPond(cast.owner.user.id);
    const page = await seedPage(pond.id, 'Public');
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } });
    const editor = await open(user.client, page.id);
    assert.equal(editor.provider.authorizedScope, 'readonly');

    const started = Date.now();
    const granted = await cast.owner.client.request('PUT', `/admin/users/${user.user.id}/site-admin`);
    assert.equal(granted.status, 200, granted.text);
    assert.equal(granted.body.isSiteAdmin, true);
    await waitFor(() => editor.seen.closed, CLOSE_BOUND_MS + 1000, 'the read-only socket to close');
    elapsedWithinBound(t, 'grant', started);
    await waitFor(() => editor.provider.isAuthenticated && editor.provider.authorizedScope === 'read-write', 5000, 'the provider to come back read-write');
    editor.type('now a Site Admin');
    await editor.allSynced();
    const watcher = await open(cast.owner.client, page.id);
    await waitFor(() => watcher.text() === 'now a Site Admin', 5000, 'the edit to reach another editor');
  });
});
