/**
 * The short feed URLs (`/<pond>/feed.xml`, `/<pond>/<page>/feed.xml`) against the spec's
 * `/api/v1/public/…/feed.xml`: the same status, headers and bytes for 200, 304 (ETag and
 * If-Modified-Since), HEAD, token feeds and every 404 (unknown pond, private pond, unknown page,
 * private page, bad token); the alias answer is valid Atom (jing) and keeps the canonical self link.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedGrant } from '../testing/accessFixtures.ts';
import { feedPond, pageWith, useFeedCast, versionOf, type FeedCast } from '../testing/feedFixtures.ts';
import { assertValidAtomSchema, parseAtom, schemaCheckUnavailable } from '../testing/atomChecks.ts';
import { canonicalFeedPath } from './feedAliases.ts';

/** Headers that differ between any two answers (the clock, the connection). */
const PER_REQUEST = new Set(['date', 'connection', 'keep-alive', 'x-request-id']);

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function raw(cast: FeedCast, path: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const response = await fetch(new URL(path, cast.instance.baseUrl), { method: init.method ?? 'GET', headers: init.headers ?? {} });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_REQUEST.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
}

/** Asks both URLs the same and asserts the answers are identical; the alias answer. */
async function assertSameAnswer(cast: FeedCast, alias: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const [queryless, query] = alias.split('?');
  const canonical = `/api/v1/public${queryless}${query === undefined ? '' : `?${query}`}`;
  const spec = await raw(cast, canonical, init);
  const short = await raw(cast, alias, init);
  assert.equal(short.status, spec.status, `${alias}: status`);
  assert.deepEqual(short.headers, spec.headers, `${alias}: headers`);
  assert.ok(short.body.equals(spec.body), `${alias}: body bytes`);
  return short;
}

describe('feed aliases', () => {
  const cast = useFeedCast();

  test('the alias path maps to the spec route; reserved first segments and other shapes are not feeds', () => {
    assert.equal(canonicalFeedPath('/teich/feed.xml'), '/public/teich/feed.xml');
    assert.equal(canonicalFeedPath('/teich/seerosen/feed.xml'), '/public/teich/seerosen/feed.xml');
    for (const path of ['/feed.xml', '/a/b/c/feed.xml', '/api/feed.xml', '/api/v1/feed.xml', '/legal/imprint/feed.xml', '/teich/feed.xml/', '/teich/feed.xmls', '/teich//feed.xml']) {
      assert.equal(canonicalFeedPath(path), null, path);
    }
  });

  test('a public pond and page feed: 200 with the same bytes and headers, the canonical self link, valid Atom', async (t) => {
    const pond = await feedPond(cast, { public: true });
    const page = await pageWith(cast, pond, 'Seerosen', 'Seerosen blühen.');
    await versionOf(cast, page.id, 'v1');
    for (const alias of [`/${pond.slug}/feed.xml`, `/${pond.slug}/${page.slug}/feed.xml`]) {
      const answer = await assertSameAnswer(cast, alias);
      assert.equal(answer.status, 200, alias);
      assert.equal(answer.headers['content-type'], 'application/atom+xml; charset=utf-8');
      assert.equal(answer.headers['cache-control'], 'public, max-age=60');
      assert.ok(answer.headers['etag']);
      const xml = answer.body.toString('utf8');
      const feed = parseAtom(xml);
      const self = feed.links?.find((link) => link.rel === 'self');
      assert.equal(self?.href, `${cast.instance.services.config.baseUrl}/api/v1/public${alias}`, 'rel=self stays the canonical URL');
      const unavailable = schemaCheckUnavailable();
      if (unavailable) t.diagnostic(`schema check skipped: ${unavailable}`);
      else await assertValidAtomSchema(xml, alias);
    }
  });

  test('conditional requests and HEAD: the same 304s and headers', async () => {
    const pond = await feedPond(cast, { public: true });
    const page = await pageWith(cast, pond, 'Schilf', 'Schilf wiegt sich.');
    for (const alias of [`/${pond.slug}/feed.xml`, `/${pond.slug}/${page.slug}/feed.xml`]) {
      const first = await raw(cast, alias);
      const etag = first.headers['etag']!;
      const lastModified = first.headers['last-modified']!;
      assert.equal((await assertSameAnswer(cast, alias, { headers: { 'if-none-match': etag } })).status, 304);
      assert.equal((await assertSameAnswer(cast, alias, { headers: { 'if-none-match': `W/${etag}` } })).status, 304);
      assert.equal((await assertSameAnswer(cast, alias, { headers: { 'if-modified-since': lastModified } })).status, 304);
      assert.equal((await assertSameAnswer(cast, alias, { headers: { 'if-none-match': '"stale"' } })).status, 200);
      assert.equal((await assertSameAnswer(cast, alias, { method: 'HEAD' })).status, 200);
      assert.equal((await assertSameAnswer(cast, alias, { method: 'HEAD', headers: { 'if-none-match': etag } })).status, 304);
    }
  });

  test('token feeds: the same private answer; a bad token the same 404', async () => {
    const pond = await feedPond(cast);
    const page = await pageWith(cast, pond, 'Intern', 'Nur für Mitglieder.');
    const token = encodeURIComponent(cast.token);
    for (const alias of [`/${pond.slug}/feed.xml?token=${token}`, `/${pond.slug}/${page.slug}/feed.xml?token=${token}`]) {
      const answer = await assertSameAnswer(cast, alias);
      assert.equal(answer.status, 200, alias);
      assert.equal(answer.headers['cache-control'], 'private, no-store');
    }
    const refused = await assertSameAnswer(cast, `/${pond.slug}/feed.xml?token=dt_feed_wrong`);
    assert.equal(refused.status, 404);
  });

  test('404 alike: unknown pond, private pond, unknown page, private page in a public pond, with or without a session', async () => {
    const privatePond = await feedPond(cast);
    const privatePage = await pageWith(cast, privatePond, 'Geheim', 'Geheim.');
    const mixed = await feedPond(cast);
    const open = await pageWith(cast, mixed, 'Offen', 'Offen.');
    const closed = await pageWith(cast, mixed, 'Zu', 'Zu.');
    await seedGrant(mixed.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: open.id } });
    assert.equal((await assertSameAnswer(cast, `/${mixed.slug}/${open.slug}/feed.xml`)).status, 200);
    const cookie = `dt_session=${cast.owner.client.sessionCookie}`;
    for (const alias of ['/no-such-pond/feed.xml', '/no-such-pond/page/feed.xml', `/${privatePond.slug}/feed.xml`, `/${privatePond.slug}/${privatePage.slug}/feed.xml`, `/${mixed.slug}/no-such-page/feed.xml`, `/${mixed.slug}/${closed.slug}/feed.xml`]) {
      const answer = await assertSameAnswer(cast, alias);
      assert.equal(answer.status, 404, alias);
      assert.equal(JSON.parse(answer.body.toString('utf8')).error.code, 'not_found');
      assert.equal((await assertSameAnswer(cast, alias, { headers: { cookie } })).status, 404, `${alias} with a session`);
    }
  });
});
