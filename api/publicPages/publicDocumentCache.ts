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
  body: Record<Encoding, Buffer>;
  markdown: Buffer | null;
  content: Buffer | null;
  size: number;
  /** The cache's own bookkeeping: its move counter when it last put this entry at the recent end. */
  movedAt: number;
}

/** The entry object, its strings, and the prepared headers of one or two representations. */
const ENTRY_OVERHEAD_BYTES = 2_048;

export function toCachedDocument(document: StoredDocument): CachedDocument {
  const markdown = document.markdown === null ? null : Buffer.from(document.markdown, 'utf8');
  const content = document.content === null || document.content === undefined ? null : Buffer.from(JSON.stringify(document.content), 'utf8');
  const body = { br: document.brotli, gzip: document.gzip, identity: document.html };
  return {
    path: document.path,
    pondId: document.pondId,
    etag: document.etag,
    lastModified: document.lastModified.toUTCString(),
    body,
    markdown,
    content,
    // Buffers plus a rough allowance for the entry, its strings and the response headers the
    // hot path builds for it (about 1.2 KB per representation served, measured).
    size: body.br.length + body.gzip.length + body.identity.length + (markdown?.length ?? 0) + (content?.length ?? 0) + ENTRY_OVERHEAD_BYTES,
    movedAt: 0,
  };
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

  set(entry: CachedDocument, ticket: LoadTicket): void {
    this.abandon(ticket);
    const superseded = ticket.announcedEtag !== undefined && ticket.announcedEtag !== entry.etag;
    if (ticket.stale || superseded || ticket.broadGeneration !== this.broadGeneration || entry.path !== ticket.path || entry.size > this.budgetBytes) return;
    this.remove(entry.path);
    this.entries.set(entry.path, entry);
    entry.movedAt = ++this.moves;
    this.bytes += entry.size;
    for (const [path, oldest] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(path);
      this.bytes -= oldest.size;
    }
  }

  private remove(path: string): void {
    const entry = this.entries.get(path);
    if (!entry) return;
    this.entries.delete(path);
    this.bytes -= entry.size;
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
      this.entries.clear();
      this.bytes = 0;
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
