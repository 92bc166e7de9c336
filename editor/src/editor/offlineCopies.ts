/**
 * The browser's offline copies of pages: one IndexedDB database per page the editor opened
 * (`dt-page-<page id>`, written by y-indexeddb in collabSession.ts). Signing out deletes them
 * all, so the next person at this browser finds no page text left behind. Kept apart from the
 * editor's code so the user menu can clear them without loading the editor.
 */
const OFFLINE_COPY_PREFIX = 'dt-page-';

/** An editor open on this page stops writing its copy when this event is dispatched on `window`. */
export const CLOSE_OFFLINE_COPIES_EVENT = 'dt:close-offline-copies';

/** Deleting waits at most this long; a copy still held open elsewhere goes when that closes. */
const DELETE_PATIENCE_MS = 3_000;

export function offlineCopyName(pageId: string): string {
  return `${OFFLINE_COPY_PREFIX}${pageId}`;
}

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error ?? new Error(`could not delete ${name}`));
  });
}

/**
 * Deletes every offline page copy of this origin. Never throws and never waits long: the
 * caller signs out whatever happens here. Browsers without `indexedDB.databases()` keep them.
 */
export async function clearOfflineCopies(): Promise<void> {
  try {
    if (typeof indexedDB === 'undefined' || typeof indexedDB.databases !== 'function') return;
    window.dispatchEvent(new Event(CLOSE_OFFLINE_COPIES_EVENT));
    const names = (await indexedDB.databases()).map((database) => database.name).filter((name): name is string => !!name?.startsWith(OFFLINE_COPY_PREFIX));
    let patience: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled(names.map(deleteDatabase)), new Promise((resolve) => (patience = setTimeout(resolve, DELETE_PATIENCE_MS)))]);
    clearTimeout(patience);
  } catch {
    // Not deleted: sign-out goes on regardless.
  }
}
