/**
 * The API process's in-memory copy of stored public documents, keyed by lowercased path,
 * least recently used first out once the byte budget is exceeded. The hot path builds each
 * entry's response headers once (publicHotPath.ts), so a hit costs a Map lookup and one
 * `writeHead`.
 *
 * Invalidation: `public_documents_changed` (from any process) and this process's own commits
 * drop entries by path or by pond (`pond:<id>`), `*` drops everything. A load that started
 * before an invalidation of its path (or of a pond, or of everything) is not cached, so a copy
 * read just before a change can never outlive it; loads of other paths are unaffected, so a
 * stream of changes elsewhere does not keep the cache empty.
 */
import type { StoredDocument } from './publicDocumentStore.ts';

export type Encoding = 'br' | 'gzip' | 'identity';

export interface CachedDocument {
  path: string;
  pondId: string | null;
  etag: string;
  lastModified: string;
  /** `br` and `gzip` are empty until first asked for (the hot path compresses them then). */
  body: Record<Encoding, Buffer>;
  markdown: Buffer | null;
  content: Buffer | null;
  size: number;
  /** The cache's own bookkeeping: its move counter when it last put this entry at the recent end. */
  movedAt: number;
  /**
   * One allocation holding every representation above (they are views of it), owned by this
   * entry alone, so the cache can free it the moment the entry leaves (see `release`).
   */
  memory: Buffer<ArrayBuffer>;
  /**
   * Set by the hot path when a response could not hand these bytes to the kernel at once: a
   * socket write may still read them, so they are left to the garbage collector.
   */
  pinned: boolean;
}

/** The entry object, its strings, and the prepared headers of one or two representations. */
const ENTRY_OVERHEAD_BYTES = 2_048;

/**
 * Copies a stored document's representations into one allocation of exactly their size.
 * The copy costs a memcpy per load; it makes `size` the real footprint (a Buffer from zlib or
 * the pool may hold a larger allocation than its length) and lets `release` free it at once.
 */
export function toCachedDocument(document: StoredDocument): CachedDocument {
  const markdownLength = document.markdown === null ? 0 : Buffer.byteLength(document.markdown, 'utf8');
  const contentLength = document.content === null ? 0 : Buffer.byteLength(document.content, 'utf8');
  const total = document.brotli.length + document.gzip.length + document.html.length + markdownLength + contentLength;
  const memory = Buffer.allocUnsafeSlow(total);
  let offset = 0;
  const place = (length: number, fill: (at: number) => void): Buffer => {
    fill(offset);
    const view = memory.subarray(offset, offset + length);
    offset += length;
    return view;
  };
  const copy = (source: Buffer) => place(source.length, (at) => source.copy(memory, at));
  const text = (value: string, length: number) => place(length, (at) => memory.write(value, at, length, 'utf8'));
  const body = { br: copy(document.brotli), gzip: copy(document.gzip), identity: copy(document.html) };
  const markdown = document.markdown === null ? null : text(document.markdown, markdownLength);
  const content = document.content === null ? null : text(document.content, contentLength);
  return {
    path: document.path,
    pondId: document.pondId,
    etag: document.etag,
    lastModified: document.lastModified.toUTCString(),
    body,
    markdown,
    content,
    // The bytes plus a rough allowance for the entry, its strings and the response headers the
    // hot path builds for it (about 1.2 KB per representation served, measured).
    size: total + ENTRY_OVERHEAD_BYTES,
    movedAt: 0,
    memory,
    pinned: false,
  };
}

/**
 * Frees an entry's bytes now instead of whenever the collector gets to them: detaching the
 * ArrayBuffer releases its memory. Without this, every entry the cache lets go (a cold pass
 * over an archive lets go of thousands) stays allocated until a major collection, which V8
 * schedules by the growth of external memory: measured, RSS rose by about twice the budget.
 */
function release(entry: CachedDocument): void {
  if (entry.pinned || entry.memory.buffer.detached) return;
  entry.memory.buffer.transfer(0);
}

export interface LoadTicket {
  path: string;
  broadGeneration: number;
  /** Set when the path is invalidated while the load is in flight. */
  stale: boolean;
  /** The bytes (ETag) a notification said the path now holds; a load of exactly those stays good. */
  announcedEtag?: string;
}

export class PublicDocumentCache {
  private readonly entries = new Map<string, CachedDocument>();
  private bytes = 0;
  /** Bumped by changes not named by path (`*`, `pond:<id>`): every load in flight is stale. */
  private broadGeneration = 0;
  private readonly loading = new Map<string, Set<LoadTicket>>();
  /** Counts insertions and moves to the recent end (see `get`). */
  private moves = 0;
  /** Entries let go of, freed together once the current turn of the event loop is over (see `retire`). */
  private retiring: CachedDocument[] = [];
  readonly budgetBytes: number;

  constructor(budgetBytes: number) {
    this.budgetBytes = budgetBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  get(path: string): CachedDocument | undefined {
    const entry = this.entries.get(path);
    // Most recently used last: re-insertion keeps Map order as the LRU order. At most
    // `moves - movedAt` entries were put after this one, so while that is under half the
    // entries it is in the recent half already and stays put: a hot page is not re-inserted
    // on every hit (two Map writes each), and the older half still leaves first.
    if (entry && this.moves - entry.movedAt > this.entries.size >> 1) {
      this.entries.delete(path);
      this.entries.set(path, entry);
      entry.movedAt = ++this.moves;
    }
    return entry;
  }

  /** A ticket to pass to `set` (or `abandon`): its entry is kept only if its path was not invalidated meanwhile. */
  startLoad(path: string): LoadTicket {
    const ticket: LoadTicket = { path, broadGeneration: this.broadGeneration, stale: false };
    let tickets = this.loading.get(path);
    if (!tickets) this.loading.set(path, (tickets = new Set()));
    tickets.add(ticket);
    return ticket;
  }

  /** The load found nothing to cache. */
  abandon(ticket: LoadTicket): void {
    const tickets = this.loading.get(ticket.path);
    tickets?.delete(ticket);
    if (tickets?.size === 0) this.loading.delete(ticket.path);
  }

  /**
   * Caches a loaded entry unless its path changed while it loaded. The loader still answers its
   * waiting requests with the entry either way; one that is not kept is freed after that.
   */
  set(entry: CachedDocument, ticket: LoadTicket): void {
    this.abandon(ticket);
    const superseded = ticket.announcedEtag !== undefined && ticket.announcedEtag !== entry.etag;
    if (ticket.stale || superseded || ticket.broadGeneration !== this.broadGeneration || entry.path !== ticket.path || entry.size > this.budgetBytes) {
      this.retire(entry);
      return;
    }
    this.remove(entry.path);
    this.entries.set(entry.path, entry);
    entry.movedAt = ++this.moves;
    this.bytes += entry.size;
    for (const path of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(path);
    }
  }

  /**
   * Counts bytes an entry gained after it was cached (a compressed variant made at its first
   * request, publicHotPath.ts) against the budget, evicting the least recently used if needed.
   * An entry no longer cached (evicted or superseded meanwhile) is not counted.
   */
  grow(entry: CachedDocument, bytes: number): void {
    if (this.entries.get(entry.path) !== entry) return;
    entry.size += bytes;
    this.bytes += bytes;
    for (const path of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(path);
    }
  }

  private remove(path: string): void {
    const entry = this.entries.get(path);
    if (!entry) return;
    this.entries.delete(path);
    this.bytes -= entry.size;
    this.retire(entry);
  }

  /**
   * Frees the entry's bytes on the next turn of the event loop, not now: a request that got the
   * entry (a hit, or a load it waited for) writes it within the current turn, and the hot path
   * marks it pinned when that write could not finish at once.
   */
  private retire(entry: CachedDocument): void {
    if (this.retiring.length === 0) {
      setImmediate(() => {
        const retiring = this.retiring;
        this.retiring = [];
        for (const retired of retiring) if (this.entries.get(retired.path) !== retired) release(retired);
      });
    }
    this.retiring.push(entry);
  }

  /** Applies one change: a path (optionally with the ETag it now holds), `pond:<id>`, or `*`. */
  invalidate(notification: string): void {
    // `<path> <etag>`: the path now holds those bytes (slugs and ETags never contain a space).
    const [change = notification, etag] = notification.split(' ');
    if (change === '*' || change.startsWith('pond:')) this.broadGeneration += 1;
    else {
      for (const ticket of this.loading.get(change) ?? []) {
        if (etag !== undefined && (ticket.announcedEtag === undefined || ticket.announcedEtag === etag)) ticket.announcedEtag = etag;
        else ticket.stale = true;
      }
      if (etag !== undefined && this.entries.get(change)?.etag === etag) return;
    }
    if (change === '*') {
      for (const path of [...this.entries.keys()]) this.remove(path);
      return;
    }
    if (change.startsWith('pond:')) {
      const pondId = change.slice('pond:'.length);
      for (const [path, entry] of this.entries) if (entry.pondId === pondId) this.remove(path);
      return;
    }
    this.remove(change);
  }
}
