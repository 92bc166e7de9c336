/**
 * Crash safety of the collab server: it runs as a child process and is killed with SIGKILL
 * (no flush, no close) right after the providers report every change acknowledged, ten times
 * over, restarted on the same port each time. Real providers connect through the API's
 * `/collab` proxy with tokens from the API.
 *
 * Two promises are checked. An acknowledged edit is in the log the moment the ack arrives,
 * so it survives any crash. An edit typed after the last ack may be missing from the log
 * after the crash, but the provider still holds it and resends it on reconnect, so after the
 * restart everything anyone typed is in the log, exactly once, and in every client.
 *
 * Each client types from an alphabet of its own into one shared paragraph, always at the end:
 * a client's characters, read in document order, are exactly what it typed, in typing order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HocuspocusProvider } from '@hocuspocus/provider';
import pg from 'pg';
import * as Y from 'yjs';
import { loadDocumentState } from '../api/documents/documentLog.ts';
import { seedPage } from '../api/testing/accessFixtures.ts';
import { freePort } from '../api/testing/freePort.ts';
import { usePondCast } from '../api/testing/pondTestSetup.ts';
import type { TestClient } from '../api/testing/testClient.ts';
import { collabToken, paragraphText, waitFor } from './testing/collabHarness.ts';
import { spawnCollabProcess, type CollabProcess } from './testing/collabProcess.ts';

const CYCLES = 10;
const BURST = 12;
const TAIL = 3;
const ALPHABETS = ['abcdefghij', 'klmnopqrst', 'ABCDEFGHIJ', 'KLMNOPQRST', '0123456789'];
/** What the first client writes into the shared paragraph before anyone types: in no alphabet. */
const START_TEXT = '#';

interface Typist {
  name: string;
  alphabet: string;
  pageId: string;
  ydoc: Y.Doc;
  provider: HocuspocusProvider;
  /** Everything this client typed so far, in order. */
  typed: string;
  /** The part of `typed` its provider has seen acknowledged. */
  acked: string;
  /** The client's own Yjs clock at that ack. */
  ackedClock: number;
}

function sharedText(ydoc: Y.Doc): Y.XmlText {
  const paragraph = ydoc.getXmlFragment('default').get(0);
  if (!(paragraph instanceof Y.XmlElement) || !(paragraph.get(0) instanceof Y.XmlText)) throw new Error('the shared paragraph is missing');
  return paragraph.get(0) as Y.XmlText;
}

/** One keystroke: one transaction, one update message. */
function typeKey(typist: Typist): void {
  const key = typist.alphabet[typist.typed.length % typist.alphabet.length]!;
  const text = sharedText(typist.ydoc);
  text.insert(text.length, key);
  typist.typed += key;
}

function ownLetters(text: string, alphabet: string): string {
  return [...text].filter((character) => alphabet.includes(character)).join('');
}

const fullySynced = (typist: Typist) => typist.provider.synced && typist.provider.unsyncedChanges === 0;

async function openProvider(url: string, client: TestClient, pageId: string): Promise<{ ydoc: Y.Doc; provider: HocuspocusProvider }> {
  const ydoc = new Y.Doc();
  const provider = new HocuspocusProvider({ url, name: pageId, document: ydoc, token: () => collabToken(client, pageId) });
  try {
    await waitFor(() => provider.synced, 10_000, `provider for ${pageId} did not sync`);
  } catch (error) {
    // A provider left behind keeps reconnecting, and the test process never ends.
    provider.destroy();
    throw error;
  }
  return { ydoc, provider };
}

async function storedState(pool: pg.Pool, pageId: string): Promise<{ text: string; clocks: Map<number, number> }> {
  const { state } = await loadDocumentState(pool, pageId);
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, state);
  const text = paragraphText(ydoc);
  ydoc.destroy();
  return { text, clocks: Y.decodeStateVector(Y.encodeStateVectorFromUpdate(state)) };
}

describe('collab server crash (SIGKILL) and restart', () => {
  let collab: CollabProcess | undefined;
  let pool: pg.Pool | undefined;
  let collabPort = 0;
  const typists: Typist[] = [];
  // Registered before the cast's own `after`, so the clients, the child and the pool are gone before the database is dropped.
  after(async () => {
    for (const typist of typists) typist.provider.destroy();
    await collab?.kill9();
    await pool?.end();
  });
  const cast = usePondCast(async () => {
    collabPort = await freePort();
    return { env: { COLLAB_PORT: String(collabPort) } };
  });
  let wsUrl = '';
  let pageIds: string[] = [];
  let ownerClient: TestClient;

  before(async () => {
    const { config } = cast.instance.services;
    collab = await spawnCollabProcess({ databaseUrl: config.databaseUrl!, sessionSecret: config.sessionSecret, port: collabPort });
    pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    wsUrl = `${cast.instance.baseUrl.replace(/^http/, 'ws')}/collab`;
    ownerClient = cast.owner.client;
    const pond = await cast.seedTeamPond();
    const pages = [await seedPage(pond.id, 'Crash page one'), await seedPage(pond.id, 'Crash page two')];
    pageIds = pages.map((page) => page.id);
    // Three editors on the first page, two on the second; owners and editors alike.
    const seats = [
      { client: cast.editor.client, page: 0 },
      { client: cast.owner.client, page: 0 },
      { client: cast.editor.client, page: 0 },
      { client: cast.owner.client, page: 1 },
      { client: cast.editor.client, page: 1 },
    ];
    for (const [index, seat] of seats.entries()) {
      const pageId = pageIds[seat.page]!;
      const { ydoc, provider } = await openProvider(wsUrl, seat.client, pageId);
      const typist: Typist = { name: `client ${index} (page ${seat.page + 1})`, alphabet: ALPHABETS[index]!, pageId, ydoc, provider, typed: '', acked: '', ackedClock: 0 };
      if (ydoc.getXmlFragment('default').length === 0) {
        // The first client on a page makes the paragraph everybody types into.
        ydoc.transact(() => {
          const paragraph = new Y.XmlElement('paragraph');
          paragraph.insert(0, [new Y.XmlText(START_TEXT)]);
          ydoc.getXmlFragment('default').insert(0, [paragraph]);
        });
        await waitFor(() => fullySynced(typist), 10_000, 'the paragraph was not acknowledged');
      }
      typists.push(typist);
    }
  });

  /** The log holds every acknowledged keystroke, and nothing twice or out of order. */
  async function assertAckedInLog(moment: string): Promise<void> {
    for (const pageId of pageIds) {
      const stored = await storedState(pool!, pageId);
      for (const typist of typists.filter((candidate) => candidate.pageId === pageId)) {
        const inLog = ownLetters(stored.text, typist.alphabet);
        assert.ok(inLog.startsWith(typist.acked), `${moment}: ${typist.name} was acknowledged for "${typist.acked}", the log holds "${inLog}"`);
        assert.ok(typist.typed.startsWith(inLog), `${moment}: the log holds "${inLog}" of ${typist.name}, who typed "${typist.typed}"`);
        assert.ok((stored.clocks.get(typist.ydoc.clientID) ?? 0) >= typist.ackedClock, `${moment}: ${typist.name}'s acknowledged clock ${typist.ackedClock} is not in the log`);
      }
    }
  }

  async function typeBurst(): Promise<void> {
    for (let key = 0; key < BURST; key += 1) {
      for (const typist of typists) typeKey(typist);
      // Let the keystrokes go out as separate messages, spread over several group commits.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async function waitAllAcked(timeoutMs: number): Promise<void> {
    await waitFor(() => typists.every(fullySynced), timeoutMs, 'not every provider is fully synced');
    for (const typist of typists) {
      typist.acked = typist.typed;
      typist.ackedClock = Y.getState(typist.ydoc.store, typist.ydoc.clientID);
    }
  }

  /** After the restart: everyone reconnected, acknowledged everything, and agrees. */
  async function assertConverged(moment: string): Promise<void> {
    await waitFor(() => typists.every(fullySynced), 20_000, `${moment}: providers did not reconnect and sync`);
    for (const typist of typists) {
      typist.acked = typist.typed;
      typist.ackedClock = Y.getState(typist.ydoc.store, typist.ydoc.clientID);
    }
    // Synced means stored: checked at once, no waiting for the log.
    await assertAckedInLog(moment);
    for (const pageId of pageIds) {
      const onPage = typists.filter((typist) => typist.pageId === pageId);
      const stored = await storedState(pool!, pageId);
      for (const typist of onPage) assert.equal(ownLetters(stored.text, typist.alphabet), typist.typed, `${moment}: the log lacks keystrokes of ${typist.name}`);
      await waitFor(() => onPage.every((typist) => paragraphText(typist.ydoc) === stored.text), 5000, `${moment}: the clients of a page did not converge on the log`);
    }
  }

  // Three ways to die: right at the ack; with keystrokes typed but maybe not yet received;
  // with keystrokes the server applied and passed on to the other clients, maybe not yet written.
  const variants = ['at the ack', 'with keystrokes in flight', 'with keystrokes relayed but unacknowledged'] as const;

  for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
    const variant = variants[(cycle - 1) % variants.length]!;
    test(`cycle ${cycle}/${CYCLES}: kill -9 ${variant}; acknowledged edits survive, the rest converges after the restart`, async () => {
      await typeBurst();
      await waitAllAcked(10_000);
      if (variant !== 'at the ack') {
        const before = typists.map((typist) => typist.typed.length);
        for (let key = 0; key < TAIL; key += 1) for (const typist of typists) typeKey(typist);
        if (variant === 'with keystrokes relayed but unacknowledged') {
          // Wait until the first client's tail reached a neighbour: the server applied it.
          const [first, neighbour] = typists;
          await waitFor(() => ownLetters(paragraphText(neighbour!.ydoc), first!.alphabet) === first!.typed, 2000, 'the tail was not relayed');
        }
        assert.ok(typists.every((typist, index) => typist.typed.length === before[index]! + TAIL));
      }
      await collab!.kill9();
      await assertAckedInLog('right after the kill');
      // Every provider notices the dead socket before the server is back.
      await waitFor(() => typists.every((typist) => !typist.provider.synced), 5000, 'providers did not notice the crash');
      await collab!.restart();
      await assertConverged('after the restart');
    });
  }

  const cyclesWithTail = Array.from({ length: CYCLES }, (_, index) => variants[index % variants.length]).filter((variant) => variant !== 'at the ack').length;

  // A reconnected provider whose edits its previous connection already brought adds nothing
  // new; its ack must still wait until those edits are committed (the gate is per document).
  test(
    'an ack waits for the commit even when the reconnected provider brings nothing new',
    async (t) => {
      const pond = await cast.seedTeamPond();
      const page = await seedPage(pond.id, 'Stalled log writes');
      const { ydoc, provider } = await openProvider(wsUrl, cast.editor.client, page.id);
      t.after(() => provider.destroy());
      const isFullySynced = () => provider.synced && provider.unsyncedChanges === 0;
      // Log writes wait while this lock is held; reads do not.
      const locker = new pg.Client({ connectionString: cast.instance.services.config.databaseUrl });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE page_updates IN EXCLUSIVE MODE');
        ydoc.transact(() => {
          const paragraph = new Y.XmlElement('paragraph');
          paragraph.insert(0, [new Y.XmlText('typed while the log is stalled')]);
          ydoc.getXmlFragment('default').insert(0, [paragraph]);
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(isFullySynced(), false, 'acknowledged before the write was committed');
        // A network blip: the provider reconnects to the same process, which already holds the update.
        provider.disconnect();
        await waitFor(() => !provider.synced, 5000, 'the provider did not disconnect');
        void provider.connect();
        await waitFor(() => provider.synced, 10_000, 'the provider did not reconnect');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        assert.equal(isFullySynced(), false, 'after the reconnect: acknowledged before the write was committed');
      } finally {
        await locker.query('COMMIT').catch(() => undefined);
        await locker.end();
      }
      await waitFor(isFullySynced, 10_000, 'not acknowledged after the write went through');
      assert.equal((await storedState(pool!, page.id)).text, 'typed while the log is stalled');
    },
  );

  test('after the last restart a fresh provider sees exactly what the log and the clients hold', async () => {
    assert.equal(collab!.starts, CYCLES + 1);
    for (const pageId of pageIds) {
      const stored = await storedState(pool!, pageId);
      const fresh = await openProvider(wsUrl, ownerClient, pageId);
      try {
        assert.equal(paragraphText(fresh.ydoc), stored.text);
        assert.deepEqual(Y.encodeStateVector(fresh.ydoc), Y.encodeStateVector(typists.find((typist) => typist.pageId === pageId)!.ydoc));
        for (const typist of typists.filter((candidate) => candidate.pageId === pageId)) {
          assert.equal(typist.typed.length, CYCLES * BURST + cyclesWithTail * TAIL);
          assert.equal(ownLetters(paragraphText(fresh.ydoc), typist.alphabet), typist.typed);
        }
      } finally {
        fresh.provider.destroy();
      }
    }
  });
});
