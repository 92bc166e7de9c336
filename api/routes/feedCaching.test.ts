/**
 * Feeds over HTTP caching: the headers of public and token feeds, a strong ETag of the bytes,
 * Last-Modified of the newest entry, 304 for If-None-Match and If-Modified-Since (the former
 * deciding when both are sent), HEAD, and new validators after a change.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { Page } from '../models/index.ts';
import { feedPond, fetchFeed, pageWith, useFeedCast, versionOf } from '../testing/feedFixtures.ts';

describe('feed caching', () => {
  const cast = useFeedCast();

  async function publicPondWithPage() {
    const pond = await feedPond(cast, { public: true });
    const page = await pageWith(cast, pond, 'Lilies', 'Water lilies.');
    return { pond, page, path: `${pond.slug}/feed.xml` };
  }

  test('a public feed: Atom type, a strong ETag of the bytes, Last-Modified, cacheable for a minute, no Vary', async () => {
    const { page, path } = await publicPondWithPage();
    const answer = await fetchFeed(cast, path);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
    assert.equal(answer.headers.get('etag'), `"${createHash('sha256').update(answer.text, 'utf8').digest('base64url')}"`);
    const stored = await Page.findByPk(page.id);
    assert.equal(answer.headers.get('last-modified'), stored!.updatedAt.toUTCString());
    assert.equal(answer.headers.get('cache-control'), 'public, max-age=60');
    assert.equal(answer.headers.get('vary'), null, 'the bytes depend on the URL only');
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(answer.headers.get('set-cookie'), null);
    assert.equal(answer.headers.get('content-length'), String(Buffer.byteLength(answer.text)));
  });

  test('If-None-Match: 304 with the validators and no body for a matching tag (also weak, in a list, or *), 200 otherwise', async () => {
    const { path } = await publicPondWithPage();
    const first = await fetchFeed(cast, path);
    const etag = first.headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const answer = await fetchFeed(cast, path, { headers: { 'if-none-match': header } });
      assert.equal(answer.status, 304, header);
      assert.equal(answer.text, '');
      assert.equal(answer.headers.get('etag'), etag);
      assert.equal(answer.headers.get('cache-control'), 'public, max-age=60');
      assert.equal(answer.headers.get('last-modified'), first.headers.get('last-modified'));
    }
    const other = await fetchFeed(cast, path, { headers: { 'if-none-match': '"something-else"' } });
    assert.equal(other.status, 200);
    assert.equal(other.text, first.text);
  });

  test('If-Modified-Since: 304 at or after Last-Modified, 200 before it; a mismatching If-None-Match wins over it', async () => {
    const { path } = await publicPondWithPage();
    const first = await fetchFeed(cast, path);
    const lastModified = first.headers.get('last-modified')!;
    assert.equal((await fetchFeed(cast, path, { headers: { 'if-modified-since': lastModified } })).status, 304);
    const later = new Date(Date.parse(lastModified) + 60_000).toUTCString();
    assert.equal((await fetchFeed(cast, path, { headers: { 'if-modified-since': later } })).status, 304);
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
    assert.equal((await fetchFeed(cast, path, { headers: { 'if-modified-since': earlier } })).status, 200);
    assert.equal((await fetchFeed(cast, path, { headers: { 'if-modified-since': 'not a date' } })).status, 200);
    const both = await fetchFeed(cast, path, { headers: { 'if-modified-since': lastModified, 'if-none-match': '"stale"' } });
    assert.equal(both.status, 200, 'If-None-Match decides alone when present');
  });

  test('a change gives new bytes, a new ETag and a newer Last-Modified; the old validators get 200', async () => {
    const { pond, path } = await publicPondWithPage();
    const first = await fetchFeed(cast, path);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await pageWith(cast, pond, 'Reeds', 'Reeds sway.');
    const changed = await fetchFeed(cast, path, { headers: { 'if-none-match': first.headers.get('etag')! } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), first.headers.get('etag'));
    assert.ok(Date.parse(changed.headers.get('last-modified')!) > Date.parse(first.headers.get('last-modified')!));
    const sinceOld = await fetchFeed(cast, path, { headers: { 'if-modified-since': first.headers.get('last-modified')! } });
    assert.equal(sinceOld.status, 200);
  });

  test('HEAD: the headers of GET without a body; with a matching ETag 304', async () => {
    const { pond, page } = await publicPondWithPage();
    await versionOf(cast, page.id, 'v1');
    for (const path of [`${pond.slug}/feed.xml`, `${pond.slug}/${page.slug}/feed.xml`]) {
      const get = await fetchFeed(cast, path);
      const head = await fetchFeed(cast, path, { method: 'HEAD' });
      assert.equal(head.status, 200, path);
      assert.equal(head.text, '');
      for (const name of ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control']) {
        assert.equal(head.headers.get(name), get.headers.get(name), `${path}: ${name}`);
      }
      assert.equal((await fetchFeed(cast, path, { method: 'HEAD', headers: { 'if-none-match': get.headers.get('etag')! } })).status, 304);
    }
    assert.equal((await fetchFeed(cast, `${pond.slug}/no-such-page/feed.xml`, { method: 'HEAD' })).status, 404);
  });

  test('a token feed: never stored by any cache, no Referer, not indexed; its 404 alike; revalidation still works', async () => {
    const { pond, page } = await publicPondWithPage();
    for (const path of [`${pond.slug}/feed.xml`, `${pond.slug}/${page.slug}/feed.xml`]) {
      const answer = await fetchFeed(cast, path, { token: cast.token });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers.get('cache-control'), 'private, no-store');
      assert.equal(answer.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(answer.headers.get('x-robots-tag'), 'noindex, nofollow');
      const again = await fetchFeed(cast, path, { token: cast.token, headers: { 'if-none-match': answer.headers.get('etag')! } });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get('cache-control'), 'private, no-store');
    }
    const refused = await fetchFeed(cast, `${pond.slug}/feed.xml`, { token: 'dt_feed_wrong' });
    assert.equal(refused.status, 404);
    assert.equal(refused.headers.get('cache-control'), 'private, no-store');
    assert.equal(refused.headers.get('referrer-policy'), 'no-referrer');
    const publicOne = await fetchFeed(cast, `${pond.slug}/feed.xml`);
    assert.equal(publicOne.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', 'public feeds keep the site policy');
  });
});
