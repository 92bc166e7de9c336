/**
 * A bare client of the Hocuspocus protocol, for tests and benches that need to control the
 * bytes on the wire: it authenticates, syncs an empty document, then pushes pre-encoded update
 * messages (one at a time or as one burst in a single TCP write) and counts the SyncStatus
 * acks it gets back.
 */
import type { Socket } from 'node:net';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { readUpdateMessage as readSyncUpdate, syncMessage, updateMessage } from '../updateCoalescer.ts';

/** Hocuspocus message types (MessageType) and the sub-types used here. */
const SYNC = 0;
const AWARENESS = 1;
const AUTH = 2;
const CLOSE = 7;
const SYNC_STATUS = 8;
const PING = 9;
const PONG = 10;
const SYNC_STEP_1 = 0;
const SYNC_STEP_2 = 1;
const AUTH_TOKEN = 0;
const AUTH_DENIED = 1;
const AUTH_OK = 2;

export { updateMessage };

/** The update an update message carries; null for anything else. */
export function readUpdateMessage(data: Uint8Array): Uint8Array | null {
  return readSyncUpdate(data)?.update ?? null;
}

/** An awareness message carrying `update` (y-protocols `encodeAwarenessUpdate`). */
export function awarenessMessage(documentName: string, update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, AWARENESS);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** An awareness message with an empty awareness update (no client states). */
export function emptyAwarenessMessage(documentName: string): Uint8Array {
  return awarenessMessage(documentName, Uint8Array.of(0));
}

function authMessage(documentName: string, token: string): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  encoding.writeVarUint(encoder, AUTH);
  encoding.writeVarUint(encoder, AUTH_TOKEN);
  encoding.writeVarString(encoder, token);
  return encoding.toUint8Array(encoder);
}

export function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  socket.binaryType = 'nodebuffer';
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

export class ProtocolClient {
  /** SyncStatus acks that say the update was applied. */
  acks = 0;
  /** SyncStatus acks that say it was not (a read-only connection). */
  refusals = 0;
  /** Set when the server refused the token. */
  deniedReason: string | null = null;
  /** Set when the server closed the document's connection (or the socket closed). */
  closed = false;
  private readonly socket: WebSocket;
  private readonly name: string;
  private authenticated = false;
  private synced = false;
  /** When set, the answer to the server's SyncStep1 waits for `releaseStep2()`. */
  private heldStep2: Uint8Array | null | undefined = undefined;
  private onChange: () => void = () => undefined;

  private constructor(socket: WebSocket, name: string) {
    this.socket = socket;
    this.name = name;
    socket.on('message', (data: Buffer) => this.receive(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
    socket.on('close', () => {
      this.closed = true;
      this.onChange();
    });
  }

  /** Connected, authenticated and synced both ways; `acks` and `refusals` start at 0 from here. */
  static async connect(url: string, name: string, token: string, timeoutMs = 20_000): Promise<ProtocolClient> {
    const client = new ProtocolClient(await openSocket(url), name);
    client.socket.send(authMessage(name, token));
    client.socket.send(syncMessage(name, SYNC_STEP_1, Y.encodeStateVector(new Y.Doc())));
    // Our (empty) SyncStep2's ack ends the handshake: from then on every ack is for a pushed update.
    await client.until(() => client.deniedReason !== null || (client.authenticated && client.synced && client.acks + client.refusals >= 1), timeoutMs, 'handshake');
    if (client.deniedReason !== null) {
      client.close();
      throw new Error(`protocol client refused: ${client.deniedReason}`);
    }
    client.acks = 0;
    client.refusals = 0;
    return client;
  }

  /**
   * An open socket, nothing sent yet, whose answer to the server's SyncStep1 is held back until
   * `releaseStep2()` (as a provider's answer may come late).
   */
  static async openHoldingStep2(url: string, name: string): Promise<ProtocolClient> {
    const client = new ProtocolClient(await openSocket(url), name);
    client.heldStep2 = null;
    return client;
  }

  /** Sends the token and SyncStep1, as a provider does once its socket is open. */
  authenticate(token: string): void {
    this.socket.send(authMessage(this.name, token));
    this.socket.send(syncMessage(this.name, SYNC_STEP_1, Y.encodeStateVector(new Y.Doc())));
  }

  /** Whether the server's SyncStep1 came and the answer is being held. */
  get step2Held(): boolean {
    return this.heldStep2 instanceof Uint8Array;
  }

  releaseStep2(): void {
    const held = this.heldStep2;
    this.heldStep2 = undefined;
    if (held instanceof Uint8Array) this.socket.send(held);
  }

  /** Resolves once `condition` holds (checked on every message received). */
  until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.onChange = () => undefined;
        reject(new Error(`${what}: not within ${timeoutMs} ms (acks ${this.acks}, refusals ${this.refusals})`));
      }, timeoutMs);
      this.onChange = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.onChange = () => undefined;
        resolve();
      };
    });
  }

  private receive(data: Uint8Array): void {
    if (data.length === 1 && data[0] === PING) {
      this.socket.send(Uint8Array.of(PONG));
      return;
    }
    const decoder = decoding.createDecoder(data);
    decoding.readVarString(decoder);
    const type = decoding.readVarUint(decoder);
    if (type === SYNC_STATUS) {
      if (decoding.readVarInt(decoder) === 1) this.acks += 1;
      else this.refusals += 1;
    } else if (type === CLOSE) {
      this.closed = true;
    } else if (type === AUTH) {
      const outcome = decoding.readVarUint(decoder);
      if (outcome === AUTH_DENIED) this.deniedReason = decoding.readVarString(decoder);
      if (outcome === AUTH_OK) this.authenticated = true;
    } else if (type === SYNC) {
      const step = decoding.readVarUint(decoder);
      if (step === SYNC_STEP_1) {
        const answer = syncMessage(this.name, SYNC_STEP_2, Y.encodeStateAsUpdate(new Y.Doc()));
        if (this.heldStep2 === null) this.heldStep2 = answer;
        else this.socket.send(answer);
      }
      else if (step === SYNC_STEP_2) this.synced = true;
    }
    this.onChange();
  }

  send(message: Uint8Array): void {
    this.socket.send(message);
  }

  /** Sends every message in one TCP write, so the server reads them as one burst. */
  sendBurst(messages: readonly Uint8Array[]): void {
    // ws keeps its net.Socket private; corking it is the only way to put many frames in one write.
    const tcp = (this.socket as unknown as { _socket: Socket })._socket;
    tcp.cork();
    for (const message of messages) this.socket.send(message);
    tcp.uncork();
  }

  close(): void {
    this.socket.close();
  }
}
