/**
 * A pond's files for its administrators (`GET /ponds/:id/files`): every file, newest first,
 * with its page (claiming page, else the page it was uploaded to), uploader and size, an
 * orphan flag (unclaimed, or claimed but no longer in its page's document: the nightly sweep
 * deletes the first kind after 24 h and keeps the second, so an admin decides), and the
 * pond's usage against its storage quota. `orphansOnly` narrows the list to orphans in the
 * query, so every page of it (and its cursor) holds only them; the usage stays the pond's.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { timelineCursor, type TimelineCursor } from '../http/cursorCodec.ts';
import { resolveQuota } from '../quotas/quotaLadder.ts';
import { FILE_COLUMNS, FILE_FROM, pondStorageUsed, presentFile, type FileRow, type FileView } from './fileViews.ts';

/** Unclaimed, or claimed but no longer in its page's document: the flag and the filter read this one rule. */
const IS_ORPHAN = '(f.page_id IS NULL OR NOT f.embedded)';

export const DEFAULT_POND_FILE_LIMIT = 50;
export const MAX_POND_FILE_LIMIT = 200;

export interface PondFileView extends FileView {
  page: { id: string; slug: string; title: string; trashed: boolean } | null;
  orphan: boolean;
}

export interface PondFileList {
  items: PondFileView[];
  nextCursor: string | null;
  usage: { usedBytes: number; fileCount: number; limitBytes: number | null; limitSource: 'pond' | 'user' | 'instance' };
}

interface PondFileRow extends FileRow {
  created_utc: string;
  is_orphan: boolean;
  shown_page_id: string | null;
  page_slug: string | null;
  page_title: string | null;
  page_trashed: boolean | null;
}

export async function listPondFiles(sequelize: Sequelize, pond: { id: string; ownerId: string | null }, query: { limit: number; cursor: TimelineCursor | null; orphansOnly?: boolean }): Promise<PondFileList> {
  const after = query.cursor ? `AND (f.created_at, f.id) < (CAST(:afterCreated AS timestamp) AT TIME ZONE 'UTC', CAST(:afterId AS uuid))` : '';
  const orphans = query.orphansOnly ? `AND ${IS_ORPHAN}` : '';
  const rows = await sequelize.query<PondFileRow>(
    `SELECT ${FILE_COLUMNS}, (f.created_at AT TIME ZONE 'UTC')::text AS created_utc, ${IS_ORPHAN} AS is_orphan,
            p.id AS shown_page_id, p.slug AS page_slug, p.title AS page_title, p.trashed_at IS NOT NULL AS page_trashed
       FROM ${FILE_FROM}
       LEFT JOIN pages p ON p.id = coalesce(f.page_id, f.upload_page_id)
      WHERE f.pond_id = :pondId ${after} ${orphans}
      ORDER BY f.created_at DESC, f.id DESC
      LIMIT :limit`,
    { replacements: { pondId: pond.id, afterCreated: query.cursor?.createdKey ?? null, afterId: query.cursor?.id ?? null, limit: query.limit + 1 }, type: QueryTypes.SELECT },
  );
  const more = rows.length > query.limit;
  const shown = rows.slice(0, query.limit);
  const last = shown.at(-1);
  const [usage, quota] = await Promise.all([pondStorageUsed(sequelize, pond.id), resolveQuota('storage_bytes', { pondId: pond.id, userId: pond.ownerId })]);
  return {
    items: shown.map((row) => ({
      ...presentFile(row),
      page: row.shown_page_id ? { id: row.shown_page_id, slug: row.page_slug!, title: row.page_title!, trashed: row.page_trashed === true } : null,
      orphan: row.is_orphan,
    })),
    nextCursor: more && last ? timelineCursor.encode({ createdKey: last.created_utc, id: last.id }) : null,
    usage: { ...usage, limitBytes: quota.limit, limitSource: quota.source },
  };
}
