import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EditorState } from '@tiptap/pm/state';
import { documentSchema } from '../../../content-pipeline/index.ts';
import type { FileView } from '../files/fileViews.ts';
import { pastedFiles } from './fileDrop.ts';
import { contentFor, followsWord, placeAt, positionOf } from './uploadPlacement.ts';

const file = (name: string, extension: string): FileView => ({
  id: '6f1c0e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6',
  pondId: 'p',
  pageId: null,
  uploadPageId: 'page',
  name,
  extension,
  contentType: 'application/octet-stream',
  sizeBytes: 10,
  sha256: null,
  embedded: false,
  claimed: false,
  uploadedBy: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  url: '/api/v1/media/6f1c0e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6',
});

test('a raster image becomes an image node naming the file; SVG and other files a link to it', () => {
  assert.deepEqual(contentFor(file('Garden view.webp', 'webp')), [{ type: 'image', attrs: { fileId: file('', '').id, alt: 'Garden view', title: null } }]);
  for (const [name, extension] of [['drawing.svg', 'svg'], ['Plan.pdf', 'pdf']] as const) {
    assert.deepEqual(contentFor(file(name, extension)), [
      { type: 'text', text: name, marks: [{ type: 'link', attrs: { href: `/api/v1/media/${file('', '').id}` } }] },
      { type: 'text', text: ' ' },
    ]);
  }
});

test('a link gets a space before it where it would run into a word', () => {
  const doc = documentSchema.nodeFromJSON({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Plan: here' }] }, { type: 'paragraph' }] });
  assert.equal(followsWord(doc, 1), false, 'the start of a paragraph');
  assert.equal(followsWord(doc, 7), false, 'after a space');
  assert.equal(followsWord(doc, 11), true, 'after a word');
  assert.equal(followsWord(doc, 12), false, 'between blocks');
  assert.equal(followsWord(doc, 13), false, 'an empty paragraph');
  assert.deepEqual(contentFor(file('Plan.pdf', 'pdf'), { spaceBefore: true })[0], { type: 'text', text: ' ' });
  assert.equal(contentFor(file('a.png', 'png'), { spaceBefore: true }).length, 1, 'an image is a block of its own');
});

test('what is inserted fits the document schema', () => {
  const doc = documentSchema.nodeFromJSON({
    type: 'doc',
    content: [...contentFor(file('a.png', 'png')), { type: 'paragraph', content: contentFor(file('b.pdf', 'pdf')) }],
  });
  doc.check();
  assert.equal(doc.child(1).firstChild!.marks[0]!.attrs['href'], `/api/v1/media/${file('', '').id}`);
});

test('without a collaboration binding the place is the position taken, within the document', () => {
  const doc = documentSchema.nodeFromJSON({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hello' }] }] });
  const state = EditorState.create({ doc });
  assert.equal(positionOf(state, placeAt(state, 3)), 3);
  const shorter = EditorState.create({ doc: documentSchema.nodeFromJSON({ type: 'doc', content: [{ type: 'paragraph' }] }) });
  assert.equal(positionOf(shorter, placeAt(state, 6)), shorter.doc.content.size);
});

test('a paste uploads its files unless it carries text (an office program’s picture of the copied passage)', () => {
  const png = new File([new Uint8Array([1])], 'a.png');
  const clipboard = (types: string[], text: string, files: File[]) => ({ types, files, getData: (type: string) => (type === 'text/plain' ? text : '') }) as unknown as DataTransfer;
  assert.deepEqual(pastedFiles(clipboard(['Files'], '', [png])), [png]);
  assert.deepEqual(pastedFiles(clipboard(['text/html', 'Files'], '', [png])), [png], 'a browser’s copied image: its markup and the file');
  assert.deepEqual(pastedFiles(clipboard(['text/plain', 'text/html', 'Files'], 'Quarterly numbers', [png])), []);
  assert.deepEqual(pastedFiles(clipboard(['text/rtf', 'Files'], '', [png])), []);
  assert.deepEqual(pastedFiles(clipboard(['text/plain'], 'text', [])), []);
  assert.deepEqual(pastedFiles(null), []);
});
