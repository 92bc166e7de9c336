/**
 * Never acknowledge before the update is in Postgres.
 *
 * Hocuspocus applies a client's update and sends the client a SyncStatus message (the ack
 * the provider counts down its unsynced changes with) in the same synchronous step. We catch
 * the update in the document's `update` event (which fires inside that step, and only with
 * what was actually new) and hand it to the update writer; the connection's `send` is wrapped
 * so that a SyncStatus waits for every write this connection caused so far. Everything else
 * (other clients' edits, awareness) goes out at once, so the latency between editors does
 * not include the database.
 */
import { createDecoder, readVarString, readVarUint } from 'lib0/decoding';
import type { Connection } from '@hocuspocus/server';

/** Hocuspocus's MessageType.SyncStatus. */
const SYNC_STATUS = 8;

interface AckState {
  /** Settles when this connection's latest update is committed. */
  lastWrite: Promise<void>;
  /** The acks waiting, in order. */
  ackChain: Promise<void>;
}

const states = new WeakMap<Connection, AckState>();

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
  state = { lastWrite: Promise.resolve(), ackChain: Promise.resolve() };
  states.set(connection, state);
  const send = connection.send.bind(connection);
  const current = state;
  connection.send = (message: Uint8Array) => {
    if (!isSyncStatus(message)) {
      send(message);
      return;
    }
    const written = current.lastWrite;
    current.ackChain = current.ackChain.then(
      () => written.then(() => send(message)),
      () => undefined,
    );
  };
  return state;
}

/** Call before the connection's first message is handled (Hocuspocus's `beforeSync`). */
export function installAckGate(connection: Connection): void {
  gate(connection);
}

/** The ack of the message being handled on `connection` waits for `write`. */
export function holdAckUntil(connection: Connection, write: Promise<void>): void {
  const state = gate(connection);
  const previous = state.lastWrite;
  state.lastWrite = Promise.all([previous, write]).then(() => undefined);
}
