/**
 * The Atom feeds through HTTP: what the public sees and what a token's owner sees, the pond's
 * recent changes and a page's versions, trashed and unreadable things left out with the same
 * 404 as missing ones, and every feed parsed by a real Atom parser and validated against
 * RFC 4287's schema (jing) where available.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { Page, Pond } from '../models/index.ts';
import { seedGrant } from '../testing/accessFixtures.ts';
import { AtomSchemaBatch, parseAtom, schemaCheckUnavailable, type ParsedAtomFeed } from '../testing/atomChecks.ts';
import { editPage, feedPond, fetchFeed, pageWith, useFeedCast, versionOf } from '../testing/feedFixtures.ts';
import { TestClient } from '../testing/testClient.ts';

describe('Atom feeds', () => {
  const cast = useFeedCast();

  /** Every feed the tests fetch, validated against the schema together by the last test. */
  const schemaBatch = new AtomSchemaBatch();

  /** GET a feed that must answer 200: parsed and checked now, kept for the schema check. */
  async function feed(t: TestContext, path: string, token?: string): Promise<{ parsed: ParsedAtomFeed; xml: string }> {
    const answer = await fetchFeed(cast, path, token === undefined ? {} : { token });
    assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    const parsed = parseAtom(answer.text);
    schemaBatch.add(answer.text, `${path}${token === undefined ? '' : ' (with a token)'} in "${t.name}"`);
    return { parsed, xml: answer.text };
  }
  const titles = (parsed: ParsedAtomFeed) => (parsed.entries ?? []).map((entry) => entry.title?.value);
  const base = () => cast.instance.baseUrl;

  test('a public pond: its readable pages, newest change first, with ids, links, authors, summary and content', async (t) => {
    const pond = await feedPond(cast, { name: 'Village pond', public: true });
    const first = await pageWith(cast, pond, 'Ducks', '# Ducks\n\nMallards **quack**. See [[geese]].');
    const second = await pageWith(cast, pond, 'Geese', 'Geese honk.');
    await editPage(cast, first.id, '# Ducks\n\nMallards **quack** loudly.', [cast.owner.user.id]);

    const { parsed, xml } = await feed(t, `${pond.slug}/feed.xml`);
    assert.equal(parsed.id, `urn:uuid:${pond.id}`);
    assert.equal(parsed.title?.value, 'Village pond');
    assert.equal(parsed.subtitle?.value, 'Recently changed pages', 'the instance language without a token');
    assert.deepEqual(parsed.links?.map((link) => [link.rel, link.href]), [
      ['self', `${base()}/api/v1/public/${pond.slug}/feed.xml`],
      ['alternate', `${base()}/${pond.slug}`],
    ]);
    assert.equal(parsed.generator?.text, 'Dorfteich');
    assert.deepEqual(titles(parsed), ['Ducks', 'Geese'], 'the edited page first');
    const [ducks] = parsed.entries!;
    assert.match(ducks!.id!, /^urn:uuid:[0-9a-f-]{36}$/);
    assert.equal(ducks!.links?.[0]?.href, `${base()}/${pond.slug}/${first.slug}`);
    assert.deepEqual(ducks!.authors?.map((author) => author.name), [cast.owner.credentials.displayName]);
    assert.ok(!xml.includes(cast.owner.credentials.email) && !xml.includes(`<name>${cast.owner.credentials.username}<`), 'names only, never e-mail or username');
    assert.match(ducks!.summary?.value ?? '', /^Ducks Mallards quack loudly\./);
    assert.match(ducks!.content?.value ?? '', /<strong>quack<\/strong> loudly/);
    assert.match(xml, new RegExp(`<content type="html" xml:base="${base()}/${pond.slug}/${first.slug}">`), 'relative links resolve against the page');
    const stored = await Page.findByPk(first.id);
    assert.equal(ducks!.updated, stored!.updatedAt.toISOString());
    assert.equal(ducks!.published, stored!.createdAt.toISOString());
    assert.equal(parsed.updated, stored!.updatedAt.toISOString());

    const again = await feed(t, `${pond.slug}/feed.xml`);
    assert.deepEqual(again.parsed.entries?.map((entry) => entry.id), parsed.entries?.map((entry) => entry.id), 'ids are stable between fetches');
    await editPage(cast, second.id, 'Geese honk twice.', [cast.owner.user.id]);
    const changed = await feed(t, `${pond.slug}/feed.xml`);
    assert.equal(titles(changed.parsed)[0], 'Geese');
    assert.notEqual(changed.parsed.entries![0]!.id, parsed.entries![1]!.id, 'a new change is a new entry for readers');
  });

  test('the public sees public pages only; the owner\'s token adds the rest, in the owner\'s language, and never echoes the token', async (t) => {
    const pond = await feedPond(cast, { public: true });
    const open = await pageWith(cast, pond, 'Open page', 'For everyone.');
    const hidden = await pageWith(cast, pond, 'Hidden page', 'Members only.');
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });

    const publicFeed = await feed(t, `${pond.slug}/feed.xml`);
    assert.deepEqual(titles(publicFeed.parsed), [open.title]);
    assert.ok(!publicFeed.xml.includes('Members only'));

    const ownerFeed = await feed(t, `${pond.slug}/feed.xml`, cast.token);
    assert.deepEqual(titles(ownerFeed.parsed), [hidden.title, open.title]);
    assert.equal(ownerFeed.parsed.subtitle?.value, 'Zuletzt geänderte Seiten', 'the owner reads German');
    assert.equal(ownerFeed.parsed.links?.[0]?.href, `${base()}/api/v1/public/${pond.slug}/feed.xml`);
    assert.ok(!ownerFeed.xml.includes(cast.token.slice(8)), 'the secret appears nowhere in the feed');

    const signedIn = await fetchFeed(cast, `${pond.slug}/feed.xml`, { headers: { cookie: `dt_session=${cast.owner.client.sessionCookie}` } });
    assert.equal(signedIn.text, publicFeed.xml, 'a session cookie changes nothing: a feed without token is the public one');
    assert.equal(signedIn.headers.get('set-cookie'), null);
  });

  test('a pond with nothing public is 404 without a token, like a missing pond; only readable pages show for a page-scope grant', async (t) => {
    const closed = await feedPond(cast);
    await pageWith(cast, closed, 'Secret', 'Nobody else.');
    const missing = await fetchFeed(cast, 'no-such-pond/feed.xml');
    const answer = await fetchFeed(cast, `${closed.slug}/feed.xml`);
    assert.equal(answer.status, 404);
    assert.equal(answer.text, missing.text);
    assert.deepEqual(titles((await feed(t, `${closed.slug}/feed.xml`, cast.token)).parsed), ['Secret']);
    assert.equal((await fetchFeed(cast, `${closed.slug}/feed.xml`, { token: (await cast.outsider.client.post('/users/me/feed-token')).body.token })).status, 404, 'an outsider\'s token opens nothing here');

    const partly = await feedPond(cast);
    await pageWith(cast, partly, 'Internal', 'x');
    const shared = await pageWith(cast, partly, 'Shared', 'y');
    await seedGrant(partly.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: shared.id } });
    assert.deepEqual(titles((await feed(t, `${partly.slug}/feed.xml`)).parsed), ['Shared']);

    const empty = await feedPond(cast, { public: true });
    const emptyFeed = await feed(t, `${empty.slug}/feed.xml`);
    assert.deepEqual(emptyFeed.parsed.entries ?? [], [], 'a public pond without pages: a valid feed without entries');
  });

  test('trashed pages never appear; a trashed pond is 404 even with a token', async (t) => {
    const pond = await feedPond(cast, { public: true });
    const kept = await pageWith(cast, pond, 'Kept', 'a');
    const trashed = await pageWith(cast, pond, 'Trashed', 'b');
    assert.equal((await cast.owner.client.request('DELETE', `/pages/${trashed.id}`)).status, 200);
    assert.deepEqual(titles((await feed(t, `${pond.slug}/feed.xml`)).parsed), [kept.title]);
    assert.deepEqual(titles((await feed(t, `${pond.slug}/feed.xml`, cast.token)).parsed), [kept.title], 'not for its writers either');
    assert.equal((await fetchFeed(cast, `${pond.slug}/${trashed.slug}/feed.xml`, { token: cast.token })).status, 404);

    assert.equal((await cast.owner.client.post(`/ponds/${pond.id}/trash`)).status, 200);
    assert.equal((await fetchFeed(cast, `${pond.slug}/feed.xml`)).status, 404);
    assert.equal((await fetchFeed(cast, `${pond.slug}/feed.xml`, { token: cast.token })).status, 404);
    assert.equal((await fetchFeed(cast, `${pond.slug}/${kept.slug}/feed.xml`, { token: cast.token })).status, 404);
  });

  test('a page feed: its versions newest first, each with its own content and contributors', async (t) => {
    const pond = await feedPond(cast, { public: true });
    const page = await pageWith(cast, pond, 'Pond rules', 'Rule one.');
    const empty = await feed(t, `${pond.slug}/${page.slug}/feed.xml`);
    assert.deepEqual(empty.parsed.entries ?? [], [], 'no versions yet: a valid empty feed');

    await editPage(cast, page.id, 'Rule one. Rule two.', [cast.outsider.user.id, cast.owner.user.id]);
    const named = await versionOf(cast, page.id, 'First <release> & more');
    await editPage(cast, page.id, 'Rule one. Rule two. Rule three.', [cast.owner.user.id]);
    const unnamed = await versionOf(cast, page.id);

    const { parsed, xml } = await feed(t, `${pond.slug}/${page.slug}/feed.xml`);
    assert.equal(parsed.id, `urn:uuid:${page.id}`);
    assert.equal(parsed.title?.value, 'Pond rules');
    assert.equal(parsed.subtitle?.value, 'Version history');
    assert.deepEqual(parsed.links?.map((link) => [link.rel, link.href]), [
      ['self', `${base()}/api/v1/public/${pond.slug}/${page.slug}/feed.xml`],
      ['alternate', `${base()}/${pond.slug}/${page.slug}`],
    ]);
    assert.deepEqual(parsed.entries?.map((entry) => entry.id), [`urn:uuid:${unnamed}`, `urn:uuid:${named}`]);
    assert.deepEqual(titles(parsed), ['Version saved', 'First <release> & more']);
    assert.match(parsed.entries![0]!.content!.value!, /Rule three\./);
    assert.doesNotMatch(parsed.entries![1]!.content!.value!, /Rule three/, 'each version as it was');
    assert.equal(parsed.entries![1]!.summary?.value, 'Rule one. Rule two.');
    assert.deepEqual(parsed.entries![1]!.authors?.map((author) => author.name), [cast.outsider.credentials.displayName, cast.owner.credentials.displayName]);
    assert.ok(xml.includes('First &lt;release&gt; &amp; more'));
    assert.equal(parsed.entries![0]!.links?.[0]?.href, `${base()}/${pond.slug}/${page.slug}`);

    const german = await feed(t, `${pond.slug}/${page.slug}/feed.xml`, cast.token);
    assert.equal(german.parsed.entries![0]!.title?.value, 'Gespeicherte Version');
  });

  test('a page feed is 404 for an unreadable, missing or mistyped page, and opens with its owner\'s token', async (t) => {
    const pond = await feedPond(cast, { public: true });
    const hidden = await pageWith(cast, pond, 'Hidden', 'x');
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
    const missing = await fetchFeed(cast, `${pond.slug}/no-such-page/feed.xml`);
    assert.equal(missing.status, 404);
    const unreadable = await fetchFeed(cast, `${pond.slug}/${hidden.slug}/feed.xml`);
    assert.equal(unreadable.status, 404);
    assert.equal(unreadable.text, missing.text);
    assert.equal((await fetchFeed(cast, `other-pond/${hidden.slug}/feed.xml`)).status, 404);
    for (const odd of ['a.b', 'a_b', 'x'.repeat(300), 'caf%C3%A9', '%20']) {
      assert.equal((await fetchFeed(cast, `${odd}/feed.xml`, { token: cast.token })).status, 404, `pond slug ${odd}`);
      assert.equal((await fetchFeed(cast, `${pond.slug}/${odd}/feed.xml`, { token: cast.token })).status, 404, `page slug ${odd}`);
    }
    await feed(t, `${pond.slug}/${hidden.slug}/feed.xml`, cast.token);
    await feed(t, `${pond.slug.toUpperCase()}/${hidden.slug.toUpperCase()}/feed.xml`, cast.token);
  });

  test('hostile titles, names and bodies stay text and the XML stays well-formed and valid', async (t) => {
    const hostile = '<script>alert(1)</script> ]]> & "x" \u0001\u0008\u000B\u001F\uFFFF end';
    const pond = await feedPond(cast, { public: true });
    await Pond.update({ name: `Pond ${hostile}` }, { where: { id: pond.id } });
    const page = await pageWith(cast, pond, 'Plain', 'Raw <script>alert(2)</script> and <img src=x onerror=alert(3)> ]]> &amp;');
    await Page.update({ title: `Page ${hostile}` }, { where: { id: page.id } });
    await versionOf(cast, page.id, `Label ${hostile}`);
    const expected = (prefix: string) => `${prefix} <script>alert(1)</script> ]]> & "x"  end`;

    const feeds = [
      { path: `${pond.slug}/feed.xml`, feedTitle: expected('Pond'), entryTitle: expected('Page') },
      { path: `${pond.slug}/${page.slug}/feed.xml`, feedTitle: expected('Page'), entryTitle: expected('Label') },
    ];
    for (const { path, feedTitle, entryTitle } of feeds) {
      const { parsed, xml } = await feed(t, path);
      assert.ok(!/<script|<img/i.test(xml), `${path}: no markup of the page survives unescaped`);
      assert.ok(!xml.includes(']]>'), `${path}: no CDATA terminator`);
      const entry = parsed.entries![0]!;
      const html = entry.content?.value ?? '';
      assert.ok(!/<script|<img/i.test(html), `${path}: no element of the raw HTML in the content: ${html}`);
      assert.match(html, /&#x3C;script>alert\(2\)/, `${path}: raw HTML in Markdown shows as text`);
      assert.equal(parsed.title?.value, feedTitle);
      assert.equal(entry.title?.value, entryTitle);
    }
  });

  test('transclusions stay plain links and plugin blocks show their marker, in the pond feed and in a version', async (t) => {
    const pond = await feedPond(cast, { public: true });
    await pageWith(cast, pond, 'Target', 'Transcluded secret text.');
    const page = await pageWith(cast, pond, 'Host', 'Before.\n\n![[target]]\n\n```dt-plugin chart/bar\n{"values":[1,2]}\n```\n\nAfter.');
    await versionOf(cast, page.id, 'with placeholders');
    for (const path of [`${pond.slug}/feed.xml`, `${pond.slug}/${page.slug}/feed.xml`]) {
      const { parsed } = await feed(t, path);
      const html = parsed.entries!.find((entry) => /Before\./.test(entry.content?.value ?? ''))!.content!.value!;
      assert.match(html, /<a href="target"[^>]*class="dt-wikilink"[^>]*>target<\/a>/, `${path}: ${html}`);
      assert.match(html, /\[plugin content\]/);
      assert.doesNotMatch(html, /data-dt-transclusion|data-dt-plugin|Transcluded secret/, `${path}: no placeholder left, no other page pulled in`);
    }
  });

  test('only GET and HEAD reach a feed', async () => {
    const pond = await feedPond(cast, { public: true });
    const anonymous = new TestClient(cast.instance.baseUrl);
    assert.equal((await anonymous.post(`/public/${pond.slug}/feed.xml`)).status, 404);
  });

  // Last: it checks what every test above fetched.
  test('every feed the tests fetched is valid against RFC 4287\'s RELAX NG schema and its Schematron rules (jing)', async (t) => {
    if (schemaCheckUnavailable()) return t.skip(`schema check skipped: ${schemaCheckUnavailable()}`);
    assert.ok(schemaBatch.size >= 19, `${schemaBatch.size} feeds kept`);
    await schemaBatch.assertAllValid();
  });
});
