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
 * A merged burst (updateCoalescer.ts) is acknowledged once per message it merged, in one
 * write: the provider counts each ack as one of its sent messages.
 */
import { createDecoder, readVarString, readVarUint } from 'lib0/decoding';
import type { Connection } from '@hocuspocus/server';

/** Hocuspocus's MessageType.SyncStatus. */
const SYNC_STATUS = 8;

interface AckState {
  /** The acks waiting, in order. */
  ackChain: Promise<void>;
  /** How many client messages the sync message being handled stands for. */
  messagesInHand: number;
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
  state = { ackChain: Promise.resolve(), messagesInHand: 1 };
  states.set(connection, state);
  const send = connection.send.bind(connection);
  const current = state;
  connection.send = (message: Uint8Array) => {
    if (!isSyncStatus(message)) {
      send(message);
      return;
    }
    const written = documentWritten(connection.document);
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
 * Call before every sync message is handled (Hocuspocus's `beforeSync`), with how many client
 * messages it stands for: its ack goes out that many times.
 */
export function installAckGate(connection: Connection, messageCount = 1): void {
  gate(connection).messagesInHand = messageCount;
}

/** The ack of the message being handled on `connection` waits for `write`. */
export function holdAckUntil(connection: Connection, write: Promise<void>): void {
  gate(connection);
  documentWrites.set(connection.document, Promise.all([documentWritten(connection.document), write]).then(() => undefined));
}
