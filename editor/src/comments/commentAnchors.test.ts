import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import { initProseMirrorDoc } from '@tiptap/y-tiptap';
import * as Y from 'yjs';
import { documentSchema, documentToYDoc, YJS_FRAGMENT_NAME } from '../../../content-pipeline/index.ts';
import { createAnchor, QUOTE_MAX_CHARS, quoteOf, resolveAnchor, type YjsBinding } from './commentAnchors.ts';
import type { CommentAnchor } from './commentViews.ts';

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ type: 'text', text }] });

/** Two clients of one page: A holds the document, B has synced it. */
function twoClients(...texts: string[]): { a: Y.Doc; b: Y.Doc } {
  const a = documentToYDoc({ type: 'doc', content: texts.map(paragraph) });
  const b = new Y.Doc();
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
  return { a, b };
}

/** Exchanges what each side has that the other lacks, as the collaboration server relays it. */
function sync(a: Y.Doc, b: Y.Doc): void {
  const forB = Y.encodeStateAsUpdate(a, Y.encodeStateVector(b));
  const forA = Y.encodeStateAsUpdate(b, Y.encodeStateVector(a));
  Y.applyUpdate(b, forB);
  Y.applyUpdate(a, forA);
}

/** The client's editor document as the collaboration binding renders it now, with its mapping. */
function editorOf(ydoc: Y.Doc): { binding: YjsBinding; doc: ProseMirrorNode } {
  const fragment = ydoc.getXmlFragment(YJS_FRAGMENT_NAME);
  const { doc, mapping } = initProseMirrorDoc(fragment, documentSchema);
  return { binding: { ydoc, fragment, mapping }, doc };
}

/** The ProseMirror range of the first occurrence of `text` inside one text node. */
function rangeOf(doc: ProseMirrorNode, text: string): { from: number; to: number } {
  let found: { from: number; to: number } | null = null;
  doc.descendants((node, position) => {
    if (found || !node.isText) return !found;
    const index = node.text!.indexOf(text);
    if (index >= 0) found = { from: position + index, to: position + index + text.length };
    return false;
  });
  assert.ok(found, `"${text}" is in the document`);
  return found;
}

function anchorOn(ydoc: Y.Doc, text: string): CommentAnchor {
  const { binding, doc } = editorOf(ydoc);
  const { from, to } = rangeOf(doc, text);
  const anchor = createAnchor(binding, doc, from, to);
  assert.ok(anchor);
  return anchor;
}

/** The text the anchor covers in the client's document now, or `deleted`. */
function coveredText(ydoc: Y.Doc, anchor: CommentAnchor): string {
  const { binding, doc } = editorOf(ydoc);
  const resolved = resolveAnchor(binding, doc, anchor);
  return resolved.status === 'found' ? quoteOf(doc, resolved.from, resolved.to) : 'deleted';
}

/** The Y.XmlText holding the text of the document's `index`th paragraph. */
const textOf = (ydoc: Y.Doc, index: number) => (ydoc.getXmlFragment(YJS_FRAGMENT_NAME).get(index) as Y.XmlElement).get(0) as Y.XmlText;

describe('comment anchors', () => {
  test('an anchor holds the selected text as its quote, its ends as short base64 relative positions', () => {
    const { a } = twoClients('Alpha beta gamma delta');
    const anchor = anchorOn(a, 'beta gamma');
    assert.equal(anchor.quote, 'beta gamma');
    for (const end of [anchor.from, anchor.to]) {
      assert.match(end, /^[A-Za-z0-9+/]+=*$/);
      assert.ok(end.length <= 256, 'the contract allows 256 characters per end');
    }
    assert.equal(coveredText(a, anchor), 'beta gamma');
  });

  test('the other client’s concurrent inserts and deletes before and inside the passage: it still covers its text, on both clients', () => {
    const { a, b } = twoClients('Alpha beta gamma delta', 'Second paragraph');
    const anchor = anchorOn(a, 'beta gamma');
    // B edits without having heard from A since; A edits elsewhere meanwhile.
    const onB = textOf(b, 0);
    onB.insert(0, 'Intro ');             // Intro Alpha beta gamma delta
    onB.delete(6, 3);                     // Intro ha beta gamma delta (before the passage)
    onB.insert(13, ' and more');          // Intro ha beta and more gamma delta (inside)
    onB.delete(24, 2);                    // Intro ha beta and more gma delta (inside)
    textOf(a, 1).insert(0, 'A was here: ');
    textOf(a, 0).insert(0, '» ');
    sync(a, b);
    assert.equal(textOf(a, 0).toString(), textOf(b, 0).toString(), 'both clients converged');
    assert.match(textOf(a, 0).toString(), /ha beta and more gma delta$/);
    const inside = 'beta and more gma';
    assert.equal(coveredText(a, anchor), inside);
    assert.equal(coveredText(b, anchor), inside);
  });

  test('text typed right before or right after the passage stays outside it', () => {
    const { a, b } = twoClients('Alpha beta gamma delta');
    const anchor = anchorOn(a, 'beta gamma');
    const onB = textOf(b, 0);
    onB.insert('Alpha beta gamma'.length, '!!');
    onB.insert('Alpha '.length, '¡¡');
    sync(a, b);
    assert.equal(textOf(a, 0).toString(), 'Alpha ¡¡beta gamma!! delta');
    assert.equal(coveredText(a, anchor), 'beta gamma');
  });

  test('a passage at the document’s very start survives a paragraph the other client inserts before it', () => {
    const { a, b } = twoClients('Alpha beta gamma delta');
    const anchor = anchorOn(a, 'Alpha');
    const inserted = new Y.XmlElement('paragraph');
    inserted.insert(0, [new Y.XmlText('A new first paragraph')]);
    b.getXmlFragment(YJS_FRAGMENT_NAME).insert(0, [inserted]);
    sync(a, b);
    assert.equal(editorOf(a).doc.childCount, 2);
    assert.equal(coveredText(a, anchor), 'Alpha');
  });

  test('a passage over two paragraphs follows edits in both', () => {
    const { a, b } = twoClients('Alpha beta gamma delta', 'Second paragraph');
    const { binding, doc } = editorOf(a);
    const anchor = createAnchor(binding, doc, rangeOf(doc, 'gamma').from, rangeOf(doc, 'Second').to);
    assert.ok(anchor);
    assert.equal(anchor.quote, 'gamma delta Second');
    textOf(b, 0).insert(0, 'New start. ');
    textOf(b, 1).insert(0, 'The ');
    sync(a, b);
    assert.equal(coveredText(a, anchor), 'gamma delta The Second');
  });

  test('the other client deleting the passage is reported as deleted', () => {
    const { a, b } = twoClients('Alpha beta gamma delta', 'Second paragraph');
    const anchor = anchorOn(a, 'beta gamma');
    textOf(b, 0).delete('Alpha '.length, 'beta gamma'.length);
    sync(a, b);
    assert.equal(textOf(a, 0).toString(), 'Alpha  delta');
    assert.equal(coveredText(a, anchor), 'deleted');
    assert.equal(coveredText(b, anchor), 'deleted');
  });

  test('a deleted paragraph, or a deletion wider than the passage, reports it deleted; a partial one keeps the rest', () => {
    const wide = twoClients('Alpha beta gamma delta', 'Second paragraph');
    const wideAnchor = anchorOn(wide.a, 'beta gamma');
    textOf(wide.b, 0).delete(2, 17);
    sync(wide.a, wide.b);
    assert.equal(coveredText(wide.a, wideAnchor), 'deleted');

    const block = twoClients('Alpha beta gamma delta', 'Second paragraph');
    const blockAnchor = anchorOn(block.a, 'beta gamma');
    block.b.getXmlFragment(YJS_FRAGMENT_NAME).delete(0, 1);
    sync(block.a, block.b);
    assert.equal(coveredText(block.a, blockAnchor), 'deleted');
    assert.equal(coveredText(block.a, anchorOn(block.a, 'Second')), 'Second', 'other anchors are unaffected');

    const partial = twoClients('Alpha beta gamma delta');
    const partialAnchor = anchorOn(partial.a, 'beta gamma');
    textOf(partial.b, 0).delete(0, 'Alpha beta '.length);
    sync(partial.a, partial.b);
    assert.equal(coveredText(partial.a, partialAnchor), 'gamma');
  });

  test('no anchor for an empty selection; an unreadable anchor counts as deleted; a long quote keeps its beginning', () => {
    const { a } = twoClients('Alpha beta gamma delta', 'x'.repeat(700));
    const { binding, doc } = editorOf(a);
    assert.equal(createAnchor(binding, doc, 3, 3), null);
    assert.deepEqual(resolveAnchor(binding, doc, { from: '!!', to: 'AAAA', quote: 'x' }), { status: 'deleted' });
    const long = createAnchor(binding, doc, 1, doc.content.size - 1);
    assert.ok(long);
    assert.equal(long.quote.length, QUOTE_MAX_CHARS);
    assert.ok(long.quote.startsWith('Alpha beta gamma delta x'));
  });
});
