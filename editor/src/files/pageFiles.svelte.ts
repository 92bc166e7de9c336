/**
 * A page's files (`GET /pages/:id/files`: what its text shows or links, and uploads not saved
 * into it yet), shared by the page screen's islands like the comments are
 * (pageComments.svelte.ts): the attachments panel lists them, the editor adds each file it
 * uploads. One instance per page id in the browser. Others' uploads and deletions show every
 * 30 s while the page is shown and when the reader comes back to the tab, once the list was read.
 */
import { callApi } from '../api/apiClient.ts';
import { CoalescedReads } from '../api/coalescedReads.ts';
import { startVisiblePolling } from '../api/visiblePolling.ts';
import type { FileView } from './fileViews.ts';

export class PageFiles {
  items = $state<FileView[] | null>(null);
  loading = $state(false);
  /** Why the list could not be read (an `ApiRequestError`); the panel says it in words. */
  failure = $state<unknown>(null);
  readonly pageId: string;
  readonly #reads = new CoalescedReads(() => this.#read());

  constructor(pageId: string) {
    this.pageId = pageId;
  }

  /** Reads the list; a call while a read is under way gets a fresh read after it (that read may predate a change). */
  load(): Promise<void> {
    return this.#reads.request();
  }

  async #read(): Promise<void> {
    this.loading = true;
    try {
      this.items = (await callApi<{ items: FileView[] }>('GET', `/pages/${this.pageId}/files`)).items;
      this.failure = null;
    } catch (error) {
      this.failure = error;
    } finally {
      this.loading = false;
    }
  }

  /** A file just uploaded: listed at once, then the list read again (a list not read yet will include it when it is). */
  added(file: FileView): void {
    if (this.items === null) return;
    this.items = [...this.items.filter((item) => item.id !== file.id), file];
    void this.load();
  }

  /** Deletes the file for good. Throws the API's refusal. */
  async remove(fileId: string): Promise<void> {
    await callApi('DELETE', `/files/${fileId}`);
    this.items = this.items?.filter((item) => item.id !== fileId) ?? null;
  }
}

const byPage = new Map<string, PageFiles>();
const POLL_MS = 30_000;

export function pageFilesFor(pageId: string): PageFiles {
  if (typeof window === 'undefined') return new PageFiles(pageId);
  let files = byPage.get(pageId);
  if (!files) {
    const created = new PageFiles(pageId);
    // Only a list already read is read again: the first read is the panel's.
    startVisiblePolling(() => (created.items === null ? undefined : created.load()), { intervalMs: POLL_MS, minGapMs: 5_000 });
    byPage.set(pageId, created);
    files = created;
  }
  return files;
}
