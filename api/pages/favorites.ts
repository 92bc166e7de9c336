/**
 * Favorites: personal page stars. Adding and removing are idempotent. A favorite outlives
 * the page's trash (it is listed again once the page is restored) and cascades away with the
 * page row at purge. The list shows only live pages the caller may still read: access is
 * judged in memory with the pond's resolved access, never one query per page.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Page } from '../models/index.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { presentPage, type PageView } from '../presenters/pagePresenter.ts';
import { timelineCursor, type TimelineCursor } from '../http/cursorCodec.ts';
import { collectReadable, liveReadability } from './readableBatches.ts';

export const DEFAULT_FAVORITE_LIST_LIMIT = 100;
export const MAX_FAVORITE_LIST_LIMIT = 500;
// Later batches grow when many favorites have become unreadable, up to this many rows per query.
const MAX_BATCH = 2_000;

export interface FavoriteView extends PageView {
  favoritedAt: string;
}

export interface FavoriteListing {
  items: FavoriteView[];
  nextCursor: string | null;
}

export interface FavoriteListingOptions {
  limit?: number;
  /**
   * The (favorite created_at, page id) of the last item handed out. Same shape and encoding as
   * the page listing's cursor (`timelineCursor` reads it), with the favorite's timestamp.
   */
  cursor?: TimelineCursor | null;
}

/** Stars `page` for the user; starring it again changes nothing (the first time is kept). */
export async function addFavorite(sequelize: Sequelize, userId: string, page: Pick<Page, 'id' | 'pondId'>): Promise<void> {
  await sequelize.query(
    `INSERT INTO favorites (user_id, page_id, pond_id) VALUES (:userId, :pageId, :pondId)
       ON CONFLICT (user_id, page_id) DO NOTHING`,
    { replacements: { userId, pageId: page.id, pondId: page.pondId } },
  );
}

/** Removes the user's star from `page`, if there is one. */
export async function removeFavorite(sequelize: Sequelize, userId: string, page: Pick<Page, 'id'>): Promise<void> {
  await sequelize.query(`DELETE FROM favorites WHERE user_id = :userId AND page_id = :pageId`, {
    replacements: { userId, pageId: page.id },
  });
}

interface FavoriteRow {
  page_id: string;
  /** The favorite's created_at in UTC with microseconds, for an exact keyset cursor. */
  favorited_utc: string;
  favorited_at: Date;
  slug: string;
  title: string;
  parent_id: string | null;
  position: string;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  updated_by: string | null;
}

async function fetchBatch(sequelize: Sequelize, query: { userId: string; pondId: string; after: TimelineCursor | null; limit: number }): Promise<FavoriteRow[]> {
  const afterCondition = query.after ? `AND (f.created_at, f.page_id) > (CAST(:afterCreated AS timestamp) AT TIME ZONE 'UTC', CAST(:afterId AS uuid))` : '';
  return sequelize.query<FavoriteRow>(
    `SELECT f.page_id, (f.created_at AT TIME ZONE 'UTC')::text AS favorited_utc, f.created_at AS favorited_at,
            p.slug, p.title, p.parent_id, p.position, p.created_at, p.updated_at, p.created_by, p.updated_by
       FROM favorites f
       JOIN pages p ON p.id = f.page_id
      WHERE f.user_id = :userId AND f.pond_id = :pondId AND p.trashed_at IS NULL ${afterCondition}
      ORDER BY f.created_at, f.page_id
      LIMIT :limit`,
    {
      replacements: { userId: query.userId, pondId: query.pondId, afterCreated: query.after?.createdKey ?? null, afterId: query.after?.id ?? null, limit: query.limit },
      type: QueryTypes.SELECT,
    },
  );
}

function toView(row: FavoriteRow, pondId: string, parentReadable: boolean): FavoriteView {
  const page = {
    id: row.page_id,
    pondId,
    slug: row.slug,
    title: row.title,
    parentId: row.parent_id,
    position: row.position,
    trashedAt: null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
  };
  return { ...presentPage(page, parentReadable), favoritedAt: row.favorited_at.toISOString() };
}

/**
 * The user's favorites in the pond `access` belongs to, oldest star first, limited to live
 * pages the subject may read. `parentId` is nulled where the parent is not readable; a live
 * page's parent is live (the tree rules keep it so), so it is judged as a live page.
 */
export async function listFavorites(sequelize: Sequelize, access: SubjectAccess, userId: string, options: FavoriteListingOptions = {}): Promise<FavoriteListing> {
  const pondId = access.data.pondId;
  const readable = liveReadability(access);
  const { items: rows, nextKey } = await collectReadable({
    limit: options.limit ?? DEFAULT_FAVORITE_LIST_LIMIT,
    after: options.cursor ?? null,
    fetch: (after, limit) => fetchBatch(sequelize, { userId, pondId, after, limit }),
    keyOf: (row) => ({ createdKey: row.favorited_utc, id: row.page_id }),
    keep: (row) => (readable(row.page_id) ? row : null),
    maxBatch: MAX_BATCH,
  });
  return { items: rows.map((row) => toView(row, pondId, row.parent_id !== null && readable(row.parent_id))), nextCursor: nextKey ? timelineCursor.encode(nextKey) : null };
}
