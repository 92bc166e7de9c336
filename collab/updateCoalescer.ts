/**
 * One socket read's worth of edits handled as one.
 *
 * A client that has fallen behind (a slow link, a tab waking up, a script replaying edits)
 * sends its keystrokes as a burst of small update messages, and `ws` hands us every message of
 * one read in the same synchronous run. Hocuspocus would take each through its hook chain,
 * apply it in a transaction of its own, broadcast it and ack it: per keystroke, that costs
 * several times what applying it does. Consecutive update messages for the same document are
 * therefore handed on as one message at the end of the run; everything else passes in its
 * place in the order, so the order of a socket's messages never changes.
 *
 * That one message carries an empty update, and the burst's updates are registered under its
 * bytes: the extension's `beforeSync` hook, which Hocuspocus calls right where it would apply
 * the update, applies them all in one transaction with the origin Hocuspocus would use
 * (`applyBurst`). One transaction of many updates costs less than merging them first
 * (Y.mergeUpdates) and applying the merge. Hocuspocus then applies the empty update, which
 * changes nothing; a read-only connection's burst is refused as a single update would be.
 *
 * The provider counts its unsynced changes down by one per ack, so the burst must still be
 * acknowledged once per message: the ack gate (durableAcks.ts) sends as many SyncStatus
 * messages as it stood for, in one write.
 *
 * A lone update message is handed on the same way, as a burst of one: every update a client
 * sends is applied by that hook, which answers an update Yjs cannot read itself (Hocuspocus
 * would log it as an error, with a stack, for every malformed message a client sends).
 * Only a message with bytes after its update passes unchanged (see `readUpdateMessage`).
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import type { Connection } from '@hocuspocus/server';
import * as Y from 'yjs';

/** Hocuspocus's MessageType.Sync and y-protocols' update sub-type. */
const SYNC = 0;
export const SYNC_UPDATE = 2;

/** An update that changes nothing: the payload of a burst's stand-in message. */
const EMPTY_UPDATE = Y.encodeStateAsUpdate(new Y.Doc());

/** A burst's updates, by the buffer of its stand-in message (only that message uses the buffer). */
const bursts = new WeakMap<ArrayBufferLike, readonly Uint8Array[]>();

/**
 * The updates of the burst whose stand-in message has the sync payload `payload` (a view into
 * that message's own buffer); undefined for any other message.
 */
export function burstOf(payload: Uint8Array): readonly Uint8Array[] | undefined {
  return bursts.get(payload.buffer);
}

/**
 * Applies a burst to the connection's document in one transaction, as Hocuspocus applies a
 * single update (same origin, so every listener sees a connection's edit). A burst holding an
 * invalid update throws like a single invalid update would: Hocuspocus closes the connection,
 * and the client sends what was not acknowledged again when it reconnects.
 */
export function applyBurst(connection: Connection, updates: readonly Uint8Array[]): void {
  const document = connection.document;
  const origin = { source: 'connection', connection };
  document.transact(() => {
    for (const update of updates) Y.applyUpdate(document, update, origin);
  }, origin);
}

interface Run {
  address: string;
  updates: Uint8Array[];
}

/** The address and update of a sync update message; null for any other message. */
export function readUpdateMessage(message: Uint8Array): { address: string; update: Uint8Array } | null {
  try {
    const decoder = decoding.createDecoder(message);
    const address = decoding.readVarString(decoder);
    if (decoding.readVarUint(decoder) !== SYNC || decoding.readVarUint(decoder) !== SYNC_UPDATE) return null;
    const update = decoding.readVarUint8Array(decoder);
    // Trailing bytes would be ignored by Hocuspocus; merging them away would change the message.
    return decoder.pos === message.length ? { address, update } : null;
  } catch {
    return null;
  }
}

/** A sync message of `step` (step 1, step 2 or update) for `address`, carrying `payload`. */
export function syncMessage(address: string, step: number, payload: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, SYNC);
  encoding.writeVarUint(encoder, step);
  encoding.writeVarUint8Array(encoder, payload);
  return encoding.toUint8Array(encoder);
}

/** A sync update message for `address` (the bytes a provider sends for one update). */
export function updateMessage(address: string, update: Uint8Array): Uint8Array {
  return syncMessage(address, SYNC_UPDATE, update);
}

/**
 * Feeds a socket's messages to `deliver`, handing each run of consecutive update messages for
 * one document that arrives within one synchronous run on as one stand-in message.
 */
export function createUpdateCoalescer(deliver: (message: Uint8Array) => void): (message: Uint8Array) => void {
  let run: Run | null = null;
  let flushScheduled = false;

  const flush = () => {
    flushScheduled = false;
    const current = run;
    run = null;
    if (!current) return;
    const standIn = updateMessage(current.address, EMPTY_UPDATE);
    bursts.set(standIn.buffer, current.updates);
    deliver(standIn);
  };

  return (message: Uint8Array) => {
    const parsed = readUpdateMessage(message);
    if (parsed && run && run.address === parsed.address) {
      run.updates.push(parsed.update);
      return;
    }
    flush();
    if (!parsed) {
      deliver(message);
      return;
    }
    run = { address: parsed.address, updates: [parsed.update] };
    if (!flushScheduled) {
      flushScheduled = true;
      queueMicrotask(flush);
    }
  };
}
