/**
 * Writes of attachments: storing a received upload and deleting a file (hard delete, its
 * quota released with the row).
 *
 * Storing: one transaction per pond serialized by an advisory lock re-reads the pond's usage
 * and refuses past the storage quota, so concurrent uploads can never end above it (the
 * streaming check in uploadReceiver.ts only stops hopeless uploads early). Inside it, after
 * the row is written, the temporary file is renamed into place: a crash before the commit
 * leaves a stray file for the orphan sweep, never a row without bytes. On any failure the
 * temporary (or already renamed) bytes are removed.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import { storedFilePath, removeStoredFiles } from '../files/fileStore.ts';
import { findFile, pondStorageUsed, type FileRow } from '../files/fileViews.ts';
import { quotaExceeded, type ReceivedUpload } from '../files/uploadReceiver.ts';
import type { Logger } from '../logger.ts';

export interface StoreUploadInput {
  dataDir: string;
  pondId: string;
  pageId: string;
  uploaderId: string;
  upload: ReceivedUpload;
  /** The pond's storage quota (null: unlimited), resolved by the caller through the ladder. */
  storageLimit: number | null;
}

export async function storeUpload(sequelize: Sequelize, input: StoreUploadInput): Promise<FileRow> {
  const { upload } = input;
  let finalPath: string | null = null;
  try {
    const fileId = await sequelize.transaction(async (transaction) => {
      await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext('files:' || :pondId))`, { replacements: { pondId: input.pondId }, transaction });
      const { usedBytes } = await pondStorageUsed(sequelize, input.pondId, transaction);
      if (input.storageLimit !== null && usedBytes + upload.sizeBytes > input.storageLimit) throw quotaExceeded('storage_bytes', input.storageLimit);
      // The page may have been purged or trashed while the bytes arrived.
      const inserted = await sequelize.query<{ id: string }>(
        `INSERT INTO files (pond_id, upload_page_id, uploaded_by, name, extension, content_type, size_bytes, sha256)
         SELECT p.pond_id, p.id, :uploaderId, :name, :extension, :contentType, :sizeBytes, :sha256
           FROM pages p WHERE p.id = :pageId AND p.pond_id = :pondId AND p.trashed_at IS NULL
         RETURNING id`,
        {
          replacements: { pondId: input.pondId, pageId: input.pageId, uploaderId: input.uploaderId, name: upload.name, extension: upload.extension, contentType: upload.contentType, sizeBytes: upload.sizeBytes, sha256: upload.sha256 },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      const id = inserted[0]?.id;
      if (!id) throw notFound();
      finalPath = storedFilePath(input.dataDir, id);
      await mkdir(path.dirname(finalPath), { recursive: true });
      await rename(upload.tempPath, finalPath);
      return id;
    });
    return (await findFile(sequelize, fileId))!;
  } catch (error) {
    await rm(upload.tempPath, { force: true });
    if (finalPath) await rm(finalPath, { force: true });
    throw error;
  }
}

/** Deletes a file's row (releasing its quota), then its bytes after the commit. */
export async function deleteFile(sequelize: Sequelize, fileId: string, options: { dataDir: string; logger?: Logger }): Promise<void> {
  const deleted = await sequelize.query<{ id: string }>(`DELETE FROM files WHERE id = :fileId RETURNING id`, { replacements: { fileId }, type: QueryTypes.SELECT });
  if (deleted.length === 0) throw notFound();
  await removeStoredFiles(options.dataDir, [fileId], options.logger);
}
