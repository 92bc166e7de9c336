/**
 * The measurements of bench:collab, each against whatever server it is handed, so that the
 * baseline and our server run the very same client code: keystroke propagation, trace replay,
 * cold open.
 */
import { HocuspocusProvider } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { ProtocolClient, updateMessage } from '../../collab/testing/protocolClient.ts';
import { waitFor } from '../../api/testing/polling.ts';
import { openProvider, openRelayClient, percentile } from './collabClients.ts';
import { firstParagraphText, paragraphSeed, type EditingTrace } from './collabDocuments.ts';
import { seededRandom } from '../seededRandom.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface KeystrokeTarget {
  /** `relay`: raw relay clients; `provider`: HocuspocusProvider clients. */
  client: 'relay' | 'provider';
  url: string;
  /** Document names (page ids), one per page. */
  pages: readonly string[];
  /** The token of seat `seat` on page `page` (providers only). */
  token: (page: number, seat: number) => string;
}

export interface KeystrokeResult {
  /** One sample per (edit, receiving client): milliseconds from typing to the receiver's update event. */
  perReceiver: number[];
  /** One sample per edit: until the last of the other clients had it. */
  allReceivers: number[];
  edits: number;
}

interface PendingEdit {
  clientID: number;
  clock: number;
  sentAt: number;
  waiting: Set<number>;
  latest: number;
  counted: boolean;
}

/**
 * `seats` clients per page, all on every page at once; one single-character edit every
 * `intervalMs`, round-robin over the pages and the seats, at a random position. The first
 * `warmup` edits are not counted.
 */
export async function measureKeystrokes(target: KeystrokeTarget, options: { seats: number; edits: number; warmup: number; intervalMs: number; seed: number }): Promise<KeystrokeResult> {
  const random = seededRandom(options.seed);
  const seed = paragraphSeed('Der Dorfteich liegt still. ');
  const perReceiver: number[] = [];
  const allReceivers: number[] = [];
  const pending: PendingEdit[][] = target.pages.map(() => []);
  const docs: Y.Doc[][] = [];
  const closers: (() => void)[] = [];

  const opened = target.pages.map(async (name, page) => {
    const seats: Y.Doc[] = [];
    for (let seat = 0; seat < options.seats; seat += 1) {
      const ydoc = new Y.Doc();
      Y.applyUpdate(ydoc, seed);
      ydoc.on('update', (_update: Uint8Array, origin: unknown) => {
        if (origin === null || origin === undefined) return; // our own typing
        const now = performance.now();
        for (const edit of pending[page]!) {
          if (!edit.waiting.has(seat) || Y.getState(ydoc.store, edit.clientID) <= edit.clock) continue;
          edit.waiting.delete(seat);
          if (edit.counted) perReceiver.push(now - edit.sentAt);
          edit.latest = now;
        }
        const done = pending[page]!.filter((edit) => edit.waiting.size === 0);
        for (const edit of done) if (edit.counted) allReceivers.push(edit.latest - edit.sentAt);
        if (done.length > 0) pending[page] = pending[page]!.filter((edit) => edit.waiting.size > 0);
      });
      if (target.client === 'relay') {
        const client = await openRelayClient(target.url, name, ydoc);
        closers.push(client.close);
      } else {
        const { provider } = await openProvider(target.url, name, target.token(page, seat), ydoc);
        closers.push(() => provider.destroy());
      }
      seats.push(ydoc);
    }
    docs[page] = seats;
  });
  await Promise.all(opened);

  for (let edit = 0; edit < options.edits; edit += 1) {
    const page = edit % target.pages.length;
    const seat = Math.floor(edit / target.pages.length) % options.seats;
    const ydoc = docs[page]![seat]!;
    const text = firstParagraphText(ydoc);
    const clock = Y.getState(ydoc.store, ydoc.clientID);
    const waiting = new Set(Array.from({ length: options.seats }, (_, index) => index).filter((index) => index !== seat));
    pending[page]!.push({ clientID: ydoc.clientID, clock, sentAt: performance.now(), waiting, latest: 0, counted: edit >= options.warmup });
    text.insert(Math.floor(random() * (text.length + 1)), 'x');
    await sleep(options.intervalMs);
  }
  await waitFor(() => pending.every((edits) => edits.length === 0), 20_000, 'every keystroke to arrive', { intervalMs: 2 });
  // Every copy of every page must be the same document.
  for (const seats of docs) {
    const expected = firstParagraphText(seats[0]!).toString();
    if (seats.some((ydoc) => firstParagraphText(ydoc).toString() !== expected)) throw new Error('the clients of a page did not converge');
  }
  for (const close of closers) close();
  perReceiver.sort((a, b) => a - b);
  allReceivers.sort((a, b) => a - b);
  return { perReceiver, allReceivers, edits: options.edits - options.warmup };
}

export function summarize(samples: readonly number[]): { p50: number; p99: number } {
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

export type ReplayResult =
  | {
      done: true;
      /** From the first send until the receiver had everything and the sender had every ack. */
      wallMs: number;
      receiverMs: number;
      acksMs: number;
    }
  | { done: false; timeoutMs: number; ackedShare: number; receivedShare: number };

const REPLAY_MESSAGES_PER_WRITE = 1000;

/**
 * The trace, pre-encoded, pushed by a bare protocol client; a provider receives it. Gives up
 * after `timeoutMs` (the server may then still be busy: kill it rather than wait).
 */
export async function measureReplay(url: string, name: string, tokens: { sender: string; receiver: string }, trace: EditingTrace, timeoutMs: number): Promise<ReplayResult> {
  const receiver = await openProvider(url, name, tokens.receiver);
  const sender = await ProtocolClient.connect(url, name, tokens.sender);
  const messages = [updateMessage(name, trace.seed), ...trace.updates.map((update) => updateMessage(name, update))];
  let receivedAt = 0;
  // Every insert is in once the clock is reached; the deletions after the last insert are in once the length is right too.
  receiver.ydoc.on('update', () => {
    if (receivedAt > 0 || Y.getState(receiver.ydoc.store, trace.clientID) < trace.finalClock) return;
    if (firstParagraphText(receiver.ydoc).length === trace.finalText.length) receivedAt = performance.now();
  });
  const started = performance.now();
  // A thousand messages per TCP write, as a browser's socket coalesces a burst: one syscall per
  // message would make this one client process the bottleneck of the whole replay.
  for (let start = 0; start < messages.length; start += REPLAY_MESSAGES_PER_WRITE) sender.sendBurst(messages.slice(start, start + REPLAY_MESSAGES_PER_WRITE));
  let ackedAt = 0;
  const completed = await waitFor(() => {
    if (ackedAt === 0 && sender.acks >= messages.length) ackedAt = performance.now();
    return ackedAt > 0 && receivedAt > 0;
  }, timeoutMs, 'the replay to complete', { intervalMs: 2 }).then(
    () => true,
    () => false,
  );
  const text = firstParagraphText(receiver.ydoc).toString();
  const receivedShare = Y.getState(receiver.ydoc.store, trace.clientID) / trace.finalClock;
  sender.close();
  receiver.provider.destroy();
  if (!completed) return { done: false, timeoutMs, ackedShare: sender.acks / messages.length, receivedShare };
  if (text !== trace.finalText) throw new Error('the receiver does not hold the trace’s final text');
  return { done: true, wallMs: Math.max(receivedAt, ackedAt) - started, receiverMs: receivedAt - started, acksMs: ackedAt - started };
}

/** Applying the same updates in-process, to a fresh document. */
export function replayInProcess(trace: EditingTrace): number {
  const started = performance.now();
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, trace.seed);
  for (const update of trace.updates) Y.applyUpdate(ydoc, update);
  const elapsed = performance.now() - started;
  if (firstParagraphText(ydoc).toString() !== trace.finalText) throw new Error('in-process replay diverged');
  ydoc.destroy();
  return elapsed;
}

export interface ColdOpenPhases {
  /** Socket open, authenticated, first message after that (the server's sync reply), synced: ms since creation. */
  open: number;
  authenticated: number;
  firstSync: number;
  synced: number;
}

/** A provider opening a page its server has not loaded: creation → synced, with the phases on the way. */
export async function coldOpen(url: string, name: string, token: string, expectedBytes: number): Promise<{ phases: ColdOpenPhases; provider: HocuspocusProvider }> {
  const started = performance.now();
  const phases: ColdOpenPhases = { open: 0, authenticated: 0, firstSync: 0, synced: 0 };
  const since = () => performance.now() - started;
  const provider = new HocuspocusProvider({
    url,
    name,
    token,
    onOpen: () => (phases.open ||= since()),
    onAuthenticated: () => (phases.authenticated ||= since()),
    onMessage: () => {
      if (phases.authenticated > 0 && phases.firstSync === 0) phases.firstSync = since();
    },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cold open of ${name}: not synced within 20 s`)), 20_000);
    provider.on('synced', () => {
      phases.synced = since();
      clearTimeout(timer);
      resolve();
    });
  });
  const size = Y.encodeStateAsUpdate(provider.document).byteLength;
  if (Math.abs(size - expectedBytes) > expectedBytes * 0.05) throw new Error(`cold open got ${size} bytes, expected about ${expectedBytes}`);
  return { phases, provider };
}

/** An open socket to the echo server: sends `payload`, resolves with what came back. */
export async function openEcho(url: string): Promise<{ roundTrip: (payload: Uint8Array) => Promise<Uint8Array>; close: () => void }> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return {
    roundTrip: (payload) =>
      new Promise((resolve) => {
        socket.once('message', (data: Buffer) => resolve(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
        socket.send(payload);
      }),
    close: () => socket.close(),
  };
}
