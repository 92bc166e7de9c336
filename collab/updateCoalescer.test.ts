import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as Y from 'yjs';
import { emptyAwarenessMessage, readUpdateMessage, updateMessage } from './testing/protocolClient.ts';
import { burstOf, createUpdateCoalescer } from './updateCoalescer.ts';

/** `count` single-character edits, one update each, as a provider would send them. */
function keystrokes(documentName: string, count: number, ydoc = new Y.Doc()): { messages: Uint8Array[]; ydoc: Y.Doc } {
  const messages: Uint8Array[] = [];
  ydoc.on('update', (update: Uint8Array) => messages.push(updateMessage(documentName, update)));
  const text = ydoc.getText('body');
  for (let index = 0; index < count; index += 1) text.insert(text.length, String.fromCharCode(97 + (index % 26)));
  return { messages, ydoc };
}

function textOf(updates: readonly Uint8Array[]): string {
  const ydoc = new Y.Doc();
  for (const update of updates) Y.applyUpdate(ydoc, update);
  return ydoc.getText('body').toString();
}

const endOfRun = () => new Promise((resolve) => setImmediate(resolve));

function collect() {
  const delivered: Uint8Array[] = [];
  return { delivered, receive: createUpdateCoalescer((message) => delivered.push(message)) };
}

describe('update coalescer', () => {
  test('a burst of updates for one document is handed on at the end of the run as one stand-in carrying all of them', async () => {
    const { messages, ydoc } = keystrokes('page-a', 50);
    const { delivered, receive } = collect();
    for (const message of messages) receive(message);
    assert.equal(delivered.length, 0, 'nothing is handed on before the run ends');
    await endOfRun();
    assert.equal(delivered.length, 1);
    const payload = readUpdateMessage(delivered[0]!)!;
    // The stand-in's own update changes nothing; the burst rides along under its bytes.
    assert.equal(textOf([payload]), '');
    const burst = burstOf(payload)!;
    assert.equal(burst.length, 50);
    assert.equal(textOf(burst), ydoc.getText('body').toString());
  });

  test('a lone update is handed on as a stand-in too, a burst of one (every update is applied by the same hook)', async () => {
    const { messages } = keystrokes('page-a', 1);
    const { delivered, receive } = collect();
    receive(messages[0]!);
    await endOfRun();
    assert.equal(delivered.length, 1);
    const payload = readUpdateMessage(delivered[0]!)!;
    assert.equal(textOf([payload]), '');
    assert.deepEqual(burstOf(payload), [readUpdateMessage(messages[0]!)]);
  });

  test('other messages keep their place, and runs end at them and at another document', async () => {
    const a = keystrokes('page-a', 4);
    const b = keystrokes('page-b', 1);
    const awareness = emptyAwarenessMessage('page-a');
    const [a1, a2, a3, a4] = a.messages as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const { delivered, receive } = collect();
    for (const message of [a1, a2, awareness, a3, b.messages[0]!, a4]) receive(message);
    await endOfRun();
    assert.equal(delivered.length, 5);
    const bursts = delivered.map((message) => burstOf(readUpdateMessage(message) ?? new Uint8Array()));
    assert.deepEqual(bursts.map((burst) => burst?.length), [2, undefined, 1, 1, 1]);
    assert.equal(delivered[1], awareness);
    assert.deepEqual(bursts[3], [readUpdateMessage(b.messages[0]!)]);
    // In the order given, the pieces still make the whole document.
    assert.equal(textOf([...bursts[0]!, ...bursts[2]!, ...bursts[4]!]), a.ydoc.getText('body').toString());
  });

  test('separate runs stay separate', async () => {
    const { messages } = keystrokes('page-a', 6);
    const { delivered, receive } = collect();
    for (const message of messages.slice(0, 3)) receive(message);
    await endOfRun();
    for (const message of messages.slice(3)) receive(message);
    await endOfRun();
    assert.deepEqual(
      delivered.map((message) => burstOf(readUpdateMessage(message)!)?.length),
      [3, 3],
    );
  });

  test('a message with bytes after its update is not taken into a burst (the bytes would be lost)', async () => {
    const { messages } = keystrokes('page-a', 2);
    const trailing = Uint8Array.of(...messages[1]!, 7);
    const { delivered, receive } = collect();
    for (const message of [messages[0]!, trailing]) receive(message);
    await endOfRun();
    assert.equal(delivered.length, 2);
    assert.deepEqual(burstOf(readUpdateMessage(delivered[0]!)!), [readUpdateMessage(messages[0]!)]);
    assert.equal(delivered[1], trailing);
  });
});
