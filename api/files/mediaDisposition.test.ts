import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asciiFileName, contentDispositionFor, isInlineImage, percentEncodedUtf8, servedContentType } from './mediaDisposition.ts';

const ID = '0a1b2c3d-0000-4000-8000-000000000001';
const file = (extension: string, contentType: string, name = '') => ({ id: ID, extension, contentType, name });

describe('isInlineImage', () => {
  test('raster images whose extension and content type agree', () => {
    for (const [extension, type] of [['png', 'image/png'], ['jpg', 'image/jpeg'], ['jpeg', 'image/jpeg'], ['gif', 'image/gif'], ['webp', 'image/webp'], ['avif', 'image/avif']]) {
      assert.equal(isInlineImage(file(extension!, type!)), true, extension);
    }
    assert.equal(isInlineImage(file('png', 'IMAGE/PNG; foo=bar')), true);
  });

  test('SVG, PDF, text and disagreeing pairs are not', () => {
    assert.equal(isInlineImage(file('svg', 'image/svg+xml')), false);
    assert.equal(isInlineImage(file('pdf', 'application/pdf')), false);
    assert.equal(isInlineImage(file('txt', 'text/plain')), false);
    assert.equal(isInlineImage(file('png', 'text/html')), false);
    assert.equal(isInlineImage(file('html', 'image/png')), false);
  });
});

describe('contentDispositionFor', () => {
  test('inline for raster images, a named download for the rest', () => {
    assert.equal(contentDispositionFor(file('png', 'image/png', 'a.png')), 'inline');
    assert.equal(contentDispositionFor(file('pdf', 'application/pdf', 'Report.pdf')), `attachment; filename="Report.pdf"; filename*=UTF-8''Report.pdf`);
  });

  test('no name: the generated <id>.<extension>', () => {
    assert.equal(contentDispositionFor(file('svg', 'image/svg+xml')), `attachment; filename="${ID}.svg"; filename*=UTF-8''${ID}.svg`);
  });

  test('quotes, backslashes, percent signs, control characters and non-ASCII never reach the plain filename', () => {
    const header = contentDispositionFor(file('pdf', 'application/pdf', 'Bäume "Q1" \\ 50% \u0007 — (final)*.pdf'));
    const plain = /filename="([^"]*)"/.exec(header)?.[1];
    assert.equal(plain, 'Baume _Q1_ _ 50_ _ _ (final)*.pdf');
    assert.equal(header.split('filename*=')[1], `UTF-8''B%C3%A4ume%20%22Q1%22%20%5C%2050%25%20%07%20%E2%80%94%20%28final%29%2A.pdf`);
    assert.match(header, /^[\x20-\x7e]*$/, 'the whole header is printable ASCII');
  });
});

describe('asciiFileName', () => {
  test('a name with nothing readable before its extension falls back', () => {
    assert.equal(asciiFileName('Привет.pdf', 'fallback.pdf'), 'fallback.pdf');
    assert.equal(asciiFileName('日本語', 'fallback.txt'), 'fallback.txt');
    assert.equal(asciiFileName('Привет 2.pdf', 'fallback.pdf'), '______ 2.pdf');
  });
});

describe('percentEncodedUtf8', () => {
  test('encodes what RFC 8187 leaves out and survives a lone surrogate', () => {
    assert.equal(percentEncodedUtf8("it's (a)*"), 'it%27s%20%28a%29%2A');
    assert.equal(percentEncodedUtf8('a\uD800b'), 'a%EF%BF%BDb');
  });
});

describe('servedContentType', () => {
  test('well-formed types pass, damaged ones become application/octet-stream', () => {
    assert.equal(servedContentType('application/pdf'), 'application/pdf');
    assert.equal(servedContentType('text/plain; charset=utf-8'), 'text/plain; charset=utf-8');
    assert.equal(servedContentType('image/svg+xml'), 'image/svg+xml');
    for (const damaged of ['', 'pdf', 'text/html\r\nSet-Cookie: x=1', 'text/plain; charset="a\nb"', 'a/b/c', 'tëxt/plain']) {
      assert.equal(servedContentType(damaged), 'application/octet-stream', JSON.stringify(damaged));
    }
  });
});
