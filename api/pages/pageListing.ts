/**
 * The page list of a pond, filtered to what the caller may read. Hot path (benchmarked with
 * 10,000 pages): one raw query per batch with only the needed columns, no model instances,
 * and the permission filter applied in memory with the pond's resolved access (never one
 * query per page). Ordered by (createdAt, id); the cursor is the last row's key.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { presentPage, type PageListItemView } from '../presenters/pagePresenter.ts';
import { isoFromUtcText, timelineCursor, type TimelineCursor } from '../http/cursorCodec.ts';
import { collectReadable, liveReadability } from './readableBatches.ts';

export const DEFAULT_PAGE_LIST_LIMIT = 500;
export const MAX_PAGE_LIST_LIMIT = 1000;
// Later batches are sized from the share of readable rows so far, up to this many rows per query.
const MAX_BATCH = 10_000;

/**
 * The share of rows the last listing of a caller in a pond kept: a client paging through the
 * list fetches its next page in one query instead of two. Only a sizing hint, so a small map
 * that forgets its oldest entries is enough.
 */
const keptShares = new Map<string, number>();
const MAX_REMEMBERED_SHARES = 1_000;

function rememberShare(key: string, share: number): void {
  keptShares.delete(key);
  keptShares.set(key, share);
  if (keptShares.size > MAX_REMEMBERED_SHARES) keptShares.delete(keptShares.keys().next().value!);
}

export interface PageListingOptions {
  /** Inclusive lower bounds; an ISO 8601 timestamp with offset, or a Date. */
  createdSince?: string | Date | null;
  updatedSince?: string | Date | null;
  /** Only the children of this page (null: the top level); absent: every page. */
  parentId?: string | null;
  limit?: number;
  cursor?: TimelineCursor | null;
}

export interface PageListing {
  items: PageListItemView[];
  nextCursor: string | null;
}

/**
 * Timestamps come as UTC text (`2024-06-15 12:00:00.123456`, Postgres' ISO DateStyle, which
 * pg's own date parser needs as well): parsing 20,000 of them into Dates took about half
 * the listing's time.
 */
interface PageRow {
  id: string;
  slug: string;
  title: string;
  parent_id: string | null;
  position: string;
  created_utc: string;
  updated_utc: string;
  created_by: string | null;
  updated_by: string | null;
  /** The page's label ids joined by commas (`pages.label_ids`, sorted): cheaper than an array per row. */
  label_csv: string;
}

function asTimestamp(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}

interface BatchQuery {
  pondId: string;
  createdSince: string | null;
  updatedSince: string | null;
  /** Undefined: any parent. */
  parentId?: string | null;
  after: TimelineCursor | null;
  /** Null: no LIMIT (the unfiltered baseline). */
  limit: number | null;
}

async function fetchBatch(sequelize: Sequelize, query: BatchQuery): Promise<PageRow[]> {
  const conditions = ['pond_id = :pondId', 'trashed_at IS NULL'];
  if (query.createdSince) conditions.push('created_at >= CAST(:createdSince AS timestamptz)');
  if (query.updatedSince) conditions.push('updated_at >= CAST(:updatedSince AS timestamptz)');
  if (query.parentId !== undefined) conditions.push(query.parentId === null ? 'parent_id IS NULL' : 'parent_id = CAST(:parentId AS uuid)');
  if (query.after) conditions.push(`(created_at, id) > (CAST(:afterCreated AS timestamp) AT TIME ZONE 'UTC', CAST(:afterId AS uuid))`);
  return sequelize.query<PageRow>(
    `SELECT id, slug, title, parent_id, position, created_by, updated_by,
            (created_at AT TIME ZONE 'UTC')::text AS created_utc, (updated_at AT TIME ZONE 'UTC')::text AS updated_utc,
            COALESCE(array_to_string(label_ids, ','), '') AS label_csv
       FROM pages
      WHERE ${conditions.join(' AND ')}
      -- The timestamp column, not its text form: sorts in the index order the keyset assumes.
      ORDER BY pages.created_at, pages.id
      ${query.limit === null ? '' : 'LIMIT :limit'}`,
    {
      replacements: {
        pondId: query.pondId,
        createdSince: query.createdSince,
        updatedSince: query.updatedSince,
        parentId: query.parentId ?? null,
        afterCreated: query.after?.createdKey ?? null,
        afterId: query.after?.id ?? null,
        limit: query.limit,
      },
      type: QueryTypes.SELECT,
    },
  );
}

/** A listing row (always a live page) through the page presenter. */
function toView(row: PageRow, pondId: string, parentReadable: boolean): PageListItemView {
  const page = {
    id: row.id,
    pondId,
    slug: row.slug,
    title: row.title,
    parentId: row.parent_id,
    position: row.position,
    trashedAt: null,
    createdAt: isoFromUtcText(row.created_utc),
    updatedAt: isoFromUtcText(row.updated_utc),
    createdBy: row.created_by,
    updatedBy: row.updated_by,
  };
  return { ...presentPage(page, parentReadable), labelIds: row.label_csv === '' ? [] : row.label_csv.split(',') };
}

/**
 * The live pages of the pond `access` belongs to that its subject may read, `limit` at a
 * time. `parentId` is nulled where the parent is not readable. A live page's parent is live
 * (the tree rules keep it so), so the parent is judged as a live page.
 */
export async function listVisiblePages(sequelize: Sequelize, access: SubjectAccess, options: PageListingOptions = {}): Promise<PageListing> {
  const pondId = access.data.pondId;
  const readable = liveReadability(access);
  const createdSince = options.createdSince ? asTimestamp(options.createdSince) : null;
  const updatedSince = options.updatedSince ? asTimestamp(options.updatedSince) : null;
  const shareKey = `${pondId}|${access.subject.userId ?? 'anonymous'}${options.parentId === undefined ? '' : `|${options.parentId}`}`;
  const { items: rows, nextKey, keptShare } = await collectReadable({
    limit: options.limit ?? DEFAULT_PAGE_LIST_LIMIT,
    after: options.cursor ?? null,
    fetch: (after, limit) => fetchBatch(sequelize, { pondId, createdSince, updatedSince, parentId: options.parentId, after, limit }),
    keyOf: (row) => ({ createdKey: row.created_utc, id: row.id }),
    keep: (row) => (readable(row.id) ? row : null),
    maxBatch: MAX_BATCH,
    expectedShare: keptShares.get(shareKey),
  });
  rememberShare(shareKey, keptShare);
  return {
    items: rows.map((row) => toView(row, pondId, row.parent_id !== null && readable(row.parent_id))),
    nextCursor: nextKey ? timelineCursor.encode(nextKey) : null,
  };
}

/** The same query over every live page of the pond, unfiltered: the benchmark's baseline. */
export async function listAllPagesUnfiltered(sequelize: Sequelize, pondId: string): Promise<PageListing> {
  const rows = await fetchBatch(sequelize, { pondId, createdSince: null, updatedSince: null, after: null, limit: null });
  return { items: rows.map((row) => toView(row, pondId, row.parent_id !== null)), nextCursor: null };
}
