/**
 * The API process's in-memory copy of stored public documents, keyed by lowercased path,
 * least recently used first out once the byte budget is exceeded. Entries carry their
 * response headers ready to write, so a hit costs a Map lookup and one `writeHead`.
 *
 * Invalidation: `public_documents_changed` (from any process) and this process's own commits
 * drop entries by path or by pond (`pond:<id>`), `*` drops everything. A load that started
 * before an invalidation is not cached (generation counter), so a copy read just before a
 * change can never outlive it.
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
}

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
    // Buffers plus a rough allowance for the entry and its strings.
    size: body.br.length + body.gzip.length + body.identity.length + (markdown?.length ?? 0) + (content?.length ?? 0) + 512,
  };
}

export class PublicDocumentCache {
  private readonly entries = new Map<string, CachedDocument>();
  private bytes = 0;
  private generation = 0;
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
    if (entry) {
      // Most recently used last: re-insertion keeps Map order as the LRU order.
      this.entries.delete(path);
      this.entries.set(path, entry);
    }
    return entry;
  }

  /** A token to pass to `set`: the entry is kept only if nothing was invalidated meanwhile. */
  startLoad(): number {
    return this.generation;
  }

  set(entry: CachedDocument, loadToken: number): void {
    if (loadToken !== this.generation || entry.size > this.budgetBytes) return;
    this.remove(entry.path);
    this.entries.set(entry.path, entry);
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

  /** Applies one change: a path, `pond:<id>`, or `*`. */
  invalidate(change: string): void {
    this.generation += 1;
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
