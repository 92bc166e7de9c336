/**
 * Where attachment bytes live: `DATA_DIR/files/<first two hex digits>/<file id>`, so no
 * directory grows past a few thousand entries. The database row is the truth; bytes are
 * removed only after the transaction that deleted their rows committed, and a crash in
 * between leaves bytes for the orphan-file sweep, never a row without bytes.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import { isUuid } from '../policies/accessPolicy.ts';

export function storedFilePath(dataDir: string, fileId: string): string {
  if (!isUuid(fileId)) throw new Error(`not a file id: ${fileId}`);
  const id = fileId.toLowerCase();
  return path.join(dataDir, 'files', id.slice(0, 2), id);
}

/** Deletes the bytes of files whose rows are gone; a missing file is not an error. */
export async function removeStoredFiles(dataDir: string, fileIds: readonly string[], logger?: Logger): Promise<void> {
  for (const fileId of fileIds) {
    try {
      await rm(storedFilePath(dataDir, fileId), { force: true });
    } catch (error) {
      logger?.warn({ fileId, err: error }, 'could not remove stored file; the orphan sweep will retry');
    }
  }
}
