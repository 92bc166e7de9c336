/**
 * Link titles and empty link targets survive every path a page takes: Markdown → document →
 * Markdown, → HTML (sanitized), and → Yjs → document, with exact output on each.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as Y from 'yjs';
import { documentToHtml } from './html/documentToHtml.ts';
import { documentToMarkdown } from './markdown/documentToMarkdown.ts';
import { markdownToDocument } from './markdown/markdownToDocument.ts';
import type { DocumentJson } from './schema/documentSchema.ts';
import { documentToYjsUpdate, yjsUpdateToDocument, YJS_FRAGMENT_NAME } from './yjs/yjsConversions.ts';

/** The link mark as the reader builds it: every attribute, Tiptap's defaults for target and rel. */
const linkMark = (href: string, title: string | null) => ({ type: 'link', attrs: { href, target: '_blank', rel: 'noopener noreferrer nofollow', class: null, title } });

interface LinkCase {
  markdown: string;
  text: string;
  href: string;
  title: string | null;
  /** Markdown written back (the writer's style: inline links, double quotes). */
  written: string;
  html: string;
}

const cases: LinkCase[] = [
  { markdown: '[a](/x "title")', text: 'a', href: '/x', title: 'title', written: '[a](/x "title")\n', html: '<p><a href="/x" title="title">a</a></p>' },
  { markdown: '[a]()', text: 'a', href: '', title: null, written: '[a]()\n', html: '<p><a href="">a</a></p>' },
  { markdown: '[a](<>)', text: 'a', href: '', title: null, written: '[a]()\n', html: '<p><a href="">a</a></p>' },
  { markdown: '[a](<> "t")', text: 'a', href: '', title: 't', written: '[a](<> "t")\n', html: '<p><a href="" title="t">a</a></p>' },
  { markdown: '[a](/x (paren))', text: 'a', href: '/x', title: 'paren', written: '[a](/x "paren")\n', html: '<p><a href="/x" title="paren">a</a></p>' },
  {
    markdown: `[a](/x 'say "hi" & <go>')`,
    text: 'a',
    href: '/x',
    title: 'say "hi" & <go>',
    written: '[a](/x "say \\"hi\\" & <go>")\n',
    html: '<p><a href="/x" title="say &#x22;hi&#x22; &#x26; <go>">a</a></p>',
  },
  { markdown: '[a][r]\n\n[r]: /u "ref title"', text: 'a', href: '/u', title: 'ref title', written: '[a](/u "ref title")\n', html: '<p><a href="/u" title="ref title">a</a></p>' },
  { markdown: '[a][r]\n\n[r]: <>', text: 'a', href: '', title: null, written: '[a]()\n', html: '<p><a href="">a</a></p>' },
  // An image from outside the uploads becomes a link: it keeps its title too.
  { markdown: '![alt](http://e.example/y.png "t")', text: 'alt', href: 'http://e.example/y.png', title: 't', written: '[alt](http://e.example/y.png "t")\n', html: '<p><a href="http://e.example/y.png" title="t">alt</a></p>' },
];

function expectedDocument({ text, href, title }: LinkCase): DocumentJson {
  return { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text, marks: [linkMark(href, title)] }] }] };
}

describe('link titles and empty link targets', () => {
  for (const linkCase of cases) {
    it(`${JSON.stringify(linkCase.markdown)}: document, Markdown, HTML and Yjs`, () => {
      const doc = markdownToDocument(linkCase.markdown);
      assert.deepEqual(doc, expectedDocument(linkCase));
      assert.equal(documentToMarkdown(doc), linkCase.written);
      assert.deepEqual(markdownToDocument(linkCase.written), doc, 'the written Markdown reads back as the same document');
      assert.equal(documentToHtml(doc), linkCase.html);
      const viaYjs = yjsUpdateToDocument(documentToYjsUpdate(doc));
      assert.deepEqual(viaYjs, doc);
      assert.equal(documentToHtml(viaYjs), linkCase.html);
    });
  }

  it('the Yjs state itself holds the title and the empty href (what the editor and the collaboration server see)', () => {
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, documentToYjsUpdate(markdownToDocument('[a](<> "t")')));
    const paragraph = ydoc.getXmlFragment(YJS_FRAGMENT_NAME).get(0) as Y.XmlElement;
    const delta = (paragraph.get(0) as Y.XmlText).toDelta() as { insert: string; attributes: Record<string, { href: string; title: string | null }> }[];
    assert.equal(delta.length, 1);
    assert.equal(delta[0]?.insert, 'a');
    assert.deepEqual(Object.values(delta[0]?.attributes ?? {}).map(({ href, title }) => ({ href, title })), [{ href: '', title: 't' }]);
  });

  it('two links that differ only in their titles stay two links', () => {
    const doc = markdownToDocument('[a](/x "one")[b](/x "two")[c](/x)');
    assert.equal(documentToMarkdown(doc), '[a](/x "one")[b](/x "two")[c](/x)\n');
    assert.equal(documentToHtml(doc), '<p><a href="/x" title="one">a</a><a href="/x" title="two">b</a><a href="/x">c</a></p>');
  });
});
