import * as Y from 'yjs';
import { mergeUpdatesInGroups } from '../api/documents/documentLog.ts';
import { seededRandom } from './seededRandom.ts';
let bad = 0;
for (let trial = 0; trial < 300; trial++) {
  const random = seededRandom(trial + 1);
  const clients = [new Y.Doc(), new Y.Doc(), new Y.Doc()];
  const queue: Uint8Array[] = [];
  for (const c of clients) c.on('update', (u: Uint8Array, origin: unknown) => { if (origin !== 'sync') queue.push(u); });
  const rows: Uint8Array[] = [];
  for (let step = 0; step < 200; step++) {
    const c = clients[Math.floor(random() * 3)]!;
    const t = c.getText('t');
    const big = random() < 0.05;
    if (random() < 0.15 && t.length > 0) t.delete(Math.floor(random() * t.length), 1);
    else t.insert(Math.floor(random() * (t.length + 1)), big ? 'x'.repeat(1500) : 'k');
    // sync everyone (broadcast)
    const u = queue[queue.length - 1]!;
    for (const o of clients) if (o !== c) Y.applyUpdate(o, u, 'sync');
    if (random() < 0.2) {
      // flush: logRows
      const small = queue.filter((x) => x.byteLength < 1024), large = queue.filter((x) => x.byteLength >= 1024);
      if (small.length) rows.push(mergeUpdatesInGroups(small));
      rows.push(...large);
      queue.length = 0;
    }
  }
  const small = queue.filter((x) => x.byteLength < 1024), large = queue.filter((x) => x.byteLength >= 1024);
  if (small.length) rows.push(mergeUpdatesInGroups(small)); rows.push(...large);
  const merged = mergeUpdatesInGroups(rows);
  const d1 = new Y.Doc(); Y.applyUpdate(d1, merged);
  const d2 = new Y.Doc(); d2.transact(() => rows.forEach((r) => Y.applyUpdate(d2, r)));
  const expected = clients[0]!.getText('t').toString();
  const sv = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(merged));
  const svOk = [...Y.decodeStateVector(Y.encodeStateVector(clients[0]!))].every(([k, v]) => sv.get(k) === v);
  if (d1.getText('t').toString() !== expected || d2.getText('t').toString() !== expected || !svOk) { bad++; if (bad < 4) console.log('trial', trial, 'merged ok', d1.getText('t').toString() === expected, 'applied ok', d2.getText('t').toString() === expected, 'sv ok', svOk); }
}
console.log('bad', bad, 'of 300');
