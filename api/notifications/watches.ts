/**
 * Watches: a user follows a page or a whole pond and hears about its changes and comments
 * (api/notifications/notificationFanOut.ts). Setting and clearing are idempotent. A watch
 * outlives the page's trash (listed again once the page is restored) and cascades away with
 * the page row at purge, or the pond row.
 *
 * The routes check read access before any of this runs; the list re-checks it per target in
 * memory, one access load per pond, and leaves out targets the user can no longer read and
 * trashed ones.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { pageUrl, pondUrl } from '../feeds/feedUrls.ts';
import { pondVisible, SubjectAccess, type AccessSubject } from '../policies/accessPolicy.ts';
import { loadPondAccessMany } from '../policies/pondAccessCache.ts';

export type WatchTargetType = 'page' | 'pond';

export interface WatchView {
  id: string;
  targetType: WatchTargetType;
  pondId: string;
  /** Null for a pond watch. */
  pageId: string | null;
  /** The page's title or the pond's name, as it is now. */
  name: string;
  /** The target's path in the app (`/pond` or `/pond/page`). */
  url: string;
  createdAt: string;
}

export interface WatchTarget {
  pondId: string;
  /** Null (or absent) for the pond itself. */
  pageId?: string | null;
}

/** Watches the page or pond; watching it again changes nothing. */
export async function addWatch(sequelize: Sequelize, userId: string, target: WatchTarget): Promise<void> {
  const pageId = target.pageId ?? null;
  await sequelize.query(
    `INSERT INTO watches (user_id, target_type, pond_id, page_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, target_type, pond_id, page_id) DO NOTHING`,
    { bind: [userId, pageId ? 'page' : 'pond', target.pondId, pageId] },
  );
}

/** Stops watching the page or pond, if the user did. */
export async function removeWatch(sequelize: Sequelize, userId: string, target: WatchTarget): Promise<void> {
  const pageId = target.pageId ?? null;
  await sequelize.query(
    pageId
      ? `DELETE FROM watches WHERE user_id = $1 AND target_type = 'page' AND page_id = $2`
      : `DELETE FROM watches WHERE user_id = $1 AND target_type = 'pond' AND pond_id = $2`,
    { bind: [userId, pageId ?? target.pondId] },
  );
}

/** Whether the user watches the page itself, and whether they watch its pond (which covers it too). */
export async function pageWatchState(sequelize: Sequelize, userId: string, page: { id: string; pondId: string }): Promise<{ watching: boolean; viaPond: boolean }> {
  const [row] = await sequelize.query<{ watching: boolean; via_pond: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM watches WHERE user_id = $1 AND target_type = 'page' AND page_id = $2) AS watching,
            EXISTS (SELECT 1 FROM watches WHERE user_id = $1 AND target_type = 'pond' AND pond_id = $3) AS via_pond`,
    { bind: [userId, page.id, page.pondId], type: QueryTypes.SELECT },
  );
  return { watching: row!.watching, viaPond: row!.via_pond };
}

export async function pondWatchState(sequelize: Sequelize, userId: string, pondId: string): Promise<{ watching: boolean }> {
  const [row] = await sequelize.query<{ watching: boolean }>(`SELECT EXISTS (SELECT 1 FROM watches WHERE user_id = $1 AND target_type = 'pond' AND pond_id = $2) AS watching`, {
    bind: [userId, pondId],
    type: QueryTypes.SELECT,
  });
  return { watching: row!.watching };
}

interface WatchRow {
  id: string;
  target_type: WatchTargetType;
  pond_id: string;
  page_id: string | null;
  created_at: Date;
  pond_name: string;
  pond_slug: string;
  page_title: string | null;
  page_slug: string | null;
  page_trashed_at: Date | null;
}

/** The subject's watches, newest first, with names and links; unreadable and trashed targets left out. */
export async function listWatches(sequelize: Sequelize, subject: AccessSubject & { userId: string }): Promise<{ items: WatchView[] }> {
  const rows = await sequelize.query<WatchRow>(
    `SELECT w.id, w.target_type, w.pond_id, w.page_id, w.created_at, po.name AS pond_name, po.slug AS pond_slug,
            p.title AS page_title, p.slug AS page_slug, p.trashed_at AS page_trashed_at
       FROM watches w
       JOIN ponds po ON po.id = w.pond_id
       LEFT JOIN pages p ON p.id = w.page_id
      WHERE w.user_id = $1
      ORDER BY w.created_at DESC, w.id DESC`,
    { bind: [subject.userId], type: QueryTypes.SELECT },
  );
  const dataById = await loadPondAccessMany(
    sequelize,
    rows.map((row) => row.pond_id),
  );
  const accessById = new Map([...dataById].map(([id, data]) => [id, new SubjectAccess(data, subject)]));
  const items: WatchView[] = [];
  for (const row of rows) {
    const access = accessById.get(row.pond_id);
    if (!access || access.data.trashedAt) continue;
    const common = { id: row.id, targetType: row.target_type, pondId: row.pond_id, createdAt: row.created_at.toISOString() };
    if (row.target_type === 'pond') {
      if (pondVisible(access)) items.push({ ...common, pageId: null, name: row.pond_name, url: pondUrl('', row.pond_slug) });
    } else if (!row.page_trashed_at && access.page({ id: row.page_id!, trashedAt: null }, 'read').allowed) {
      items.push({ ...common, pageId: row.page_id, name: row.page_title!, url: pageUrl('', row.pond_slug, row.page_slug!) });
    }
  }
  return { items };
}
