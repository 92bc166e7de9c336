/**
 * Attachments as the API shows them: one row shape (`FILE_COLUMNS`, the uploader joined) and
 * its view. `url` is where the bytes are served (`GET /api/v1/media/:fileId`), the same path
 * the content pipeline writes into documents.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { MEDIA_PATH_PREFIX } from '../../content-pipeline/index.ts';

export interface FileRow {
  id: string;
  pond_id: string;
  page_id: string | null;
  upload_page_id: string | null;
  uploaded_by: string | null;
  uploader_username: string | null;
  uploader_display_name: string | null;
  name: string;
  extension: string;
  content_type: string;
  size_bytes: string | number;
  sha256: string | null;
  embedded: boolean;
  created_at: Date;
}

export const FILE_COLUMNS = `
  f.id, f.pond_id, f.page_id, f.upload_page_id, f.uploaded_by, u.username AS uploader_username,
  u.display_name AS uploader_display_name, f.name, f.extension, f.content_type, f.size_bytes, f.sha256,
  f.embedded, f.created_at`;

export const FILE_FROM = `files f LEFT JOIN users u ON u.id = f.uploaded_by`;

export interface FileView {
  id: string;
  pondId: string;
  /** The page whose document claimed the file; null until its first save that references it. */
  pageId: string | null;
  /** The page the file was uploaded to (null once that page is purged). */
  uploadPageId: string | null;
  name: string;
  extension: string;
  contentType: string;
  sizeBytes: number;
  sha256: string | null;
  claimed: boolean;
  /** Whether the claiming page's document still references it. */
  embedded: boolean;
  uploadedBy: { id: string; username: string; displayName: string } | null;
  createdAt: string;
  url: string;
}

export function presentFile(row: FileRow): FileView {
  return {
    id: row.id,
    pondId: row.pond_id,
    pageId: row.page_id,
    uploadPageId: row.upload_page_id,
    name: row.name,
    extension: row.extension,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    claimed: row.page_id !== null,
    embedded: row.embedded,
    uploadedBy: row.uploaded_by && row.uploader_username ? { id: row.uploaded_by, username: row.uploader_username, displayName: row.uploader_display_name ?? row.uploader_username } : null,
    createdAt: row.created_at.toISOString(),
    url: `${MEDIA_PATH_PREFIX}${row.id}`,
  };
}

export async function findFile(sequelize: Sequelize, fileId: string, transaction?: Transaction): Promise<FileRow | null> {
  const rows = await sequelize.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM ${FILE_FROM} WHERE f.id = :fileId`, { replacements: { fileId }, type: QueryTypes.SELECT, transaction });
  return rows[0] ?? null;
}

/** A page's attachments: those its document claimed and uploads to it not yet claimed, oldest first. */
export async function filesOfPage(sequelize: Sequelize, pageId: string): Promise<FileView[]> {
  const rows = await sequelize.query<FileRow>(
    `SELECT ${FILE_COLUMNS} FROM ${FILE_FROM}
      WHERE f.page_id = :pageId OR (f.page_id IS NULL AND f.upload_page_id = :pageId)
      ORDER BY f.created_at, f.id`,
    { replacements: { pageId }, type: QueryTypes.SELECT },
  );
  return rows.map(presentFile);
}

/**
 * A file as a visitor of the pond sees it (docs/access-model.md, "Visitors and members"): the
 * uploader by display name (no username), and not the page it was uploaded to (which may be
 * one they cannot read).
 */
export type FileVisitorView = Omit<FileView, 'uploadPageId' | 'uploadedBy'> & { uploadedBy: { id: string; displayName: string } | null };

export function presentFileToVisitor(row: FileRow): FileVisitorView {
  const { uploadPageId: _uploadPageId, uploadedBy, ...view } = presentFile(row);
  return { ...view, uploadedBy: uploadedBy ? { id: uploadedBy.id, displayName: uploadedBy.displayName } : null };
}

/** A page's attachments as its visitors see them: only those its document claimed (uploads not yet saved are work in progress), oldest first. */
export async function claimedFilesOfPage(sequelize: Sequelize, pageId: string): Promise<FileVisitorView[]> {
  const rows = await sequelize.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM ${FILE_FROM} WHERE f.page_id = :pageId ORDER BY f.created_at, f.id`, {
    replacements: { pageId },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentFileToVisitor);
}

/** What a pond's files take: the sum the storage quota is checked against. */
export async function pondStorageUsed(sequelize: Sequelize, pondId: string, transaction?: Transaction): Promise<{ usedBytes: number; fileCount: number }> {
  const [row] = await sequelize.query<{ used: string; count: string }>(`SELECT coalesce(sum(size_bytes), 0) AS used, count(*) AS count FROM files WHERE pond_id = :pondId`, {
    replacements: { pondId },
    type: QueryTypes.SELECT,
    transaction,
  });
  return { usedBytes: Number(row!.used), fileCount: Number(row!.count) };
}
