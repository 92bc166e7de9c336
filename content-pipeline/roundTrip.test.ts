/**
 * Round trips over the corpus (testing/corpus.ts), for every entry:
 * (a) Markdown → document → Markdown → document gives the same document twice;
 * (b) Markdown → document → Markdown is a fixed point after one pass;
 * (c) document → Yjs update → document gives the identical document.
 * And the corpus, once parsed, uses every node and every mark of the schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { documentToMarkdown } from './markdown/documentToMarkdown.ts';
import { markdownToDocument } from './markdown/markdownToDocument.ts';
import { assertValidDocument, documentSchema } from './schema/documentSchema.ts';
import { corpus } from './testing/corpus.ts';
import { documentToYjsUpdate, yjsUpdateToDocument } from './yjs/yjsConversions.ts';

function collectTypes(node: JSONContent, nodeTypes: Set<string>, markTypes: Set<string>): void {
  if (node.type) nodeTypes.add(node.type);
  for (const mark of node.marks ?? []) markTypes.add(mark.type);
  for (const child of node.content ?? []) collectTypes(child, nodeTypes, markTypes);
}

const usedNodeTypes = new Set<string>();
const usedMarkTypes = new Set<string>();

for (const { name, markdown } of corpus) {
  test(`round trips: ${name}`, () => {
    const doc1 = markdownToDocument(markdown);
    assertValidDocument(doc1);
    collectTypes(doc1, usedNodeTypes, usedMarkTypes);

    const md1 = documentToMarkdown(doc1);
    const doc2 = markdownToDocument(md1);
    assert.deepEqual(doc2, doc1, '(a) Markdown → document → Markdown → document changed the document');

    const md2 = documentToMarkdown(doc2);
    assert.equal(md2, md1, '(b) Markdown → document → Markdown is not a fixed point after one pass');

    const viaYjs = yjsUpdateToDocument(documentToYjsUpdate(doc1));
    assert.deepEqual(viaYjs, doc1, '(c) document → Yjs → document changed the document');
  });
}

test('the corpus uses every node and every mark of the schema', () => {
  assert.deepEqual([...usedNodeTypes].sort(), Object.keys(documentSchema.nodes).sort());
  assert.deepEqual([...usedMarkTypes].sort(), Object.keys(documentSchema.marks).sort());
});
