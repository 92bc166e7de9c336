/**
 * The user's notification list, the bell's unread count, and marking read.
 *
 * Order: unread first, then newest first (`updated_at DESC, id DESC`: a fold moves the row up),
 * keyset-paged along `notifications_list_idx`. Read permission is re-checked when the list is
 * read (spec: Notification rules): an item whose page the user may no longer read, or whose
 * page or pond is in the trash, is left out of the list and of the count, judged in memory
 * with one access load per pond. The rows stay: they come back should access come back.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { pageUrl } from '../feeds/feedUrls.ts';
import { notificationCursor, type NotificationCursor } from '../http/cursorCodec.ts';
import { isUuid, SubjectAccess, type AccessSubject } from '../policies/accessPolicy.ts';
import { loadPondAccessMany } from '../policies/pondAccessCache.ts';
import { collectReadable } from '../pages/readableBatches.ts';
import type { NotificationPayload, NotificationType } from './notificationFanOut.ts';

export const DEFAULT_NOTIFICATION_LIST_LIMIT = 30;
export const MAX_NOTIFICATION_LIST_LIMIT = 100;
// Later batches grow when many items have become unreadable, up to this many rows per query.
const MAX_BATCH = 1_000;

export interface NotificationView {
  id: string;
  type: NotificationType;
  pondId: string;
  pageId: string;
  payload: NotificationPayload;
  createdAt: string;
  updatedAt: string;
  readAt: string | null;
  mailedAt: string | null;
  /** The page's path in the app, with its current slugs. */
  url: string;
}

export interface NotificationListing {
  items: NotificationView[];
  nextCursor: string | null;
  /** Unread items the user may read now (what the bell shows). */
  unreadCount: number;
}

interface NotificationRow {
  id: string;
  type: NotificationType;
  pond_id: string;
  page_id: string;
  payload: NotificationPayload;
  created_at: Date;
  updated_at: Date;
  read_at: Date | null;
  mailed_at: Date | null;
  /** updated_at in UTC with microseconds, for an exact keyset cursor. */
  updated_utc: string;
  pond_slug: string;
  page_slug: string;
  page_trashed_at: Date | null;
}

const COLUMNS = `n.id, n.type, n.pond_id, n.page_id, n.payload, n.created_at, n.updated_at, n.read_at, n.mailed_at,
  (n.updated_at AT TIME ZONE 'UTC')::text AS updated_utc, po.slug AS pond_slug, p.slug AS page_slug, p.trashed_at AS page_trashed_at`;

/**
 * One part of the list (unread or read), newest first, after `after` when given. Each part is
 * one range of the list index, so a deep page costs what a first one does; the rows are cut
 * to the batch before the page and pond rows are joined (joining first costs every unread row).
 */
function partSql(read: boolean, after: boolean, limit: string): string {
  return `(SELECT ${COLUMNS}
             FROM (SELECT * FROM notifications
                    WHERE user_id = $1 AND (read_at IS NOT NULL) = ${read}
                      ${after ? `AND (updated_at, id) < (CAST($2 AS timestamp) AT TIME ZONE 'UTC', CAST($3 AS uuid))` : ''}
                    ORDER BY updated_at DESC, id DESC LIMIT ${limit}) n
             JOIN pages p ON p.id = n.page_id JOIN ponds po ON po.id = n.pond_id
            ORDER BY n.updated_at DESC, n.id DESC)`;
}

async function fetchBatch(sequelize: Sequelize, userId: string, after: NotificationCursor | null, limit: number): Promise<NotificationRow[]> {
  if (after?.read) {
    return sequelize.query<NotificationRow>(partSql(true, true, '$4'), { bind: [userId, after.updatedKey, after.id, limit], type: QueryTypes.SELECT });
  }
  // The unread part (after the cursor, if any), then the read part from its start.
  const sql = after
    ? `${partSql(false, true, '$4')} UNION ALL ${partSql(true, false, '$4')}`
    : `${partSql(false, false, '$2')} UNION ALL ${partSql(true, false, '$2')}`;
  const rows = await sequelize.query<NotificationRow>(sql, { bind: after ? [userId, after.updatedKey, after.id, limit] : [userId, limit], type: QueryTypes.SELECT });
  // UNION ALL keeps no order by itself: unread rows first, each part newest first as fetched.
  return [...rows.filter((row) => !row.read_at), ...rows.filter((row) => row.read_at)].slice(0, limit);
}

interface UnreadGroup {
  pond_id: string;
  page_id: string;
  page_trashed_at: Date | null;
  unread: number;
}

/** The unread rows per page: folding keeps at most one per page and type, so this stays small. */
async function unreadGroups(sequelize: Sequelize, userId: string): Promise<UnreadGroup[]> {
  return sequelize.query<UnreadGroup>(
    `SELECT n.pond_id, n.page_id, p.trashed_at AS page_trashed_at, count(*)::int AS unread
       FROM notifications n JOIN pages p ON p.id = n.page_id
      WHERE n.user_id = $1 AND n.read_at IS NULL
      GROUP BY n.pond_id, n.page_id, p.trashed_at`,
    { bind: [userId], type: QueryTypes.SELECT },
  );
}

function toView(row: NotificationRow): NotificationView {
  return {
    id: row.id,
    type: row.type,
    pondId: row.pond_id,
    pageId: row.page_id,
    payload: row.payload,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    readAt: row.read_at?.toISOString() ?? null,
    mailedAt: row.mailed_at?.toISOString() ?? null,
    url: pageUrl('', row.pond_slug, row.page_slug),
  };
}

/** Whether the subject may read a live page of a live pond, against accesses loaded per pond. */
function readability(subject: AccessSubject, accesses: Map<string, SubjectAccess>, loaded: Awaited<ReturnType<typeof loadPondAccessMany>>) {
  return (pondId: string, pageId: string, pageTrashedAt: Date | null): boolean => {
    if (pageTrashedAt) return false;
    let access = accesses.get(pondId);
    if (!access) {
      const data = loaded.get(pondId);
      if (!data || data.trashedAt) return false;
      access = new SubjectAccess(data, subject);
      accesses.set(pondId, access);
    }
    return access.page({ id: pageId, trashedAt: null }, 'read').allowed;
  };
}

/** A page of the subject's notifications and the unread count, both limited to what they may read now. */
export async function listNotifications(
  sequelize: Sequelize,
  subject: AccessSubject & { userId: string },
  options: { limit?: number; cursor?: NotificationCursor | null } = {},
): Promise<NotificationListing> {
  const userId = subject.userId;
  const limit = options.limit ?? DEFAULT_NOTIFICATION_LIST_LIMIT;
  // The count and the first batch go out together; the access data of their ponds is loaded once.
  const firstSize = limit + 1;
  const [groups, firstBatch] = await Promise.all([unreadGroups(sequelize, userId), fetchBatch(sequelize, userId, options.cursor ?? null, firstSize)]);
  const loaded = await loadPondAccessMany(sequelize, [...groups.map((group) => group.pond_id), ...firstBatch.map((row) => row.pond_id)]);
  const accesses = new Map<string, SubjectAccess>();
  const readable = readability(subject, accesses, loaded);

  let first: NotificationRow[] | null = firstBatch;
  const { items, nextKey } = await collectReadable({
    limit,
    after: options.cursor ?? null,
    fetch: async (after, size) => {
      if (first) {
        const rows = first;
        first = null;
        return rows;
      }
      const rows = await fetchBatch(sequelize, userId, after, size);
      const unknown = rows.map((row) => row.pond_id).filter((pondId) => !loaded.has(pondId));
      if (unknown.length > 0) for (const [id, data] of await loadPondAccessMany(sequelize, unknown)) loaded.set(id, data);
      return rows;
    },
    keyOf: (row): NotificationCursor => ({ read: row.read_at !== null, updatedKey: row.updated_utc, id: row.id }),
    keep: (row) => (readable(row.pond_id, row.page_id, row.page_trashed_at) ? toView(row) : null),
    maxBatch: MAX_BATCH,
  });
  const unreadCount = groups.reduce((sum, group) => sum + (readable(group.pond_id, group.page_id, group.page_trashed_at) ? group.unread : 0), 0);
  return { items, nextCursor: nextKey ? notificationCursor.encode(nextKey) : null, unreadCount };
}

/** Marks one of the user's notifications read (a read one keeps its time); false when it is not theirs or unknown. */
export async function markNotificationRead(sequelize: Sequelize, userId: string, notificationId: string): Promise<boolean> {
  if (!isUuid(notificationId)) return false;
  const rows = await sequelize.query(`UPDATE notifications SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND user_id = $2 RETURNING id`, {
    bind: [notificationId, userId],
    type: QueryTypes.SELECT,
  });
  return rows.length > 0;
}

/** Marks every unread notification of the user read. */
export async function markAllNotificationsRead(sequelize: Sequelize, userId: string): Promise<void> {
  await sequelize.query(`UPDATE notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL`, { bind: [userId] });
}
