import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mediaHref, nameWithoutExtension, showsAsImage, sizeInWords } from './fileViews.ts';

test('raster images show as pictures; SVG and everything else as links', () => {
  for (const extension of ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'PNG']) assert.equal(showsAsImage({ extension }), true, extension);
  for (const extension of ['svg', 'pdf', 'txt', 'exe', '']) assert.equal(showsAsImage({ extension }), false, extension);
});

test('sizes in steps of 1024, one decimal below ten of a unit, in the reader’s notation', () => {
  assert.equal(sizeInWords(0, 'en'), '0 B');
  assert.equal(sizeInWords(1023, 'en'), '1,023 B');
  assert.equal(sizeInWords(1536, 'en'), '1.5 KB');
  assert.equal(sizeInWords(1536, 'de'), '1,5 KB');
  assert.equal(sizeInWords(10 * 1024 * 1024, 'en'), '10 MB');
  assert.equal(sizeInWords(25.4 * 1024 * 1024, 'de'), '25 MB');
  assert.equal(sizeInWords(3 * 1024 ** 3, 'en'), '3 GB');
});

test('names: without the extension, and the file’s address', () => {
  assert.equal(nameWithoutExtension('holiday photo.jpeg'), 'holiday photo');
  assert.equal(nameWithoutExtension('.hidden'), '.hidden');
  assert.equal(mediaHref('6f1c0e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6'), '/api/v1/media/6f1c0e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6');
});
