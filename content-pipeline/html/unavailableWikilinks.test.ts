import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdownToDocument } from '../markdown/markdownToDocument.ts';
import { documentToHtml } from './documentToHtml.ts';
import { expandPlaceholdersByTree } from './expandPlaceholders.ts';
import { unlinkWikilinks, wikilinkTargets, wikilinkTextFromHtml } from './unavailableWikilinks.ts';

const html = (markdown: string) => documentToHtml(markdownToDocument(markdown));

describe('unavailable wikilinks', () => {
  const body = html('To [[Public]], **[[secret|the <secret> & co]]** and [[ghost|Gießplan]].\n');

  it('lists the distinct targets, lowercase', () => {
    assert.deepEqual(wikilinkTargets(body), ['public', 'secret', 'ghost']);
    assert.deepEqual(wikilinkTargets('<p>No links</p>'), []);
  });

  it('keeps a linkable target a link and turns the others into their text without an href', () => {
    const out = unlinkWikilinks(body, (slug) => slug === 'public');
    assert.equal(
      out,
      '<p>To <a href="Public" data-slug="Public" class="dt-wikilink">Public</a>, <strong><span data-slug="secret" class="dt-wikilink-unavailable">the &#x3C;secret> &#x26; co</span></strong> and <span data-slug="ghost" class="dt-wikilink-unavailable">Gießplan</span>.</p>',
    );
    assert.equal(unlinkWikilinks(body, () => true), body);
  });

  it('finds the links of an expanded body (hast serialization) too', () => {
    const host = html('![[other]]\n');
    const expanded = expandPlaceholdersByTree(host, { resolveTransclusion: () => ({ html: html('See [[hidden]].\n'), title: 'Other' }) });
    assert.deepEqual(wikilinkTargets(expanded), ['hidden']);
    assert.ok(!unlinkWikilinks(expanded, () => false).includes('href'));
  });
});

describe('wikilinkTextFromHtml', () => {
  it('reads a serialized link text back as plain text', () => {
    assert.equal(wikilinkTextFromHtml('Gie&#xDF;plan &#x26; &#x3C;co>'), 'Gießplan & <co>');
    assert.equal(wikilinkTextFromHtml('plain'), 'plain');
  });
});
