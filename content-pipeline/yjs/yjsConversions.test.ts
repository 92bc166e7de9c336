import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import * as Y from 'yjs';
import { documentSchema, type DocumentJson } from '../schema/documentSchema.ts';
import { markdownToDocument } from '../markdown/markdownToDocument.ts';
import { appendYDocContent, documentToYDoc, documentToYjsUpdate, replaceYDocContent, yDocToDocument, yjsUpdateToDocument, YJS_FRAGMENT_NAME } from './yjsConversions.ts';

const text = (value: string, marks?: JSONContent['marks']): JSONContent => (marks ? { type: 'text', text: value, marks } : { type: 'text', text: value });
const paragraph = (...content: JSONContent[]): JSONContent => ({ type: 'paragraph', content });
const cell = (type: string, ...content: JSONContent[]): JSONContent => ({ type, content: [paragraph(...content)] });

const pluginData = { series: [{ label: 'a`b```c', values: [1, 2.5, -3] }], options: { stacked: true, title: null }, empty: {}, list: [] };

/** Every node and mark of the schema at least once, with non-default attributes. */
const everyNodeAndMark: DocumentJson = {
  type: 'doc',
  content: [
    { type: 'heading', attrs: { level: 1, id: 'title' }, content: [text('Title '), text('bold', [{ type: 'bold' }])] },
    { type: 'heading', attrs: { level: 6, id: null }, content: [text('Six')] },
    paragraph(
      text('italic', [{ type: 'italic' }]),
      text(' strike', [{ type: 'strike' }]),
      text(' code', [{ type: 'code' }]),
      text(' link', [{ type: 'link', attrs: { href: 'https://example.org/a?b=c', target: null, rel: null, class: null, title: 'T' } }]),
      text(' both', [{ type: 'bold' }, { type: 'italic' }]),
      { type: 'hardBreak' },
      { type: 'wikilink', attrs: { targetSlug: 'other-page', displayText: 'a | b ]' } },
      { type: 'wikilink', attrs: { targetSlug: 'plain', displayText: null } },
      { type: 'mention', attrs: { id: 'user-1', label: 'Ada' } },
      { type: 'wikilink', attrs: { targetSlug: 'bold', displayText: null }, marks: [{ type: 'bold' }, { type: 'italic' }] },
      { type: 'mention', attrs: { id: 'user-2', label: 'Bo' }, marks: [{ type: 'link', attrs: { href: 'https://example.org', target: null, rel: null, class: null, title: null } }] },
      text(' ‏עברית 🙂'),
    ),
    { type: 'paragraph' },
    { type: 'blockquote', content: [paragraph(text('quoted')), { type: 'bulletList', content: [{ type: 'listItem', content: [paragraph(text('in quote'))] }] }] },
    {
      type: 'orderedList',
      attrs: { start: 7, type: null },
      content: [{ type: 'listItem', content: [paragraph(text('seven')), { type: 'orderedList', attrs: { start: 1, type: null }, content: [{ type: 'listItem', content: [paragraph(text('nested'))] }] }] }],
    },
    {
      type: 'taskList',
      content: [
        { type: 'taskItem', attrs: { checked: true }, content: [paragraph(text('done')), { type: 'taskList', content: [{ type: 'taskItem', attrs: { checked: false }, content: [paragraph(text('open'))] }] }] },
      ],
    },
    { type: 'codeBlock', attrs: { language: 'ts' }, content: [text('const a = 1;\n```\n')] },
    { type: 'codeBlock', attrs: { language: null } },
    { type: 'horizontalRule' },
    {
      type: 'table',
      content: [
        { type: 'tableRow', content: [cell('tableHeader', text('H1')), cell('tableHeader', text('H2', [{ type: 'code' }]))] },
        { type: 'tableRow', content: [cell('tableCell', text('a|b', [{ type: 'bold' }])), { type: 'tableCell', content: [{ type: 'paragraph' }] }] },
      ],
    },
    { type: 'image', attrs: { fileId: 'file-1', alt: 'alt text', title: 'a "title"' } },
    { type: 'transclusion', attrs: { targetSlug: 'embedded', displayText: 'Embedded' } },
    { type: 'plugin_block', attrs: { pluginId: 'charts', blockType: 'bar', data: pluginData, svgSnapshot: '<svg><rect/></svg>' } },
    { type: 'section', attrs: { pluginId: 'callouts', styleId: 'warning' }, content: [{ type: 'section', attrs: { pluginId: 'callouts', styleId: 'note' }, content: [paragraph(text('deep'))] }] },
  ],
};

/** The schema's normal form of a document: what every conversion back from Yjs returns. */
const normalized = (doc: DocumentJson): DocumentJson => JSON.parse(JSON.stringify(documentSchema.nodeFromJSON(doc).toJSON())) as DocumentJson;

/** The Yjs tree with attribute values and text formatting as JSON, to compare two Y.Docs. */
function describeYType(node: Y.XmlElement | Y.XmlText | Y.XmlHook | Y.XmlFragment): unknown {
  // Through JSON: in a Y.Doc built locally, formatting values are ProseMirror's null-prototype attrs.
  if (node instanceof Y.XmlText) return { delta: JSON.parse(JSON.stringify(node.toDelta())) as unknown };
  if (node instanceof Y.XmlElement) return { name: node.nodeName, attrs: node.getAttributes(), children: node.toArray().map(describeYType) };
  if (node instanceof Y.XmlFragment) return node.toArray().map(describeYType);
  return { hook: node.hookName };
}

test('every node and mark survives document → Yjs update → document', () => {
  const update = documentToYjsUpdate(everyNodeAndMark);
  assert.ok(update instanceof Uint8Array);
  assert.deepEqual(yjsUpdateToDocument(update), normalized(everyNodeAndMark));
});

test('Yjs → JSON → Yjs preserves the Yjs content', () => {
  const first = documentToYDoc(everyNodeAndMark);
  const again = documentToYDoc(yDocToDocument(first));
  assert.deepEqual(describeYType(again.getXmlFragment(YJS_FRAGMENT_NAME)), describeYType(first.getXmlFragment(YJS_FRAGMENT_NAME)));
});

test('a plugin block data object is stored as a JSON value, not as a string', () => {
  const doc: DocumentJson = { type: 'doc', content: [{ type: 'plugin_block', attrs: { pluginId: 'p', blockType: 't', data: pluginData, svgSnapshot: null } }] };
  const replica = new Y.Doc();
  Y.applyUpdate(replica, documentToYjsUpdate(doc));
  const element = replica.getXmlFragment(YJS_FRAGMENT_NAME).get(0);
  assert.ok(element instanceof Y.XmlElement);
  assert.deepEqual(element.getAttribute('data'), pluginData);
  assert.deepEqual(yDocToDocument(replica).content, [{ type: 'plugin_block', attrs: { pluginId: 'p', blockType: 't', data: pluginData, svgSnapshot: null } }]);
});

test('editing the data of a converted document leaves the Y.Doc unchanged', () => {
  const ydoc = documentToYDoc({ type: 'doc', content: [{ type: 'plugin_block', attrs: { pluginId: 'p', blockType: 't', data: { n: 1 }, svgSnapshot: null } }] });
  const first = yDocToDocument(ydoc);
  (first.content?.[0]?.attrs?.['data'] as { n: number }).n = 2;
  assert.deepEqual(yDocToDocument(ydoc).content?.[0]?.attrs?.['data'], { n: 1 });
});

test('marks on inline nodes other than text are stored as __mark_ attributes and read back', () => {
  const doc: DocumentJson = {
    type: 'doc',
    content: [paragraph(text('a '), { type: 'wikilink', attrs: { targetSlug: 's', displayText: null }, marks: [{ type: 'bold' }] }, text(' b', [{ type: 'bold' }]))],
  };
  const ydoc = documentToYDoc(doc);
  const paragraphElement = ydoc.getXmlFragment(YJS_FRAGMENT_NAME).get(0) as Y.XmlElement;
  assert.deepEqual(describeYType(paragraphElement), {
    name: 'paragraph',
    attrs: {},
    children: [
      { delta: [{ insert: 'a ' }] },
      { name: 'wikilink', attrs: { targetSlug: 's', __mark_bold: {} }, children: [] },
      { delta: [{ insert: ' b', attributes: { bold: {} } }] },
    ],
  });
  assert.deepEqual(yDocToDocument(ydoc), normalized(doc));
});

test('plugin data that is a JSON-looking string stays a string', () => {
  const doc: DocumentJson = { type: 'doc', content: [{ type: 'plugin_block', attrs: { pluginId: 'p', blockType: 't', data: '{"a":1}', svgSnapshot: null } }] };
  const back = yjsUpdateToDocument(documentToYjsUpdate(doc));
  assert.equal(back.content?.[0]?.attrs?.['data'], '{"a":1}');
});

test('the document is written to the Tiptap Collaboration default fragment', () => {
  const ydoc = documentToYDoc({ type: 'doc', content: [paragraph(text('hello'))] });
  assert.equal(YJS_FRAGMENT_NAME, 'default');
  assert.equal(ydoc.getXmlFragment('default').toString(), '<paragraph>hello</paragraph>');
  assert.equal(ydoc.getXmlFragment('prosemirror').length, 0);
});

test('an update made by a collaborating client converts like a local one', () => {
  const server = documentToYDoc({ type: 'doc', content: [paragraph(text('hello'))] });
  const client = new Y.Doc();
  Y.applyUpdate(client, Y.encodeStateAsUpdate(server));
  const paragraphText = (client.getXmlFragment('default').get(0) as Y.XmlElement).get(0) as Y.XmlText;
  paragraphText.insert(5, ' world', { bold: {} });
  Y.applyUpdate(server, Y.encodeStateAsUpdate(client, Y.encodeStateVector(server)));
  assert.deepEqual(yDocToDocument(server), {
    type: 'doc',
    content: [{ type: 'paragraph', content: [text('hello'), text(' world', [{ type: 'bold' }])] }],
  });
});

test('an empty Y.Doc (a page nobody has typed into) converts to the empty document', () => {
  assert.deepEqual(yjsUpdateToDocument(Y.encodeStateAsUpdate(new Y.Doc())), { type: 'doc', content: [{ type: 'paragraph' }] });
});

test('an invalid document is refused', () => {
  assert.throws(() => documentToYjsUpdate({ type: 'doc', content: [{ type: 'nonsense' }] }), /nonsense/);
});

test('replaceYDocContent: a live Y.Doc and a peer bound to it both converge on the new document', () => {
  const live = documentToYDoc(markdownToDocument('# Old\n\nhello **bold** [[link]]\n\n- [ ] task'));
  const peer = new Y.Doc();
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(live));
  live.on('update', (update: Uint8Array) => Y.applyUpdate(peer, update));
  const target = markdownToDocument('# New\n\nworld *it*\n\n| a | b |\n|---|---|\n| 1 | 2 |');
  replaceYDocContent(live, target, 'restore');
  const expected = yDocToDocument(documentToYDoc(target));
  assert.deepEqual(yDocToDocument(live), expected);
  assert.deepEqual(yDocToDocument(peer), expected);
  assert.doesNotMatch(JSON.stringify(yDocToDocument(peer)), /Old|hello/);
});

test('appendYDocContent: existing nodes stay (the same Yjs items), the new blocks follow them, in one transaction', () => {
  const live = documentToYDoc(markdownToDocument('# Kept\n\nfirst **bold** [[link]]'));
  const peer = new Y.Doc();
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(live));
  const updates: Uint8Array[] = [];
  const origins: unknown[] = [];
  live.on('update', (update: Uint8Array) => {
    updates.push(update);
    Y.applyUpdate(peer, update);
  });
  live.on('afterTransaction', (transaction: Y.Transaction) => origins.push(transaction.origin));
  const before = live.getXmlFragment(YJS_FRAGMENT_NAME).toArray();

  appendYDocContent(live, markdownToDocument('## Added\n\n- one\n- two'), 'append');

  assert.equal(updates.length, 1);
  assert.deepEqual(origins, ['append']);
  const after = live.getXmlFragment(YJS_FRAGMENT_NAME).toArray();
  assert.equal(after.length, before.length + 2);
  before.forEach((item, index) => assert.equal(after[index], item, `item ${index} is the one that was there`));
  const expected = markdownToDocument('# Kept\n\nfirst **bold** [[link]]\n\n## Added\n\n- one\n- two');
  assert.deepEqual(yDocToDocument(live), expected);
  assert.deepEqual(yDocToDocument(peer), expected);
  assert.equal(Y.snapshot(live).ds.clients.size, 0, 'nothing was deleted');
});

test('appendYDocContent: a paragraph a peer appended concurrently survives, and both sides converge', () => {
  const live = documentToYDoc(markdownToDocument('start'));
  const peer = new Y.Doc();
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(live));
  peer.transact(() => {
    const paragraph = new Y.XmlElement('paragraph');
    paragraph.insert(0, [new Y.XmlText('typed')]);
    const fragment = peer.getXmlFragment(YJS_FRAGMENT_NAME);
    fragment.insert(fragment.length, [paragraph]);
  });
  appendYDocContent(live, markdownToDocument('appended'));
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(live, Y.encodeStateVector(peer)));
  Y.applyUpdate(live, Y.encodeStateAsUpdate(peer, Y.encodeStateVector(live)));
  const texts = JSON.stringify(yDocToDocument(live));
  for (const word of ['start', 'typed', 'appended']) assert.match(texts, new RegExp(word));
  assert.deepEqual(yDocToDocument(peer), yDocToDocument(live));
  assert.equal(yDocToDocument(live).content?.[0]?.content?.[0]?.text, 'start');
});

test('appendYDocContent on an empty Y.Doc gives the appended document', () => {
  const ydoc = new Y.Doc();
  appendYDocContent(ydoc, markdownToDocument('only'));
  assert.deepEqual(yDocToDocument(ydoc), markdownToDocument('only'));
});
