/**
 * `GET /ponds/:id/trash`: the pond's trashed pages the caller may write (seeing a trashed
 * page takes write capability), grouped by trash timestamp. One trash action gives one
 * timestamp, so a trashed subtree is one entry: its top page first, then its descendants in
 * tree order. Newest entries first; the cursor is the last entry's timestamp.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { trashCursor } from '../http/cursorCodec.ts';
import type { Locale } from '../i18n/locale.ts';
import type { UserStatus } from '../models/index.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { presentPage, type PageView } from '../presenters/pagePresenter.ts';
import { personDisplayName } from '../presenters/userPresenter.ts';

export const DEFAULT_TRASH_LIMIT = 50;
export const MAX_TRASH_LIMIT = 200;

export interface TrashEntryView {
  trashedAt: string;
  trashedBy: { id: string; displayName: string } | null;
  pages: PageView[];
}

interface TrashRow {
  id: string;
  pond_id: string;
  slug: string;
  title: string;
  parent_id: string | null;
  position: string;
  trashed_at: Date;
  /** The exact timestamp (microseconds) as UTC text: the group key and the cursor. */
  trashed_key: string;
  trashed_by: string | null;
  trashed_by_name: string | null;
  trashed_by_status: UserStatus | null;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  updated_by: string | null;
}

/** Roots of the group first (pages whose parent is not in it), each followed by its subtree. */
function inTreeOrder(rows: TrashRow[]): TrashRow[] {
  const ids = new Set(rows.map((row) => row.id));
  const children = new Map<string | null, TrashRow[]>();
  for (const row of rows) {
    const key = row.parent_id !== null && ids.has(row.parent_id) ? row.parent_id : null;
    const siblings = children.get(key);
    if (siblings) siblings.push(row);
    else children.set(key, [row]);
  }
  for (const list of children.values()) list.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  const ordered: TrashRow[] = [];
  const visit = (parentId: string | null) => {
    for (const row of children.get(parentId) ?? []) {
      ordered.push(row);
      visit(row.id);
    }
  };
  visit(null);
  return ordered;
}

export async function listTrash(
  sequelize: Sequelize,
  access: SubjectAccess,
  /** `locale`: for the name of a deleted account that trashed pages ("Deleted user"). */
  options: { limit?: number; cursor?: string | null; locale?: Locale } = {},
): Promise<{ items: TrashEntryView[]; nextCursor: string | null }> {
  const limit = options.limit ?? DEFAULT_TRASH_LIMIT;
  // The whole trash of the pond (bounded by the retention): parents of listed pages may be trashed earlier or later.
  const rows = await sequelize.query<TrashRow>(
    `SELECT p.id, p.pond_id, p.slug, p.title, p.parent_id, p.position, p.trashed_at, p.trashed_by,
            (p.trashed_at AT TIME ZONE 'UTC')::text AS trashed_key, u.display_name AS trashed_by_name, u.status AS trashed_by_status,
            p.created_at, p.updated_at, p.created_by, p.updated_by
       FROM pages p LEFT JOIN users u ON u.id = p.trashed_by
      WHERE p.pond_id = :pondId AND p.trashed_at IS NOT NULL
      ORDER BY p.trashed_at DESC, p.id`,
    { replacements: { pondId: access.data.pondId }, type: QueryTypes.SELECT },
  );
  const trashedAtById = new Map(rows.map((row) => [row.id, row.trashed_at]));
  const readable = (id: string) => access.page({ id, trashedAt: trashedAtById.get(id) ?? null }, 'read').allowed;
  const groups = new Map<string, TrashRow[]>();
  for (const row of rows) {
    if (!access.page({ id: row.id, trashedAt: row.trashed_at }, 'write').allowed) continue;
    if (options.cursor && row.trashed_key >= options.cursor) continue;
    const group = groups.get(row.trashed_key);
    if (group) group.push(row);
    else groups.set(row.trashed_key, [row]);
  }
  const keys = [...groups.keys()];
  const items = keys.slice(0, limit).map((key): TrashEntryView => {
    const group = inTreeOrder(groups.get(key)!);
    const first = group[0]!;
    return {
      trashedAt: first.trashed_at.toISOString(),
      trashedBy: first.trashed_by
        ? { id: first.trashed_by, displayName: personDisplayName({ displayName: first.trashed_by_name ?? '', status: first.trashed_by_status ?? 'ACTIVE' }, options.locale ?? 'en') }
        : null,
      pages: group.map((row) =>
        presentPage(
          {
            id: row.id,
            pondId: row.pond_id,
            slug: row.slug,
            title: row.title,
            parentId: row.parent_id,
            position: row.position,
            trashedAt: row.trashed_at,
            createdAt: row.created_at,
            updatedAt: row.updated_at,
            createdBy: row.created_by,
            updatedBy: row.updated_by,
          },
          row.parent_id !== null && readable(row.parent_id),
        ),
      ),
    };
  });
  return { items, nextCursor: keys.length > limit ? trashCursor.encode(keys[limit - 1]!) : null };
}
