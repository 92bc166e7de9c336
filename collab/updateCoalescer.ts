/**
 * One socket read's worth of edits handled as one.
 *
 * A client that has fallen behind (a slow link, a tab waking up, a script replaying edits)
 * sends its keystrokes as a burst of small update messages, and `ws` hands us every message of
 * one read in the same synchronous run. Hocuspocus would take each through its hook chain,
 * apply it in a transaction of its own, broadcast it and ack it: per keystroke, that costs
 * several times what applying it does. Consecutive update messages for the same document are
 * therefore merged (a Yjs update merge is exact: applying the merge equals applying the parts
 * in order) and handed on as one message at the end of the run; everything else passes in
 * its place in the order, so the order of a socket's messages never changes.
 *
 * The provider counts its unsynced changes down by one per ack, so a merged message must
 * still be acknowledged once per original: its bytes are registered here, and the ack gate
 * (durableAcks.ts) sends as many SyncStatus messages as the merge stood for, in one write.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { mergeUpdatesInGroups } from '../api/documents/documentLog.ts';

/** Hocuspocus's MessageType.Sync and y-protocols' update sub-type. */
const SYNC = 0;
const SYNC_UPDATE = 2;

/** How many originals a merged message stands for, by the buffer Hocuspocus decodes it from. */
const mergedCounts = new WeakMap<ArrayBufferLike, number>();

/**
 * The number of client messages the sync message whose payload is `payload` stands for: more
 * than one for a merged message (its payload is a view into the merged message's own buffer).
 */
export function originalMessageCount(payload: Uint8Array): number {
  return mergedCounts.get(payload.buffer) ?? 1;
}

interface Run {
  address: string;
  messages: Uint8Array[];
  updates: Uint8Array[];
}

/** The address and update of a sync update message; null for any other message. */
function readUpdate(message: Uint8Array): { address: string; update: Uint8Array } | null {
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

function mergedMessage(address: string, update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, SYNC);
  encoding.writeVarUint(encoder, SYNC_UPDATE);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/**
 * Feeds a socket's messages to `deliver`, merging each run of consecutive update messages for
 * one document that arrives within one synchronous run.
 */
export function createUpdateCoalescer(deliver: (message: Uint8Array) => void): (message: Uint8Array) => void {
  let run: Run | null = null;
  let flushScheduled = false;

  const flush = () => {
    flushScheduled = false;
    const current = run;
    run = null;
    if (!current) return;
    if (current.messages.length === 1) {
      deliver(current.messages[0]!);
      return;
    }
    let merged: Uint8Array;
    try {
      merged = mergedMessage(current.address, mergeUpdatesInGroups(current.updates));
    } catch {
      // Something in the run is not a valid update: hand the messages on as they came, so
      // Hocuspocus refuses the culprit exactly as it would have anyway.
      for (const message of current.messages) deliver(message);
      return;
    }
    mergedCounts.set(merged.buffer, current.messages.length);
    deliver(merged);
  };

  return (message: Uint8Array) => {
    const parsed = readUpdate(message);
    if (parsed && run && run.address === parsed.address) {
      run.messages.push(message);
      run.updates.push(parsed.update);
      return;
    }
    flush();
    if (!parsed) {
      deliver(message);
      return;
    }
    run = { address: parsed.address, messages: [message], updates: [parsed.update] };
    if (!flushScheduled) {
      flushScheduled = true;
      queueMicrotask(flush);
    }
  };
}
