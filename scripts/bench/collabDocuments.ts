/**
 * The documents of the collab bench, generated deterministically: an editing trace of
 * single-character edits, a large page stored as one merged row plus many small ones, and a
 * 5,000-word page for the save path. All use the editor's layout: the `default` XML fragment
 * of paragraphs holding text.
 */
import * as Y from 'yjs';
import { markdownToDocument, type DocumentJson } from '../../content-pipeline/index.ts';
import { seededRandom } from '../seededRandom.ts';
import { BENCH_WORDS, wordPageMarkdown } from './wordPage.ts';



/** The text of the first paragraph: where the bench types. */
export function firstParagraphText(ydoc: Y.Doc): Y.XmlText {
  const paragraph = ydoc.getXmlFragment('default').get(0) as Y.XmlElement;
  return paragraph.get(0) as Y.XmlText;
}

/** An update that creates one paragraph with `text`, written by a fixed client, so every copy is the same. */
export function paragraphSeed(text: string): Uint8Array {
  const ydoc = new Y.Doc();
  ydoc.clientID = 1;
  const paragraph = new Y.XmlElement('paragraph');
  paragraph.insert(0, [new Y.XmlText(text)]);
  ydoc.getXmlFragment('default').insert(0, [paragraph]);
  return Y.encodeStateAsUpdate(ydoc);
}

export interface EditingTrace {
  /** One update per edit, in order. */
  updates: Uint8Array[];
  /** The seed paragraph the trace edits (apply it first). */
  seed: Uint8Array;
  clientID: number;
  /** The trace's client clock after the last edit: a receiver has everything once it reaches it. */
  finalClock: number;
  finalText: string;
  inserts: number;
  deletions: number;
  bytes: number;
}

/** `edits` single-character edits at random positions: inserts, and a deletion every so often. */
export function generateTrace(edits: number, deletionShare: number, seed: number): EditingTrace {
  const random = seededRandom(seed);
  const initial = paragraphSeed('');
  const ydoc = new Y.Doc();
  ydoc.clientID = 7;
  Y.applyUpdate(ydoc, initial);
  const updates: Uint8Array[] = [];
  let bytes = 0;
  ydoc.on('update', (update: Uint8Array) => {
    updates.push(update);
    bytes += update.byteLength;
  });
  const text = firstParagraphText(ydoc);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz     ';
  let inserts = 0;
  let deletions = 0;
  for (let edit = 0; edit < edits; edit += 1) {
    if (text.length > 10 && random() < deletionShare) {
      text.delete(Math.floor(random() * text.length), 1);
      deletions += 1;
    } else {
      text.insert(Math.floor(random() * (text.length + 1)), alphabet[Math.floor(random() * alphabet.length)]!);
      inserts += 1;
    }
  }
  const trace = { updates, seed: initial, clientID: ydoc.clientID, finalClock: Y.getState(ydoc.store, ydoc.clientID), finalText: text.toString(), inserts, deletions, bytes };
  ydoc.destroy();
  return trace;
}

export interface LargePage {
  /** The log rows: one merged state, then the small edits after it. */
  rows: Uint8Array[];
  /** All rows merged (what a cold open sends to the client). */
  state: Uint8Array;
  paragraphs: number;
  characters: number;
}

/** About `targetBytes` of paragraphs, stored as one merged row plus `smallRows` later edits of a word each. */
export function generateLargePage(targetBytes: number, smallRows: number, seed: number): LargePage {
  const random = seededRandom(seed);
  const ydoc = new Y.Doc();
  ydoc.clientID = 11;
  const fragment = ydoc.getXmlFragment('default');
  const sentence = () => Array.from({ length: 8 + Math.floor(random() * 10) }, () => BENCH_WORDS[Math.floor(random() * BENCH_WORDS.length)]!).join(' ') + '. ';
  let paragraphs = 0;
  // The small rows come from other clients (other editors), each with a clock of its own.
  const estimatedSmallBytes = smallRows * 40;
  while (Y.encodeStateAsUpdate(ydoc).byteLength < targetBytes - estimatedSmallBytes) {
    ydoc.transact(() => {
      for (let batch = 0; batch < 20; batch += 1) {
        const paragraph = new Y.XmlElement('paragraph');
        paragraph.insert(0, [new Y.XmlText(Array.from({ length: 3 + Math.floor(random() * 4) }, sentence).join(''))]);
        fragment.insert(fragment.length, [paragraph]);
        paragraphs += 1;
      }
    });
  }
  const rows = [Y.encodeStateAsUpdate(ydoc)];
  const editors = Array.from({ length: 5 }, (_, index) => {
    const editor = new Y.Doc();
    editor.clientID = 100 + index;
    Y.applyUpdate(editor, rows[0]!);
    return editor;
  });
  for (let row = 0; row < smallRows; row += 1) {
    const editor = editors[row % editors.length]!;
    const before = Y.encodeStateVector(editor);
    const paragraph = editor.getXmlFragment('default').get(Math.floor(random() * paragraphs)) as Y.XmlElement;
    const text = paragraph.get(0) as Y.XmlText;
    text.insert(Math.floor(random() * text.length), ` ${BENCH_WORDS[Math.floor(random() * BENCH_WORDS.length)]!}`);
    const update = Y.encodeStateAsUpdate(editor, before);
    rows.push(update);
    // Every editor sees every edit, as they would live.
    for (const other of editors) if (other !== editor) Y.applyUpdate(other, update);
    Y.applyUpdate(ydoc, update);
  }
  const state = Y.mergeUpdates(rows);
  let characters = 0;
  for (const node of fragment.toArray()) characters += ((node as Y.XmlElement).get(0) as Y.XmlText).length;
  for (const editor of editors) editor.destroy();
  ydoc.destroy();
  return { rows, state, paragraphs, characters };
}

/**
 * A 5,000-word page like bench:pipeline's (sections, bold words, lists, tables, wikilinks,
 * transclusions) plus mentions of `mentionIds`; `variant` changes one word, so that two
 * variants saved in turn are each a real change.
 */
export function generateWordPage(words: number, mentionIds: readonly string[], variant: number): DocumentJson {
  return markdownToDocument(`${wordPageMarkdown(words, mentionIds)}\nFassung ${variant}.`);
}
