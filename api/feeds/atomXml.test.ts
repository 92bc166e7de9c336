/**
 * The Atom writer on its own: hostile texts stay text and the XML stays well-formed and valid,
 * characters XML cannot carry are dropped, ids are stable, summaries are cut at words.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertValidAtomSchema, AtomSchemaBatch, parseAtom, schemaCheckUnavailable } from '../testing/atomChecks.ts';
import { renderAtomFeed, withoutInvalidXmlChars, xmlAttribute, xmlText, type AtomFeed } from './atomXml.ts';
import { pageChangeEntryId, uuidV5 } from './entryIds.ts';
import { summaryOf } from './feedContent.ts';

const HOSTILE = 'A & B <script>alert(1)</script> ]]> "quoted" \'single\' \u0000\u0001\u0008\u000B\u000C\u000E\u001F\uFFFE\uFFFF\uD800 tail \u{1F986}';

function feedWith(text: string, html: string): AtomFeed {
  const when = new Date('2025-03-04T05:06:07.089Z');
  return {
    id: 'urn:uuid:11111111-1111-4111-8111-111111111111',
    title: text,
    subtitle: text,
    updated: when,
    selfUrl: 'https://teich.example/api/v1/public/p/feed.xml',
    alternateUrl: 'https://teich.example/p',
    language: 'en',
    generator: { name: text },
    authors: [text],
    entries: [
      {
        id: 'urn:uuid:22222222-2222-4222-8222-222222222222',
        title: text,
        updated: when,
        published: when,
        authors: [text, 'Second'],
        link: `https://teich.example/p/x?a=1&b=${text}`,
        summary: text,
        contentHtml: html,
      },
      { id: 'urn:uuid:33333333-3333-4333-8333-333333333333', title: 'No authors of its own', updated: when, authors: [], link: 'https://teich.example/p/y' },
    ],
  };
}

describe('escaping', () => {
  test('markup characters are escaped and forbidden characters dropped; astral characters and tabs stay', () => {
    assert.equal(xmlText('a<b>&]]>'), 'a&lt;b&gt;&amp;]]&gt;');
    assert.equal(withoutInvalidXmlChars('x\u0000\u0007\u000B\u000C\u001F\uFFFE\uFFFF\uDFFF\uD800y\t\n\r\u{1F986}'), 'xy\t\n\r\u{1F986}');
    assert.equal(xmlAttribute('"<\'&\t\n'), '&quot;&lt;&apos;&amp;&#9;&#10;');
  });

  test('a feed of hostile texts parses, and every text comes back as it was meant (minus forbidden characters)', () => {
    const html = '<p>1 &lt; 2 &amp;&amp; <a href="other">x</a></p><script>alert(1)</script>]]>';
    const xml = renderAtomFeed(feedWith(HOSTILE, html));
    assert.ok(!xml.includes('<script>'), 'no raw script element anywhere');
    assert.ok(!xml.includes(']]>'), 'no CDATA terminator anywhere');
    const parsed = parseAtom(xml);
    const expected = withoutInvalidXmlChars(HOSTILE);
    assert.ok(expected.endsWith('tail \u{1F986}'));
    assert.equal(parsed.title?.value, expected);
    assert.equal(parsed.subtitle?.value, expected);
    assert.equal(parsed.authors?.[0]?.name, expected);
    const [entry] = parsed.entries ?? [];
    assert.equal(entry?.title?.value, expected);
    assert.equal(entry?.summary?.value, expected);
    assert.deepEqual(entry?.authors?.map((author) => author.name), [expected, 'Second']);
    assert.equal(entry?.content?.type, 'html');
    assert.equal(entry?.content?.value, html, 'the HTML arrives as the same string, to be parsed by the reader as HTML');
    assert.equal(entry?.links?.[0]?.href, `https://teich.example/p/x?a=1&b=${expected}`);
  });

  test('the hostile feed is valid Atom (RFC 4287 schema and rules)', async (t) => {
    const unavailable = schemaCheckUnavailable();
    if (unavailable) return t.skip(`schema check skipped: ${unavailable}`);
    await assertValidAtomSchema(renderAtomFeed(feedWith(HOSTILE, '<p>x</p>')), 'hostile feed');
  });

  test('the schema check itself fails on an invalid feed', async (t) => {
    const unavailable = schemaCheckUnavailable();
    if (unavailable) return t.skip(`schema check skipped: ${unavailable}`);
    const withoutAuthors = renderAtomFeed({ ...feedWith('x', '<p>x</p>'), authors: [] });
    await assert.rejects(assertValidAtomSchema(withoutAuthors, 'no authors'), /must have an atom:author/);
    const noId = renderAtomFeed(feedWith('x', '<p>x</p>')).replace(/<id>[^<]*<\/id>\n/, '');
    await assert.rejects(assertValidAtomSchema(noId, 'no id'), /jing atom\.rnc/);
  });

  test('a batch of feeds passes only when every one is valid, and a finding names its feed', async (t) => {
    const unavailable = schemaCheckUnavailable();
    if (unavailable) return t.skip(`schema check skipped: ${unavailable}`);
    const batch = new AtomSchemaBatch();
    batch.add(renderAtomFeed(feedWith(HOSTILE, '<p>x</p>')), 'the hostile feed');
    batch.add(renderAtomFeed({ ...feedWith('x', '<p>x</p>'), authors: [] }), 'the feed without authors');
    batch.add(renderAtomFeed(feedWith('x', '<p>x</p>')).replace(/<id>[^<]*<\/id>\n/, ''), 'the feed without an id');
    await assert.rejects(batch.assertAllValid(), (error: Error) => {
      assert.match(error.message, /jing atom\.rnc found in the feed without an id:\nthe feed without an id:\d+:\d+: error/);
      assert.match(error.message, /jing atom-rules\.sch found in the feed without authors:\n(?:.*\n)*.*must have an atom:author/);
      assert.doesNotMatch(error.message, /the hostile feed/);
      return true;
    });
  });

  test('the parser check fails on malformed XML and on forbidden characters', () => {
    assert.throws(() => parseAtom('<feed xmlns="http://www.w3.org/2005/Atom"><title>x</feed>'), /not well-formed/);
    assert.throws(() => parseAtom('<feed xmlns="http://www.w3.org/2005/Atom"><title>\u0001</title></feed>'), /does not allow/);
  });
});

describe('ids and summaries', () => {
  test('uuid v5 matches RFC 9562 (the DNS example)', () => {
    assert.equal(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  test('a page change id is stable for the same change and new for the next one', () => {
    const page = 'a3bb189e-8bf9-4888-9912-ace4e6543002';
    const first = pageChangeEntryId(page, new Date('2025-01-01T00:00:00.000Z'));
    assert.equal(first, pageChangeEntryId(page, new Date('2025-01-01T00:00:00.000Z')));
    assert.notEqual(first, pageChangeEntryId(page, new Date('2025-01-01T00:00:00.001Z')));
    assert.match(first, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('summaries collapse whitespace and end at a word with an ellipsis', () => {
    assert.equal(summaryOf('  short\n\ntext  '), 'short text');
    const long = summaryOf('word '.repeat(200));
    assert.ok(long.length <= 280 && long.endsWith('word…'), long);
  });
});
