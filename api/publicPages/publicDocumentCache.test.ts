/**
 * The in-memory copy of public documents: a load is dropped only when its own path (or its
 * pond, or everything) changed while it was in flight, unless the change announced exactly
 * the bytes it loaded; least recently used entries leave first once over the byte budget.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PublicDocumentCache, toCachedDocument, type CachedDocument } from './publicDocumentCache.ts';

function entry(path: string, etag = '"a"', size = 100, pondId: string | null = 'p1'): CachedDocument {
  const memory = Buffer.allocUnsafeSlow(16);
  const body = memory.subarray(0, 16);
  return { path, pondId, etag, lastModified: new Date(0).toUTCString(), body: { br: body, gzip: body, identity: body }, markdown: null, content: null, size, movedAt: 0, memory, pinned: false };
}

test('a change to another path does not drop a load in flight; a change to its own path does', () => {
  const cache = new PublicDocumentCache(10_000);
  const mine = cache.startLoad('/pond/a');
  const other = cache.startLoad('/pond/b');
  cache.invalidate('/pond/b');
  cache.set(entry('/pond/a'), mine);
  cache.set(entry('/pond/b'), other);
  assert.ok(cache.get('/pond/a'));
  assert.equal(cache.get('/pond/b'), undefined);
});

test('a change announcing exactly the loaded bytes keeps the load; other bytes drop it', () => {
  const cache = new PublicDocumentCache(10_000);
  const same = cache.startLoad('/pond/a');
  cache.invalidate('/pond/a "new"');
  cache.set(entry('/pond/a', '"new"'), same);
  assert.equal(cache.get('/pond/a')?.etag, '"new"');
  const older = cache.startLoad('/pond/b');
  cache.invalidate('/pond/b "new"');
  cache.set(entry('/pond/b', '"old"'), older);
  assert.equal(cache.get('/pond/b'), undefined, 'bytes read before the announced change are not kept');
  cache.invalidate('/pond/a "newer"');
  assert.equal(cache.get('/pond/a'), undefined, 'a cached entry with other bytes is dropped');
});

test('a pond change or a full reset drops every load in flight and the pond\'s entries', () => {
  const cache = new PublicDocumentCache(10_000);
  cache.set(entry('/pond/kept', '"a"', 100, 'p2'), cache.startLoad('/pond/kept'));
  cache.set(entry('/pond/gone'), cache.startLoad('/pond/gone'));
  const inFlight = cache.startLoad('/pond/c');
  cache.invalidate('pond:p1');
  cache.set(entry('/pond/c'), inFlight);
  assert.equal(cache.get('/pond/c'), undefined);
  assert.equal(cache.get('/pond/gone'), undefined);
  assert.ok(cache.get('/pond/kept'));
  cache.invalidate('*');
  assert.equal(cache.size, 0);
});

test('the byte budget evicts the least recently used entries', () => {
  const cache = new PublicDocumentCache(300);
  for (const name of ['a', 'b', 'c']) cache.set(entry(`/p/${name}`), cache.startLoad(`/p/${name}`));
  cache.get('/p/a');
  cache.set(entry('/p/d'), cache.startLoad('/p/d'));
  assert.ok(cache.usedBytes <= 300);
  assert.equal(cache.size, 3);
  assert.equal(cache.get('/p/b'), undefined, 'the least recently used entry left');
  assert.ok(cache.get('/p/a'), 'the entry read last stayed');
});

test('an entry holds its representations in one allocation of exactly their size', () => {
  const html = Buffer.from('<p>Grüße</p>');
  const cached = toCachedDocument({
    path: '/p/a', kind: 'page', pondId: 'p1', pageId: 'x', html, gzip: Buffer.from([1, 2, 3]), brotli: Buffer.from([4, 5]), etag: '"e"',
    markdown: 'Grüße', content: '{"title":"Ä"}', lastModified: new Date(0),
  });
  assert.deepEqual([...cached.body.br], [4, 5]);
  assert.deepEqual([...cached.body.gzip], [1, 2, 3]);
  assert.equal(cached.body.identity.toString(), '<p>Grüße</p>');
  assert.equal(cached.markdown?.toString(), 'Grüße');
  assert.equal(cached.content?.toString(), '{"title":"Ä"}');
  assert.equal(cached.memory.buffer.byteLength, 2 + 3 + html.length + Buffer.byteLength('Grüße') + Buffer.byteLength('{"title":"Ä"}'));
  assert.equal(cached.size, cached.memory.buffer.byteLength + 2_048);
});

test('entries the cache lets go of are freed after the current turn, unless a response still holds them', async () => {
  const cache = new PublicDocumentCache(300);
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => entry(`/p/${name}`));
  cache.set(a!, cache.startLoad('/p/a'));
  cache.set(b!, cache.startLoad('/p/b'));
  b!.pinned = true;
  cache.set(c!, cache.startLoad('/p/c'));
  cache.set(d!, cache.startLoad('/p/d'));
  cache.invalidate('/p/b');
  const stale = cache.startLoad('/p/e');
  cache.invalidate('/p/e');
  const notKept = entry('/p/e');
  cache.set(notKept, stale);
  assert.equal(a!.body.identity.length, 16, 'the requests of this turn can still write an entry let go of');
  await nextTurn();
  assert.ok(a!.memory.buffer.detached, 'evicted: freed');
  assert.ok(notKept.memory.buffer.detached, 'a load the cache did not keep: freed once its waiters were answered');
  assert.ok(!b!.memory.buffer.detached, 'pinned by a write still in progress: left to the collector');
  assert.ok(!c!.memory.buffer.detached && !d!.memory.buffer.detached, 'entries still cached keep their bytes');
  cache.invalidate('*');
  await nextTurn();
  assert.ok(c!.memory.buffer.detached && d!.memory.buffer.detached, 'a full reset frees every entry');
});
