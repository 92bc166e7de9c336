/**
 * Page versions (`page_versions`): full self-contained snapshots of a page's document.
 * Writing one consumes `page_contributors` (who edited since the previous version) into the
 * version's `contributor_ids`, in the same statement, so a contributor recorded meanwhile
 * lands either in this version or in the next one, never in both or neither.
 *
 * Reads resolve user ids to display names with a join. A deleted account (status `deleted`,
 * its row scrubbed but kept) drops out of the contributors; as `createdBy` it stays, with its
 * status, and the presenter names it "Deleted user".
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { timelineCursor, type TimelineCursor } from '../http/cursorCodec.ts';
import type { UserStatus } from '../models/index.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import type { Queryable } from './documentLog.ts';

/** 'auto': last participant left or 30 active-editing minutes (the collaboration server writes those). */
export type VersionTrigger = 'auto' | 'MANUAL' | 'pre_restore';

export const VERSION_LABEL_MAX_LENGTH = 200;
export const DEFAULT_VERSION_LIST_LIMIT = 50;
export const MAX_VERSION_LIST_LIMIT = 200;

export interface NewVersion {
  pageId: string;
  trigger: VersionTrigger;
  label?: string | null | undefined;
  /** Set for manual and pre-restore versions, null for automatic ones. */
  createdBy?: string | null | undefined;
  /** The document as one self-contained Yjs update (Y.encodeStateAsUpdate / merged log). */
  state: Uint8Array;
}

/**
 * Stores a version and consumes the page's contributors into it. One statement, so it is
 * atomic on a pool too; pass a transaction's connection (`transactionClient`) to make it part
 * of a larger change. Contributors are listed in the order they last edited.
 */
export async function createVersion(db: Queryable, version: NewVersion): Promise<{ id: string }> {
  const { rows } = await db.query<{ id: string }>(
    `WITH consumed AS (DELETE FROM page_contributors WHERE page_id = $1 RETURNING user_id, last_edit_at)
     INSERT INTO page_versions (page_id, trigger, label, created_by, state, contributor_ids)
     VALUES ($1, $2, $3, $4, $5, ARRAY(SELECT user_id FROM consumed ORDER BY last_edit_at, user_id))
     RETURNING id`,
    [
      version.pageId,
      version.trigger,
      version.label ?? null,
      version.createdBy ?? null,
      Buffer.from(version.state.buffer, version.state.byteOffset, version.state.byteLength),
    ],
  );
  return { id: rows[0]!.id };
}

export interface VersionPerson {
  id: string;
  displayName: string;
}

/** A version as read back, without its state. */
export interface VersionRecord {
  id: string;
  pageId: string;
  trigger: VersionTrigger;
  label: string | null;
  createdBy: (VersionPerson & { status: UserStatus }) | null;
  contributors: VersionPerson[];
  createdAt: Date;
}

export interface VersionWithState extends VersionRecord {
  state: Uint8Array;
}

export interface VersionListing {
  items: VersionRecord[];
  nextCursor: string | null;
}

interface VersionRow {
  id: string;
  page_id: string;
  trigger: VersionTrigger;
  label: string | null;
  created_by_id: string | null;
  created_by_name: string | null;
  created_by_status: UserStatus | null;
  contributors: VersionPerson[];
  created_at: Date;
  /** created_at in UTC with microseconds, for an exact keyset cursor. */
  created_utc: string;
  state?: Buffer;
}

// Contributors in stored order; deleted accounts (and rows that are gone) drop out.
const VERSION_COLUMNS = `
  v.id, v.page_id, v.trigger, v.label, v.created_at, (v.created_at AT TIME ZONE 'UTC')::text AS created_utc,
  creator.id AS created_by_id, creator.display_name AS created_by_name, creator.status AS created_by_status,
  COALESCE((SELECT json_agg(json_build_object('id', u.id, 'displayName', u.display_name) ORDER BY c.ord)
              FROM unnest(v.contributor_ids) WITH ORDINALITY AS c(user_id, ord)
              JOIN users u ON u.id = c.user_id AND u.status <> 'deleted'), '[]'::json) AS contributors`;

function toRecord(row: VersionRow): VersionRecord {
  return {
    id: row.id,
    pageId: row.page_id,
    trigger: row.trigger,
    label: row.label,
    createdBy:
      row.created_by_id && row.created_by_name !== null && row.created_by_status !== null
        ? { id: row.created_by_id, displayName: row.created_by_name, status: row.created_by_status }
        : null,
    contributors: row.contributors,
    createdAt: row.created_at,
  };
}

export interface VersionListOptions {
  limit?: number;
  /** The (created_at, id) of the last version handed out; the listing continues with older ones. */
  cursor?: TimelineCursor | null;
}

/** A page's versions, newest first, keyset paged by (created_at, id). */
export async function listVersions(sequelize: Sequelize, pageId: string, options: VersionListOptions = {}): Promise<VersionListing> {
  const limit = options.limit ?? DEFAULT_VERSION_LIST_LIMIT;
  const after = options.cursor ?? null;
  const afterCondition = after ? `AND (v.created_at, v.id) < (CAST(:afterCreated AS timestamp) AT TIME ZONE 'UTC', CAST(:afterId AS uuid))` : '';
  const rows = await sequelize.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS}
       FROM page_versions v
       LEFT JOIN users creator ON creator.id = v.created_by
      WHERE v.page_id = :pageId ${afterCondition}
      ORDER BY v.created_at DESC, v.id DESC
      LIMIT :fetch`,
    {
      replacements: { pageId, afterCreated: after?.createdKey ?? null, afterId: after?.id ?? null, fetch: limit + 1 },
      type: QueryTypes.SELECT,
    },
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? timelineCursor.encode({ createdKey: last.created_utc, id: last.id }) : null;
  return { items: page.map(toRecord), nextCursor };
}

/** One version with its state, or null when there is none with that id. */
export async function loadVersion(sequelize: Sequelize, versionId: string, transaction?: Transaction): Promise<VersionWithState | null> {
  if (!isUuid(versionId)) return null;
  const rows = await sequelize.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS}, v.state
       FROM page_versions v
       LEFT JOIN users creator ON creator.id = v.created_by
      WHERE v.id = :versionId`,
    { replacements: { versionId }, type: QueryTypes.SELECT, ...(transaction ? { transaction } : {}) },
  );
  const row = rows[0];
  if (!row?.state) return null;
  return { ...toRecord(row), state: new Uint8Array(row.state.buffer, row.state.byteOffset, row.state.byteLength) };
}

/** The page a version belongs to, or null for a missing version (cheap: no state, no names). */
export async function pageIdOfVersion(sequelize: Sequelize, versionId: string): Promise<string | null> {
  if (!isUuid(versionId)) return null;
  const rows = await sequelize.query<{ page_id: string }>(`SELECT page_id FROM page_versions WHERE id = :versionId`, {
    replacements: { versionId },
    type: QueryTypes.SELECT,
  });
  return rows[0]?.page_id ?? null;
}
