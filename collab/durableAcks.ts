/**
 * Never acknowledge before the update is in Postgres.
 *
 * Hocuspocus applies a client's update and sends the client a SyncStatus message (the ack
 * the provider counts down its unsynced changes with) in the same synchronous step. We catch
 * the update in the document's `update` event (which fires inside that step, and only with
 * what was actually new) and hand it to the update writer; every connection's `send` is wrapped
 * so that a SyncStatus waits for every write of the document so far. Everything else
 * (other clients' edits, awareness) goes out at once, so the latency between editors does
 * not include the database.
 *
 * A burst (updateCoalescer.ts) is acknowledged once per message it stood for, in one write:
 * the provider counts each ack as one of its sent messages.
 *
 * An update that refers to content the server does not have yet (a provider reconnecting after
 * a crash sends the keystrokes it queued while offline before its SyncStep2 with what they
 * build on) is not integrated: Yjs keeps it pending, no `update` event fires, nothing is
 * written. Hocuspocus acks it anyway. Such an ack waits until the document has nothing
 * pending any more (the missing content arrived, so the pending part was integrated and
 * handed to the writer) and then for the writes.
 *
 * And a provider that reconnects sends the updates it queued while offline as soon as the
 * socket opens, then resets its count of unsynced changes to 1 for the sync it starts: the
 * first ack it gets brings the count to 0 ("everything saved"), whatever is still unwritten.
 * So until the connection's first SyncStep2 (the provider's answer to the server's step 1)
 * is written, no ack leaves; then all of them do, and the count is right when it reaches 0.
 */
import { createDecoder, readVarString, readVarUint } from 'lib0/decoding';
import type { Connection } from '@hocuspocus/server';
import type * as Y from 'yjs';

/** Hocuspocus's MessageType.SyncStatus, and y-protocols' SyncStep2. */
const SYNC_STATUS = 8;
const SYNC_STEP_2 = 1;

interface AckState {
  /** The acks waiting, in order. */
  ackChain: Promise<void>;
  /** How many client messages the sync message being handled stands for. */
  messagesInHand: number;
  /** The document's pending content before the message being handled was applied. */
  pendingBefore: PendingMark | null;
  /** The sync message type being handled (SyncStep1, SyncStep2, Update). */
  syncTypeInHand: number;
  /** Settles once the connection's first SyncStep2 is written; acks wait for it. */
  firstSyncWritten: Promise<void>;
  /** Settles `firstSyncWritten`; null once the first SyncStep2 has been handled. */
  settleFirstSync: (() => void) | null;
  /** Set once the connection sent something the server refused: no ack leaves after that. */
  withheld: boolean;
}

/**
 * What a document holds pending: the pending structs' update (Yjs replaces it whenever a
 * message adds to it or retries it) and the pending deletions (re-encoded on every update
 * while any exist, so compared by their bytes).
 */
type PendingMark = readonly [Uint8Array | undefined, Uint8Array | null];

function pendingMark(document: Y.Doc): PendingMark | null {
  const { pendingStructs, pendingDs } = document.store;
  return pendingStructs || pendingDs ? [pendingStructs?.update, pendingDs] : null;
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === b || (a !== null && b !== null && Buffer.compare(a, b) === 0);
}

/** Whether the message just handled added to (or changed) what the document holds pending. */
function leftPending(document: Y.Doc, before: PendingMark | null): boolean {
  const after = pendingMark(document);
  return after !== null && (before === null || after[0] !== before[0] || !sameBytes(after[1], before[1]));
}

/** Settles once `document` has nothing pending (checked after every transaction). */
function nothingPending(document: Y.Doc): Promise<void> {
  if (pendingMark(document) === null) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (pendingMark(document) !== null) return;
      document.off('afterTransaction', check);
      resolve();
    };
    document.on('afterTransaction', check);
  });
}

const states = new WeakMap<Connection, AckState>();
/**
 * Per document: settles when every update the document received so far is committed. Acks
 * wait for the document's writes, not only the connection's own: a client that reconnects
 * with edits another connection already brought in adds nothing new, yet its ack must still
 * wait until those edits are stored.
 */
const documentWrites = new WeakMap<object, Promise<void>>();

function isSyncStatus(message: Uint8Array): boolean {
  try {
    const decoder = createDecoder(message);
    readVarString(decoder);
    return readVarUint(decoder) === SYNC_STATUS;
  } catch {
    return false;
  }
}

function gate(connection: Connection): AckState {
  let state = states.get(connection);
  if (state) return state;
  const firstSync = Promise.withResolvers<void>();
  state = { ackChain: Promise.resolve(), messagesInHand: 1, pendingBefore: null, syncTypeInHand: -1, firstSyncWritten: firstSync.promise, settleFirstSync: firstSync.resolve, withheld: false };
  states.set(connection, state);
  const send = connection.send.bind(connection);
  const current = state;
  connection.send = (message: Uint8Array) => {
    if (!isSyncStatus(message)) {
      send(message);
      return;
    }
    if (current.withheld) return;
    const document = connection.document;
    // Resolved after the transaction that integrates the pending part, by when its `update`
    // event has handed that part to the writer: documentWritten then includes that write.
    const stored = leftPending(document, current.pendingBefore) ? nothingPending(document).then(() => documentWritten(document)) : documentWritten(document);
    const settleFirstSync = current.syncTypeInHand === SYNC_STEP_2 ? current.settleFirstSync : null;
    if (settleFirstSync) {
      current.settleFirstSync = null;
      stored.then(settleFirstSync, () => undefined);
    }
    const written = stored.then(() => current.firstSyncWritten);
    const copies = current.messagesInHand;
    current.messagesInHand = 1;
    const sendAcks = () => {
      for (let copy = 0; copy < copies; copy += 1) send(message);
    };
    current.ackChain = current.ackChain.then(
      () => written.then(sendAcks),
      () => undefined,
    );
  };
  return state;
}

/** Settles when every update `document` has received so far is committed. */
export function documentWritten(document: object): Promise<void> {
  return documentWrites.get(document) ?? Promise.resolve();
}

/**
 * Call before every sync message is handled (Hocuspocus's `beforeSync`), with its sync type
 * and how many client messages it stands for: its ack goes out that many times.
 */
export function installAckGate(connection: Connection, syncType: number, messageCount = 1): void {
  const state = gate(connection);
  state.syncTypeInHand = syncType;
  state.messagesInHand = messageCount;
  state.pendingBefore = pendingMark(connection.document);
}

/** No ack leaves for `connection` from now on, not even the one of the message being handled. */
export function withholdAcks(connection: Connection): void {
  gate(connection).withheld = true;
}

/** The ack of the message being handled on `connection` waits for `write`. */
export function holdAckUntil(connection: Connection, write: Promise<void>): void {
  gate(connection);
  documentWrites.set(connection.document, Promise.all([documentWritten(connection.document), write]).then(() => undefined));
}
