import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { looksLikeMarkdown } from './editorAdditions.ts';
import { matchPages } from './pondDirectory.ts';

describe('pasted text read as Markdown', () => {
  test('block markers and inline syntax count; prose does not', () => {
    for (const text of ['# Title', 'intro\n- one\n- two', '1. first', '> quoted', '```\ncode\n```', '| a | b |', 'some **bold** text', 'see [docs](https://example.org)', 'link to [[page]]', 'use `npm`']) {
      assert.equal(looksLikeMarkdown(text), true, text);
    }
    for (const text of ['Just a sentence.', 'A price of 5 * 3 and #hashtag', 'e-mail: a@b.c']) {
      assert.equal(looksLikeMarkdown(text), false, text);
    }
  });
});

describe('matchPages', () => {
  const pages = [
    { slug: 'garden', title: 'Garden' },
    { slug: 'gardening-tips', title: 'Tips for the garden' },
    { slug: 'kitchen', title: 'Kitchen' },
  ];

  test('exact before prefix before contained, in title or slug, case-insensitive', () => {
    assert.deepEqual(matchPages(pages, 'GARDEN').map((page) => page.slug), ['garden', 'gardening-tips']);
    assert.deepEqual(matchPages(pages, 'tips').map((page) => page.slug), ['gardening-tips']);
    assert.deepEqual(matchPages(pages, 'itch').map((page) => page.slug), ['kitchen']);
    assert.deepEqual(matchPages(pages, 'nothing'), []);
  });

  test('an empty query lists the first pages, up to the limit', () => {
    assert.equal(matchPages(pages, '  ', 2).length, 2);
  });
});
