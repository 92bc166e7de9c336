/**
 * The collaboration server end to end: tokens from the API, real providers through the API's
 * `/collab` proxy, the update log in Postgres, read-only enforcement, live access changes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import * as Y from 'yjs';
import { verifyCollabToken, signCollabToken } from '../api/collab/collabToken.ts';
import { loadDocumentState } from '../api/documents/documentLog.ts';
import { seedGrant, seedPage } from '../api/testing/accessFixtures.ts';
import { assertError, MISSING_UUID } from '../api/testing/pondTestSetup.ts';
import { collabToken, editorPool, paragraphText, useCollabCast, waitFor } from './testing/collabHarness.ts';
import { destroyLeftoverDocuments } from './collabServer.ts';
import { ProtocolClient, updateMessage } from './testing/protocolClient.ts';

async function logText(cast: { instance: { services: { config: { databaseUrl?: string } } } }, pageId: string): Promise<string> {
  const client = new pg.Client({ connectionString: cast.instance.services.config.databaseUrl });
  await client.connect();
  try {
    const { state } = await loadDocumentState(client, pageId);
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, state);
    return paragraphText(ydoc);
  } finally {
    await client.end();
  }
}

/** A paragraph typed one character per update, as update messages a provider would send. */
function keystrokeMessages(documentName: string, text: string): Uint8Array[] {
  const ydoc = new Y.Doc();
  const messages: Uint8Array[] = [];
  ydoc.on('update', (update: Uint8Array) => messages.push(updateMessage(documentName, update)));
  const paragraph = new Y.XmlElement('paragraph');
  const content = new Y.XmlText();
  ydoc.transact(() => {
    ydoc.getXmlFragment('default').insert(0, [paragraph]);
    paragraph.insert(0, [content]);
  });
  for (const character of text) content.insert(content.length, character);
  return messages;
}

/** The typed characters, without the line breaks between paragraphs. */
const letters = (text: string) => [...text.replace(/\n/g, '')];

describe('collaboration', () => {
  const cast = useCollabCast();
  const { open, closeAll } = editorPool(cast);

  describe('GET /pages/:id/collab-token', () => {
    test('rw for writers, ro for readers, signed for this page and user, never cached', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Token page');
      const editorToken = await cast.editor.client.get(`/pages/${page.id}/collab-token`);
      assert.equal(editorToken.status, 200, editorToken.text);
      assert.equal(editorToken.body.mode, 'rw');
      assert.equal(editorToken.body.documentName, page.id);
      assert.equal(editorToken.body.path, '/collab');
      assert.equal(editorToken.headers.get('cache-control'), 'no-store');
      const claims = verifyCollabToken(cast.instance.services.config.sessionSecret, editorToken.body.token);
      assert.deepEqual({ pageId: claims?.pageId, userId: claims?.userId, mode: claims?.mode }, { pageId: page.id, userId: cast.editor.user.id, mode: 'rw' });
      // The token names the session that asked for it by its row id; the cookie's secret is nowhere in it.
      const [sessionId, sessionSecret] = cast.editor.client.sessionCookie!.split('.') as [string, string];
      assert.deepEqual(claims?.origin, { kind: 'session', sessionId });
      assert.ok(!Buffer.from(editorToken.body.token.split('.')[0], 'base64url').toString('utf8').includes(sessionSecret));
      const readerToken = await cast.reader.client.get(`/pages/${page.id}/collab-token`);
      assert.equal(readerToken.body.mode, 'ro');
    });

    test('anonymous: ro on a public page, 404 on a private one; outsiders and missing pages 404', async () => {
      const pond = await cast.seedTeamPond();
      const privatePage = await seedPage(pond.id, 'Private');
      const publicPage = await seedPage(pond.id, 'Public');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: publicPage.id } });
      const anonymousPublic = await cast.anonymous.get(`/pages/${publicPage.id}/collab-token`);
      assert.equal(anonymousPublic.status, 200, anonymousPublic.text);
      assert.equal(anonymousPublic.body.mode, 'ro');
      const anonymousClaims = verifyCollabToken(cast.instance.services.config.sessionSecret, anonymousPublic.body.token);
      assert.deepEqual([anonymousClaims?.userId, anonymousClaims?.origin], [null, null]);
      assertError(await cast.anonymous.get(`/pages/${privatePage.id}/collab-token`), 404, 'not_found');
      assertError(await cast.outsider.client.get(`/pages/${privatePage.id}/collab-token`), 404, 'not_found');
      assertError(await cast.editor.client.get(`/pages/${MISSING_UUID}/collab-token`), 404, 'not_found');
    });

    test('a trashed page cannot be opened: editors get page_trashed, others a plain 404', async () => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Trashed', { trashed: true });
      assertError(await cast.editor.client.get(`/pages/${page.id}/collab-token`), 404, 'page_trashed');
      assertError(await cast.reader.client.get(`/pages/${page.id}/collab-token`), 404, 'not_found');
    });
  });

  describe('editing', () => {
    test('two providers converge, and every acknowledged edit is already in the log', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Two editors');
      const a = await open(cast.editor.client, page.id);
      const b = await open(cast.owner.client, page.id);
      a.type('Hello ');
      b.type('World');
      await Promise.all([a.allSynced(), b.allSynced()]);
      // Synced means acknowledged; acknowledged means stored. No waiting here.
      const stored = await logText(cast, page.id);
      // Each typed into a paragraph of its own making: two paragraphs, in an order both agree on.
      await waitFor(() => a.text() === b.text() && letters(a.text()).length === 11, 5000, 'editors did not converge');
      assert.equal(stored, a.text());
      assert.deepEqual(letters(stored).sort(), [...'Hello World'].sort());
    });

    test('ten providers typing at once converge on the same document', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Ten editors');
      const clients = [cast.editor.client, cast.owner.client];
      const ten = await Promise.all(Array.from({ length: 10 }, (_, index) => open(clients[index % 2]!, page.id)));
      for (let round = 0; round < 5; round += 1) ten.forEach((editor, index) => editor.type(String(index)));
      await Promise.all(ten.map((editor) => editor.allSynced()));
      await waitFor(() => ten.every((editor) => letters(editor.text()).length === 50 && editor.text() === ten[0]!.text()), 5000, 'ten editors did not converge');
      assert.equal(await logText(cast, page.id), ten[0]!.text());
    });

    test('a burst of 300 keystroke messages in one write is applied in one transaction, stored, and acknowledged 300 times', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Burst');
      const watcher = await open(cast.owner.client, page.id);
      const sender = await ProtocolClient.connect(cast.wsUrl, page.id, await collabToken(cast.editor.client, page.id));
      t.after(() => sender.close());
      const typed = 'Dorfteich '.repeat(30);
      const messages = keystrokeMessages(page.id, typed);
      const appliedBefore = cast.collab.runtime.writer.stats.updatesReceived;
      sender.sendBurst(messages);
      await sender.until(() => sender.acks >= messages.length, 10_000, 'burst acks');
      // The document took the burst in fewer transactions than messages: the burst path ran.
      assert.ok(cast.collab.runtime.writer.stats.updatesReceived - appliedBefore < messages.length);
      // Acknowledged means stored: every character is in the log already.
      assert.equal(await logText(cast, page.id), typed);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual({ acks: sender.acks, refusals: sender.refusals }, { acks: messages.length, refusals: 0 });
      await waitFor(() => watcher.text() === typed, 5000, 'the other editor did not get the burst');
    });

    test('a burst holding an invalid update closes the connection, and nothing of it is acknowledged', async (t) => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Broken burst');
      const sender = await ProtocolClient.connect(cast.wsUrl, page.id, await collabToken(cast.editor.client, page.id));
      t.after(() => sender.close());
      const consoleErrors = t.mock.method(console, 'error');
      const messages = [...keystrokeMessages(page.id, 'valid'), updateMessage(page.id, Uint8Array.of(255, 255, 255))];
      sender.sendBurst(messages);
      await sender.until(() => sender.closed, 10_000, 'connection closed');
      assert.equal(sender.acks, 0);
      // The client's mistake, answered as such: no error-level line, no stack trace.
      assert.deepEqual(consoleErrors.mock.calls.map((call) => String(call.arguments[0])), []);
    });

    test('a lone invalid update closes the connection unacknowledged, without an error log, and the rest of the page keeps working', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Broken update');
      const watcher = await open(cast.owner.client, page.id);
      const sender = await ProtocolClient.connect(cast.wsUrl, page.id, await collabToken(cast.editor.client, page.id));
      t.after(() => sender.close());
      const consoleErrors = t.mock.method(console, 'error');
      sender.send(updateMessage(page.id, Uint8Array.of(255, 255, 255)));
      await sender.until(() => sender.closed, 10_000, 'connection closed');
      assert.equal(sender.acks, 0);
      assert.deepEqual(consoleErrors.mock.calls.map((call) => String(call.arguments[0])), []);
      watcher.type('still here');
      await watcher.allSynced();
      assert.equal(await logText(cast, page.id), 'still here');
    });

    test('an update building on content the server lacks is acknowledged only once that content arrived and both are stored', async (t) => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Pending');
      const sender = await ProtocolClient.connect(cast.wsUrl, page.id, await collabToken(cast.editor.client, page.id));
      t.after(() => sender.close());
      // As a provider reconnecting after a crash: keystrokes queued offline go out before the
      // SyncStep2 with the text they were typed into.
      const messages = keystrokeMessages(page.id, 'Teich');
      const foundation = messages.slice(0, 3);
      const onTop = messages.slice(3);
      for (const message of onTop) sender.send(message);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(sender.acks, 0, 'updates the server could not integrate were acknowledged');
      assert.equal(await logText(cast, page.id), '');
      for (const message of foundation) sender.send(message);
      await sender.until(() => sender.acks >= messages.length, 10_000, 'acks after the missing content');
      assert.equal(await logText(cast, page.id), 'Teich');
    });

    test("a reconnecting provider's queued updates are acknowledged only with its first SyncStep2, once all are stored", async (t) => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Reconnect');
      const token = await collabToken(cast.editor.client, page.id);
      const client = await ProtocolClient.openHoldingStep2(cast.wsUrl, page.id);
      t.after(() => client.close());
      // The provider's order after a reconnect: the queued updates as the socket opens, then
      // the token and SyncStep1; its count of unsynced changes restarts at 1 there, so any ack
      // before its SyncStep2 is written would read as "everything saved".
      const messages = keystrokeMessages(page.id, 'offline');
      for (const message of messages) client.send(message);
      client.authenticate(token);
      await client.until(() => client.step2Held, 10_000, "the server's SyncStep1");
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(client.acks, 0, 'an update was acknowledged before the first sync was written');
      client.releaseStep2();
      await client.until(() => client.acks >= messages.length + 1, 10_000, 'acks after the SyncStep2');
      assert.equal(await logText(cast, page.id), 'offline');
    });

    test('a read-only burst is refused once per message and changes nothing', async (t) => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Read-only burst');
      const reader = await ProtocolClient.connect(cast.wsUrl, page.id, await collabToken(cast.reader.client, page.id));
      t.after(() => reader.close());
      const messages = keystrokeMessages(page.id, 'not mine');
      reader.sendBurst(messages);
      await reader.until(() => reader.refusals >= messages.length, 10_000, 'read-only refusals');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual({ acks: reader.acks, refusals: reader.refusals }, { acks: 0, refusals: messages.length });
      assert.equal(await logText(cast, page.id), '');
    });

    test("a read-only provider's edits reach nobody and are not stored", async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Read only');
      const writer = await open(cast.editor.client, page.id);
      const reader = await open(cast.reader.client, page.id);
      assert.equal(reader.provider.authorizedScope, 'readonly');
      assert.equal(writer.provider.authorizedScope, 'read-write');
      writer.type('mine');
      await writer.allSynced();
      await waitFor(() => reader.text() === 'mine', 5000, 'reader did not receive the edit');
      reader.type(' and theirs');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(writer.text(), 'mine');
      assert.equal(await logText(cast, page.id), 'mine');
      const late = await open(cast.owner.client, page.id);
      assert.equal(late.text(), 'mine');
    });

    test('an anonymous provider reads a public page', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Public read');
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } });
      const writer = await open(cast.editor.client, page.id);
      writer.type('for everyone');
      await writer.allSynced();
      const visitor = await open(cast.anonymous, page.id);
      assert.equal(visitor.provider.authorizedScope, 'readonly');
      assert.equal(visitor.text(), 'for everyone');
    });

    test('forged, foreign-page, expired and credential-less tokens are refused, without an error log', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Guarded');
      const other = await seedPage(pond.id, 'Other');
      const secret = cast.instance.services.config.sessionSecret;
      const session = (client: typeof cast.editor.client) => ({ kind: 'session' as const, sessionId: client.sessionCookie!.split('.')[0]! });
      const editorClaims = { pageId: page.id, userId: cast.editor.user.id, origin: session(cast.editor.client), mode: 'rw' as const };
      const consoleErrors = t.mock.method(console, 'error');
      const refusals: [string, string][] = [
        [await collabToken(cast.editor.client, other.id), 'invalid-token'],
        [signCollabToken('not-the-secret-but-long-enough-0123456789', editorClaims).token, 'invalid-token'],
        [signCollabToken(secret, editorClaims, Date.now() - 3_600_000).token, 'invalid-token'],
        // A signed-in token must name the credential it was issued for.
        [signCollabToken(secret, { ...editorClaims, origin: null }).token, 'invalid-token'],
        // Someone else's session does not speak for this user.
        [signCollabToken(secret, { ...editorClaims, origin: session(cast.owner.client) }).token, 'session-ended'],
        // Personal access tokens are not issued yet: none is accepted.
        [signCollabToken(secret, { ...editorClaims, origin: { kind: 'accessToken', tokenId: 'not-issued' } }).token, 'session-ended'],
        [signCollabToken(secret, { pageId: page.id, userId: cast.outsider.user.id, origin: session(cast.outsider.client), mode: 'rw' }).token, 'not-found'],
        ['garbage', 'invalid-token'],
      ];
      for (const [token, expected] of refusals) {
        const { HocuspocusProvider } = await import('@hocuspocus/provider');
        const reason = await new Promise<string>((resolve) => {
          const provider = new HocuspocusProvider({ url: cast.wsUrl, name: page.id, token, onAuthenticationFailed: ({ reason }) => resolve(reason) });
          t.after(() => provider.destroy());
        });
        assert.equal(reason, expected);
      }
      assert.deepEqual(consoleErrors.mock.calls.map((call) => String(call.arguments[0])), []);
      // A valid token starts loading the page while access is checked; each refusal unloads it again.
      await waitFor(() => !cast.collab.hocuspocus.documents.has(page.id) && !cast.collab.runtime.documents.has(page.id), 5000, 'the refused page stayed loaded');
      const editor = await open(cast.editor.client, page.id);
      assert.equal(editor.provider.authorizedScope, 'read-write');
    });
  });

  describe('access changes', () => {
    test('revoking a member closes the socket and the reconnect is refused within 5 s', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Revoked');
      const editor = await open(cast.editor.client, page.id);
      const started = Date.now();
      const removed = await cast.owner.client.request('DELETE', `/ponds/${pond.id}/members/${cast.editor.user.id}`);
      assert.equal(removed.status, 204, removed.text);
      await waitFor(() => editor.seen.closed, 5000, 'revoked editor still connected');
      await waitFor(() => editor.seen.refused, 5000, 'reconnect was not refused');
      assert.ok(Date.now() - started < 5000);
      editor.type('after revocation');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await logText(cast, page.id), '');
    });

    test('trashing the page closes its editors and refuses the reconnect', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Trashed while open');
      const editor = await open(cast.editor.client, page.id);
      const trashed = await cast.owner.client.request('DELETE', `/pages/${page.id}`);
      assert.equal(trashed.status, 200, trashed.text);
      await waitFor(() => editor.seen.closed && editor.seen.refused, 5000, 'editor of a trashed page was not disconnected');
    });

    test('downgrading an editor to reader reconnects the provider read-only within 5 s', async (t) => {
      t.after(closeAll);
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Downgraded');
      const editor = await open(cast.editor.client, page.id);
      assert.equal(editor.provider.authorizedScope, 'read-write');
      const changed = await cast.owner.client.patch(`/ponds/${pond.id}/members/${cast.editor.user.id}`, { role: 'reader' });
      assert.equal(changed.status, 200, changed.text);
      await waitFor(() => editor.provider.authorizedScope === 'readonly', 5000, 'provider was not downgraded');
    });
  });

  test('closing the server destroys a document loaded for a connection that is gone (no awareness timer outlives it)', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Loaded during authentication');
    const { hocuspocus } = cast.collab;
    // What an early load leaves when its connection closed mid-authentication: a document with no connection.
    const document = await hocuspocus.createDocument(page.id, {} as never, 'gone-socket', { readOnly: false, isAuthenticated: false }, {});
    assert.equal(document.getConnectionsCount(), 0);
    assert.ok(hocuspocus.documents.has(page.id));
    // What close() runs once the sockets are closed and the stores flushed.
    await destroyLeftoverDocuments(hocuspocus);
    assert.equal(hocuspocus.documents.has(page.id), false);
    assert.equal(document.isDestroyed, true);
  });
});
