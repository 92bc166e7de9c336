/**
 * Reads of the page tree for the tree commands (move, trash, restore, purge). Every function
 * runs inside the caller's transaction, after the caller took the pond row lock, so what it
 * reads cannot change before the caller writes.
 *
 * Positions are fractional keys (`fractional-indexing`) compared bytewise (COLLATE "C", which
 * is also how JavaScript compares these ASCII strings). New keys are generated between the
 * neighbouring keys of the whole sibling group, trashed siblings included, so a restored page
 * rarely meets its own key again; live siblings never share a key (a unique index says so).
 */
import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/** Spec, Limits: a root page has depth 1; no page may be deeper than this. */
export const MAX_PAGE_DEPTH = 6;
/** Chains longer than this cannot exist; the bound keeps a corrupted row from looping a query. */
const CHAIN_GUARD = 64;

export interface TreeRow {
  id: string;
  pond_id: string;
  parent_id: string | null;
  position: string;
  trashed_at: Date | null;
  home_parent_id: string | null;
  home_position: string | null;
}

const TREE_COLUMNS = 'id, pond_id, parent_id, position, trashed_at, home_parent_id, home_position';

export class PageTree {
  readonly sequelize: Sequelize;
  readonly pondId: string;
  readonly transaction: Transaction;

  constructor(sequelize: Sequelize, pondId: string, transaction: Transaction) {
    this.sequelize = sequelize;
    this.pondId = pondId;
    this.transaction = transaction;
  }

  query<T extends object>(sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return this.sequelize.query<T>(sql, { replacements: { pondId: this.pondId, ...replacements }, type: QueryTypes.SELECT, transaction: this.transaction });
  }

  async execute(sql: string, replacements: Record<string, unknown> = {}): Promise<void> {
    await this.sequelize.query(sql, { replacements: { pondId: this.pondId, ...replacements }, transaction: this.transaction });
  }

  /** The page's row, locked; null when it is not a page of this pond. */
  async lockRow(pageId: string): Promise<TreeRow | null> {
    const rows = await this.query<TreeRow>(`SELECT ${TREE_COLUMNS} FROM pages WHERE id = :pageId AND pond_id = :pondId FOR UPDATE`, { pageId });
    return rows[0] ?? null;
  }

  async row(pageId: string): Promise<TreeRow | null> {
    const rows = await this.query<TreeRow>(`SELECT ${TREE_COLUMNS} FROM pages WHERE id = :pageId AND pond_id = :pondId`, { pageId });
    return rows[0] ?? null;
  }

  /** The page's ancestors, nearest first, whatever their state. */
  async ancestors(pageId: string): Promise<TreeRow[]> {
    return this.query<TreeRow>(
      `WITH RECURSIVE chain AS (
           SELECT p.*, 1 AS step FROM pages p WHERE p.id = (SELECT parent_id FROM pages WHERE id = :pageId)
         UNION ALL
           SELECT p.*, c.step + 1 FROM pages p JOIN chain c ON p.id = c.parent_id WHERE c.step < ${CHAIN_GUARD}
       )
       SELECT ${TREE_COLUMNS} FROM chain ORDER BY step`,
      { pageId },
    );
  }

  /** Depth of a live page (root = 1); its ancestors are live, so this is its place in the live tree. */
  async depth(pageId: string): Promise<number> {
    return (await this.ancestors(pageId)).length + 1;
  }

  /** The page and its live descendants, each with its depth below the page (the page = 1). */
  async liveSubtree(pageId: string): Promise<(TreeRow & { level: number })[]> {
    return this.query<TreeRow & { level: number }>(
      `WITH RECURSIVE tree AS (
           SELECT p.*, 1 AS level FROM pages p WHERE p.id = :pageId
         UNION ALL
           SELECT p.*, t.level + 1 FROM pages p JOIN tree t ON p.parent_id = t.id
            WHERE p.trashed_at IS NULL AND t.level < ${CHAIN_GUARD}
       )
       SELECT ${TREE_COLUMNS}, level FROM tree ORDER BY level, position`,
      { pageId },
    );
  }

  /** A trashed page and the descendants trashed together with it (same timestamp, connected through each other). */
  async trashGroup(page: TreeRow): Promise<(TreeRow & { level: number })[]> {
    return this.query<TreeRow & { level: number }>(
      `WITH RECURSIVE grp AS (
           SELECT p.*, 1 AS level FROM pages p WHERE p.id = :pageId
         UNION ALL
           SELECT p.*, g.level + 1 FROM pages p JOIN grp g ON p.parent_id = g.id
            WHERE p.trashed_at = :trashedAt AND g.level < ${CHAIN_GUARD}
       )
       SELECT ${TREE_COLUMNS}, level FROM grp`,
      { pageId: page.id, trashedAt: page.trashed_at },
    );
  }

  /** Live pages that wait under a stand-in for one of `parentIds` to come back from the trash. */
  async waitingFor(parentIds: readonly string[]): Promise<TreeRow[]> {
    return this.query<TreeRow>(
      `SELECT ${TREE_COLUMNS} FROM pages WHERE home_parent_id IN (:parentIds) AND trashed_at IS NULL ORDER BY home_position, id`,
      { parentIds: [...parentIds] },
    );
  }

  /** Height of the live subtree under a page (a leaf = 1), counted in SQL: a move must not load the subtree. */
  async liveHeight(pageId: string): Promise<number> {
    const rows = await this.query<{ height: number | null }>(
      `WITH RECURSIVE tree AS (
           SELECT id, 1 AS level FROM pages WHERE id = :pageId
         UNION ALL
           SELECT p.id, t.level + 1 FROM pages p JOIN tree t ON p.parent_id = t.id
            WHERE p.trashed_at IS NULL AND t.level < ${CHAIN_GUARD}
       )
       SELECT max(level) AS height FROM tree`,
      { pageId },
    );
    return rows[0]?.height ?? 1;
  }

  /** The live children of a page (or the live top-level pages), in order. */
  async liveChildren(parentId: string | null): Promise<TreeRow[]> {
    return this.query<TreeRow>(
      `SELECT ${TREE_COLUMNS} FROM pages WHERE pond_id = :pondId AND ${parentClause(parentId)} AND trashed_at IS NULL ORDER BY position`,
      { parentId },
    );
  }

  /** Every child of a page, trashed ones included, in order. */
  async allChildren(parentId: string): Promise<TreeRow[]> {
    return this.query<TreeRow>(`SELECT ${TREE_COLUMNS} FROM pages WHERE parent_id = :parentId ORDER BY position`, { parentId });
  }

  /** The nearest key after `position` in the sibling group (any state), skipping `exceptId`. */
  async keyAfter(parentId: string | null, position: string, exceptId: string | null = null): Promise<string | null> {
    const rows = await this.query<{ key: string | null }>(
      `SELECT min(position) AS key FROM pages
        WHERE pond_id = :pondId AND ${parentClause(parentId)} AND position > :position AND id IS DISTINCT FROM :exceptId`,
      { parentId, position, exceptId },
    );
    return rows[0]?.key ?? null;
  }

  /** The nearest key before `position` in the sibling group (any state), skipping `exceptId`. */
  async keyBefore(parentId: string | null, position: string, exceptId: string | null = null): Promise<string | null> {
    const rows = await this.query<{ key: string | null }>(
      `SELECT max(position) AS key FROM pages
        WHERE pond_id = :pondId AND ${parentClause(parentId)} AND position < :position AND id IS DISTINCT FROM :exceptId`,
      { parentId, position, exceptId },
    );
    return rows[0]?.key ?? null;
  }

  /** The smallest and greatest key in the sibling group (any state), skipping `exceptId`. */
  async keyRange(parentId: string | null, exceptId: string | null = null): Promise<{ first: string | null; last: string | null }> {
    const rows = await this.query<{ first: string | null; last: string | null }>(
      `SELECT min(position) AS first, max(position) AS last FROM pages
        WHERE pond_id = :pondId AND ${parentClause(parentId)} AND id IS DISTINCT FROM :exceptId`,
      { parentId, exceptId },
    );
    return { first: rows[0]?.first ?? null, last: rows[0]?.last ?? null };
  }

  /** Whether a sibling (any state, other than `exceptId`) holds exactly this key. */
  async keyTaken(parentId: string | null, position: string, exceptId: string): Promise<boolean> {
    const rows = await this.query(`SELECT 1 FROM pages WHERE pond_id = :pondId AND ${parentClause(parentId)} AND position = :position AND id <> :exceptId LIMIT 1`, {
      parentId,
      position,
      exceptId,
    });
    return rows.length > 0;
  }

  /** `count` keys in order right after `position`, before the next sibling key. */
  async keysAfter(parentId: string | null, position: string, count: number, exceptId: string | null = null): Promise<string[]> {
    return generateNKeysBetween(position, await this.keyAfter(parentId, position, exceptId), count);
  }

  /** `position` itself when no other sibling holds it, else a fresh key right after it. */
  async keyNear(parentId: string | null, position: string, pageId: string): Promise<string> {
    if (!(await this.keyTaken(parentId, position, pageId))) return position;
    return generateKeyBetween(position, await this.keyAfter(parentId, position, pageId));
  }

  /** A key after every sibling in the group. */
  async lastKey(parentId: string | null, exceptId: string | null = null): Promise<string> {
    return generateKeyBetween((await this.keyRange(parentId, exceptId)).last, null);
  }
}

function parentClause(parentId: string | null): string {
  return parentId === null ? 'parent_id IS NULL' : 'parent_id = :parentId';
}
