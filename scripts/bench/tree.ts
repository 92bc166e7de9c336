/**
 * `npm run bench:tree` — the page tree at size.
 *
 * One pond with 20,000 pages in 6 levels. A reader with a pond-wide reader allow and page
 * reader denies on 10 % of the pages (2,000 grants) lists every page they may read the way a
 * client does — `listVisiblePages` 1,000 at a time, following `nextCursor` — with the
 * permission cache warm, against one plain SELECT of the pond's live pages. Then the pond
 * admin makes 200 moves with `movePage` (reorders among siblings and moves under a page near
 * the top, picked so that none should be refused), against a single-row position UPDATE in
 * its own transaction. Targets: the whole listing ≤ 100 ms, a move ≤ 10 ms (medians).
 */
import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';
import { QueryTypes, type Sequelize } from 'sequelize';
import { movePage, type MovePageInput } from '../../api/commands/pageMoveCommands.ts';
import { ApiError } from '../../api/http/apiError.ts';
import { timelineCursor, type TimelineCursor } from '../../api/http/cursorCodec.ts';
import { listVisiblePages, MAX_PAGE_LIST_LIMIT } from '../../api/pages/pageListing.ts';
import { MAX_PAGE_DEPTH } from '../../api/pages/pageTree.ts';
import { type SubjectAccess, subjectAccessTo } from '../../api/policies/accessPolicy.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { measureAlternating } from './timing.ts';
import { seededRandom } from '../seededRandom.ts';

/** Pages per level, top first: 20,000 in all, 6 levels (MAX_PAGE_DEPTH). */
const LEVEL_SIZES = [20, 120, 600, 2_400, 7_200, 9_660];
const DENIED_SHARE = 0.1;
const MOVES = 200;
const LIST_TARGET_MS = 100;
const MOVE_TARGET_MS = 10;


const random = seededRandom(20_000);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** A version-4-shaped UUID from the seeded sequence (the same ids every run). */
function seededUuid(): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(random() * 4)]!;
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

/**
 * The tree as this script knows it, kept in step with every write, so moves can be picked
 * valid (no cycle, depth ≤ 6) without asking the database.
 */
interface TreeModel {
  ids: string[];
  parent: Map<string, string | null>;
  position: Map<string, string>;
  children: Map<string | null, Set<string>>;
  /** The pages seeded at levels 1 and 2: the candidates for a new parent. */
  shallow: string[];
}

function childrenOf(model: TreeModel, parentId: string | null): Set<string> {
  let children = model.children.get(parentId);
  if (!children) model.children.set(parentId, (children = new Set()));
  return children;
}

function depthOf(model: TreeModel, id: string): number {
  let depth = 1;
  for (let parent = model.parent.get(id); parent; parent = model.parent.get(parent)) depth += 1;
  return depth;
}

function heightOf(model: TreeModel, id: string): number {
  let height = 1;
  for (const child of childrenOf(model, id)) height = Math.max(height, 1 + heightOf(model, child));
  return height;
}

/** Whether `candidate` is `root` or lies below it. */
function inSubtree(model: TreeModel, candidate: string, root: string): boolean {
  for (let id: string | null | undefined = candidate; id; id = model.parent.get(id)) if (id === root) return true;
  return false;
}

function place(model: TreeModel, id: string, parentId: string | null, position: string): void {
  const previous = model.parent.get(id);
  if (previous !== undefined) childrenOf(model, previous).delete(id);
  childrenOf(model, parentId).add(id);
  model.parent.set(id, parentId);
  model.position.set(id, position);
}

async function seed(sequelize: Sequelize): Promise<{ pondId: string; ownerId: string; readerId: string; model: TreeModel; grantCount: number }> {
  const select = <T extends object>(sql: string, bind: unknown[] = []) => sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const [owner] = await select<{ id: string }>(`INSERT INTO users (username, email, display_name, status, password_hash) VALUES ('owner', 'owner@example.org', 'Owner', 'ACTIVE', 'x') RETURNING id`);
  const [reader] = await select<{ id: string }>(`INSERT INTO users (username, email, display_name, status, password_hash) VALUES ('reader', 'reader@example.org', 'Reader', 'ACTIVE', 'x') RETURNING id`);
  const [pond] = await select<{ id: string }>(`INSERT INTO ponds (slug, name, kind, owner_id) VALUES ('bench', 'Bench', 'shared', $1) RETURNING id`, [owner!.id]);
  const pondId = pond!.id;
  const model: TreeModel = { ids: [], parent: new Map(), position: new Map(), children: new Map(), shallow: [] };

  // Level by level: every page hangs below a random page of the level above; each sibling
  // group gets its keys in one call, so they are valid, ordered and unique.
  let above: string[] = [];
  let number = 0;
  for (const [level, size] of LEVEL_SIZES.entries()) {
    const groups = new Map<string | null, string[]>();
    for (let i = 0; i < size; i += 1) {
      const parentId = level === 0 ? null : pick(above);
      const group = groups.get(parentId) ?? [];
      group.push(seededUuid());
      groups.set(parentId, group);
    }
    const rows = { ids: [] as string[], parents: [] as (string | null)[], positions: [] as string[], numbers: [] as number[] };
    for (const [parentId, ids] of groups) {
      const keys = generateNKeysBetween(null, null, ids.length);
      ids.forEach((id, index) => {
        number += 1;
        rows.ids.push(id);
        rows.parents.push(parentId);
        rows.positions.push(keys[index]!);
        rows.numbers.push(number);
        model.ids.push(id);
        place(model, id, parentId, keys[index]!);
      });
    }
    await sequelize.query(
      `INSERT INTO pages (id, pond_id, slug, title, parent_id, position, created_at, updated_at, created_by, updated_by)
       SELECT t.id, $1, 'page-' || t.n, 'Page ' || t.n, t.parent_id, t.position, now() - (t.n || ' seconds')::interval, now() - (t.n || ' seconds')::interval, $2, $2
         FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::int[]) AS t (id, parent_id, position, n)`,
      { bind: [pondId, owner!.id, rows.ids, rows.parents, rows.positions, rows.numbers] },
    );
    if (level < 2) model.shallow.push(...rows.ids);
    above = rows.ids;
  }

  // Grants: the owner's admin grant, the reader's pond-wide reader allow, and page denies on 10 % of the pages.
  const shuffled = [...model.ids];
  const deniedCount = Math.round(model.ids.length * DENIED_SHARE);
  for (let i = 0; i < deniedCount; i += 1) {
    const j = i + Math.floor(random() * (shuffled.length - i));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  await sequelize.query(
    `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect)
     VALUES ($1, 'user', $2, 'pond_admin', 'pond', 'allow'), ($1, 'user', $3, 'reader', 'pond', 'allow')`,
    { bind: [pondId, owner!.id, reader!.id] },
  );
  await sequelize.query(
    `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_page_id, effect)
     SELECT $1, 'user', $2, 'reader', 'page', page_id, 'deny' FROM unnest($3::uuid[]) AS page_id`,
    { bind: [pondId, reader!.id, shuffled.slice(0, deniedCount)] },
  );
  await sequelize.query('ANALYZE');
  const [{ count: grantCount }] = (await select<{ count: number }>(`SELECT count(*)::int AS count FROM grants WHERE pond_id = $1`, [pondId])) as [{ count: number }];
  return { pondId, ownerId: owner!.id, readerId: reader!.id, model, grantCount };
}

/** Every page the reader may read, 1,000 per request like a client paging through, access resolved per request as the route does. */
async function listEveryVisiblePage(sequelize: Sequelize, readerId: string, pondId: string): Promise<{ ids: string[]; requests: number }> {
  const ids: string[] = [];
  let requests = 0;
  let cursor: TimelineCursor | null = null;
  do {
    const access = (await subjectAccessTo(sequelize, { userId: readerId, signedIn: true, isSiteAdmin: false }, pondId))!;
    const listing = await listVisiblePages(sequelize, access, { limit: MAX_PAGE_LIST_LIMIT, cursor });
    requests += 1;
    for (const item of listing.items) ids.push(item.id);
    cursor = listing.nextCursor === null ? null : timelineCursor.decode(listing.nextCursor);
    if (listing.nextCursor !== null && !cursor) throw new Error(`listVisiblePages handed out a cursor it cannot read: ${listing.nextCursor}`);
  } while (cursor);
  return { ids, requests };
}

type MoveKind = 'reorder' | 'reparent';

/** A reorder: right before or after another live sibling. */
function pickReorder(model: TreeModel): { pageId: string; input: MovePageInput } {
  for (;;) {
    const pageId = pick(model.ids);
    const siblings = [...childrenOf(model, model.parent.get(pageId) ?? null)].filter((id) => id !== pageId);
    if (siblings.length === 0) continue;
    return { pageId, input: random() < 0.5 ? { before: pick(siblings) } : { after: pick(siblings) } };
  }
}

/** A new parent at level 1 or 2, outside the page's subtree, with room for the page's subtree below it. */
function pickReparent(model: TreeModel): { pageId: string; input: MovePageInput } {
  for (;;) {
    const pageId = pick(model.ids);
    const parentId = pick(model.shallow);
    if (parentId === model.parent.get(pageId) || inSubtree(model, parentId, pageId)) continue;
    if (depthOf(model, parentId) + heightOf(model, pageId) > MAX_PAGE_DEPTH) continue;
    const children = [...childrenOf(model, parentId)];
    const choice = random();
    if (children.length === 0 || choice < 0.34) return { pageId, input: { parentId } };
    return { pageId, input: choice < 0.67 ? { parentId, before: pick(children) } : { parentId, after: pick(children) } };
  }
}

/** The baseline write: a fresh key right after the page's own, in one single-row UPDATE and its own transaction. */
async function updateOnePosition(sequelize: Sequelize, model: TreeModel): Promise<void> {
  const pageId = pick(model.ids);
  const own = model.position.get(pageId)!;
  let next: string | null = null;
  for (const sibling of childrenOf(model, model.parent.get(pageId) ?? null)) {
    const key = model.position.get(sibling)!;
    if (key > own && (next === null || key < next)) next = key;
  }
  const position = generateKeyBetween(own, next);
  await sequelize.transaction((transaction) => sequelize.query('UPDATE pages SET position = $1 WHERE id = $2', { bind: [position, pageId], transaction }));
  model.position.set(pageId, position);
}

/** The database's tree must be the script's tree: same parents, same keys, nothing deeper than the limit. */
async function assertTreeMatches(sequelize: Sequelize, pondId: string, model: TreeModel): Promise<number> {
  const rows = await sequelize.query<{ id: string; parent_id: string | null; position: string; depth: number }>(
    `WITH RECURSIVE tree AS (
         SELECT id, parent_id, position, 1 AS depth FROM pages WHERE pond_id = $1 AND parent_id IS NULL AND trashed_at IS NULL
       UNION ALL
         SELECT p.id, p.parent_id, p.position, t.depth + 1 FROM pages p JOIN tree t ON p.parent_id = t.id WHERE p.trashed_at IS NULL AND t.depth < 64
     )
     SELECT * FROM tree`,
    { bind: [pondId], type: QueryTypes.SELECT },
  );
  if (rows.length !== model.ids.length) throw new Error(`the tree holds ${rows.length} live pages reachable from the top, expected ${model.ids.length}`);
  for (const row of rows) {
    if (model.parent.get(row.id) !== row.parent_id || model.position.get(row.id) !== row.position) throw new Error(`page ${row.id} is not where the benchmark put it`);
  }
  return Math.max(...rows.map((row) => row.depth));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const database = await openBenchDatabase();
try {
  const { sequelize } = database;
  const { pondId, ownerId, readerId, model, grantCount } = await seed(sequelize);
  const format = (value: number) => value.toFixed(1).padStart(6);
  const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

  // 1. The reader's whole listing.
  const plainSelect = () =>
    sequelize.query(`SELECT id, slug, title, parent_id, position, created_at, updated_at, created_by, updated_by FROM pages WHERE pond_id = $1 AND trashed_at IS NULL`, {
      bind: [pondId],
      type: QueryTypes.SELECT,
    });
  const { ids: visibleIds, requests } = await listEveryVisiblePage(sequelize, readerId, pondId);
  const expectedVisible = model.ids.length - Math.round(model.ids.length * DENIED_SHARE);
  if (visibleIds.length !== expectedVisible || new Set(visibleIds).size !== visibleIds.length) {
    throw new Error(`the listing handed out ${visibleIds.length} pages (${new Set(visibleIds).size} distinct), expected ${expectedVisible}`);
  }
  const listing = await measureAlternating({ baseline: plainSelect, listing: () => listEveryVisiblePage(sequelize, readerId, pondId) }, { runs: 40 });

  // 2. Moves by the pond admin, alternating with the baseline write.
  const ownerAccess = (await subjectAccessTo(sequelize, { userId: ownerId, signedIn: true, isSiteAdmin: false }, pondId)) as SubjectAccess;
  const locale = async () => 'en' as const;
  const refusals = { page_cycle: 0, page_depth_exceeded: 0 };
  const moveTimes: Record<MoveKind, number[]> = { reorder: [], reparent: [] };
  const moveOnce = async () => {
    const kind: MoveKind = random() < 0.5 ? 'reorder' : 'reparent';
    const { pageId, input } = kind === 'reorder' ? pickReorder(model) : pickReparent(model);
    const started = process.hrtime.bigint();
    try {
      const page = await movePage(sequelize, { pageId, access: ownerAccess, userId: ownerId, input, locale });
      moveTimes[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
      place(model, page.id, page.parentId, page.position);
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'page_cycle' || error.code === 'page_depth_exceeded')) refusals[error.code] += 1;
      else throw error;
    }
  };
  const warmup = 5;
  const moves = await measureAlternating({ baseline: () => updateOnePosition(sequelize, model), move: moveOnce }, { warmup, runs: MOVES });
  const maxDepth = await assertTreeMatches(sequelize, pondId, model);

  const count = (value: number) => value.toLocaleString('en');
  const line = (label: string, timing: { median: number; p95: number }, baseline?: { median: number }) =>
    console.log(`  ${label.padEnd(64)} median ${format(timing.median)} ms   p95 ${format(timing.p95)} ms${baseline ? `   ratio ${(timing.median / baseline.median).toFixed(2)}×` : ''}`);
  console.log(
    `bench:tree — ${count(model.ids.length)} pages in ${LEVEL_SIZES.length} levels (${LEVEL_SIZES.map(count).join(' / ')}), ${count(grantCount)} grants; the reader may read ${count(visibleIds.length)} pages`,
  );
  line('plain SELECT of the live pages (baseline)', listing.baseline);
  line(`every visible page, ${count(MAX_PAGE_LIST_LIMIT)} per request (${requests} requests), cache warm`, listing.listing, listing.baseline);
  console.log(`  target (whole listing): ≤ ${LIST_TARGET_MS} ms → ${verdict(listing.listing.median <= LIST_TARGET_MS)}`);
  line('single-row position UPDATE in its own transaction (baseline)', moves.baseline);
  line(`movePage, ${MOVES} moves (after ${warmup} warm-up)`, moves.move, moves.baseline);
  console.log(
    `    of all ${moveTimes.reorder.length + moveTimes.reparent.length} moves: ${moveTimes.reorder.length} reorders among siblings (median ${median(moveTimes.reorder).toFixed(1)} ms), ` +
      `${moveTimes.reparent.length} to a new parent at level 1–2 (median ${median(moveTimes.reparent).toFixed(1)} ms)`,
  );
  console.log(`    refused: ${refusals.page_cycle} page_cycle, ${refusals.page_depth_exceeded} page_depth_exceeded; afterwards the tree matches the script's, deepest page at level ${maxDepth}`);
  console.log(`  target (move): ≤ ${MOVE_TARGET_MS} ms median → ${verdict(moves.move.median <= MOVE_TARGET_MS)}`);
} finally {
  await database.close();
}
