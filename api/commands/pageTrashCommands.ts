/**
 * The page trash lifecycle (spec, States: Page): live → trashed (promote or subtree),
 * trashed → live (restore), trashed → removed (purge, by hand or after retention). Each
 * transition is one transaction under the pond row lock (api/ponds/pondLock.ts).
 *
 * Restoring is order-independent: a page whose parent is still in the trash waits under the
 * nearest live ancestor and remembers its parent (`home_parent_id`, `home_position`); when
 * that parent is restored, the page moves back. So restoring the pages of one subtree in any
 * order rebuilds the same tree.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { ApiError, forbidden, notFound } from '../http/apiError.ts';
import { removeStoredFiles } from '../files/fileStore.ts';
import type { Logger } from '../logger.ts';
import { syncLinksToPages } from '../pages/linkResolution.ts';
import { MAX_PAGE_DEPTH, PageTree, type TreeRow } from '../pages/pageTree.ts';
import { lockPondTree } from '../ponds/pondLock.ts';
import { queuePageChanges } from '../publicPages/publicDocumentQueue.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { announceAccessChange } from '../policies/pondAccessCache.ts';
import { clearPageSearchVectors, reindexPages } from '../search/pageSearchIndex.ts';
import { getSetting } from '../settings/instanceSettings.ts';

export type TrashMode = 'promote' | 'subtree';

export interface TrashPageProps {
  pageId: string;
  access: SubjectAccess;
  userId: string;
  mode: TrashMode;
}

async function lockedPage(tree: PageTree, pageId: string): Promise<TreeRow> {
  const page = await tree.lockRow(pageId);
  if (!page) throw notFound();
  return page;
}

function assertLive(page: TreeRow): void {
  if (page.trashed_at) throw new ApiError('page_trashed', 404, { trashedAt: page.trashed_at.toISOString() });
}

function assertTrashed(page: TreeRow): void {
  if (!page.trashed_at) throw new ApiError('page_not_trashed', 409);
}

/** Moves `children` (in order) into `parentId`'s group right after `position`, before the next sibling. */
async function moveChildrenAfter(tree: PageTree, children: readonly TreeRow[], parentId: string | null, position: string, exceptId: string): Promise<void> {
  if (children.length === 0) return;
  const keys = await tree.keysAfter(parentId, position, children.length, exceptId);
  await tree.execute(
    `UPDATE pages p SET parent_id = :parentId, position = moved.position, home_parent_id = NULL, home_position = NULL, updated_at = now()
       FROM (SELECT unnest(ARRAY[:ids]::uuid[]) AS id, unnest(ARRAY[:keys]::text[]) AS position) moved
      WHERE p.id = moved.id`,
    { parentId, ids: children.map((child) => child.id), keys },
  );
}

/**
 * Trashes a page. `promote` moves its live children up to its parent, in their order, at the
 * page's former place; `subtree` trashes the page and every live descendant with one shared
 * timestamp, and needs write on all of them (403 with nothing changed otherwise). Trashed
 * pages keep their parent; their search vectors are cleared.
 */
export async function trashPage(sequelize: Sequelize, props: TrashPageProps): Promise<{ trashedAt: Date; pageIds: string[] }> {
  const pondId = props.access.data.pondId;
  return sequelize.transaction(async (transaction) => {
    await lockPondTree(sequelize, pondId, transaction);
    const tree = new PageTree(sequelize, pondId, transaction);
    const page = await lockedPage(tree, props.pageId);
    assertLive(page);
    let pageIds = [page.id];
    if (props.mode === 'subtree') {
      const subtree = await tree.liveSubtree(page.id);
      const blocked = subtree.filter((row) => !props.access.page({ id: row.id, trashedAt: null }, 'write').allowed);
      if (blocked.length > 0) throw forbidden({ reason: 'descendants_not_writable', count: blocked.length });
      pageIds = subtree.map((row) => row.id);
    } else {
      await moveChildrenAfter(tree, await tree.liveChildren(page.id), page.parent_id, page.position, page.id);
    }
    // Taken after the lock, so trash timestamps follow the order the changes were made in.
    const [{ now }] = (await tree.query<{ now: Date }>('SELECT clock_timestamp() AS now')) as [{ now: Date }];
    await tree.execute(
      `UPDATE pages SET trashed_at = :now, trashed_by = :userId, home_parent_id = NULL, home_position = NULL, updated_at = :now
        WHERE id IN (:pageIds)`,
      { now, userId: props.userId, pageIds },
    );
    await clearPageSearchVectors(pageIds, transaction);
    await syncLinksToPages(sequelize, pageIds, transaction);
    // Under the trash rule only writers may still see these pages: the collaboration server
    // re-resolves open sessions and closes those on the trashed pages.
    await announceAccessChange(pondId, transaction);
    return { trashedAt: now, pageIds };
  });
}

export interface RestorePageProps {
  pageId: string;
  access: SubjectAccess;
}

interface RestoreTarget {
  parentId: string | null;
  position: string;
  home: { parentId: string; position: string } | null;
}

/**
 * Where a restored page goes: its parent when that is live, else the nearest live ancestor,
 * else the top level; and if the subtree would be too deep there, the next ancestor up.
 * Under a stand-in it sits right after the trashed branch it came from.
 */
async function restoreTarget(tree: PageTree, page: TreeRow, height: number): Promise<RestoreTarget> {
  const ancestors = await tree.ancestors(page.id);
  const firstLive = ancestors.findIndex((ancestor) => !ancestor.trashed_at);
  // Above a live page every ancestor is live; without one, only the top level is left.
  const start = firstLive === -1 ? ancestors.length : firstLive;
  for (let index = start; index <= ancestors.length; index += 1) {
    // An ancestor at `index` has `ancestors.length - index - 1` ancestors of its own.
    const candidateDepth = index === ancestors.length ? 0 : ancestors.length - index;
    if (candidateDepth + height > MAX_PAGE_DEPTH) continue;
    const parentId = index === ancestors.length ? null : ancestors[index]!.id;
    const waitsForParent = page.parent_id !== null && ancestors[0]!.trashed_at !== null;
    const home = waitsForParent ? { parentId: page.parent_id!, position: page.position } : null;
    if (index === 0 || (index === ancestors.length && page.parent_id === null)) {
      return { parentId, position: await tree.keyNear(parentId, page.position, page.id), home };
    }
    const branch = ancestors[index - 1]!;
    const [position] = await tree.keysAfter(parentId, branch.position, 1, page.id);
    return { parentId, position: position!, home };
  }
  throw new Error(`page ${page.id} fits nowhere, not even at the top level`);
}

/** Live pages that waited for one of `restoredIds` go back under it, where the tree has room. */
async function bringHomeWaitingPages(tree: PageTree, restoredIds: readonly string[]): Promise<void> {
  for (const page of await tree.waitingFor(restoredIds)) {
    const home = page.home_parent_id!;
    const homeAncestors = await tree.ancestors(home);
    const fits = home !== page.id && !homeAncestors.some((ancestor) => ancestor.id === page.id) && homeAncestors.length + 1 + (await tree.liveHeight(page.id)) <= MAX_PAGE_DEPTH;
    if (!fits) {
      await tree.execute(`UPDATE pages SET home_parent_id = NULL, home_position = NULL WHERE id = :id`, { id: page.id });
      continue;
    }
    const position = await tree.keyNear(home, page.home_position!, page.id);
    await tree.execute(
      `UPDATE pages SET parent_id = :home, position = :position, home_parent_id = NULL, home_position = NULL, updated_at = now() WHERE id = :id`,
      { home, position, id: page.id },
    );
  }
}

/**
 * Restores a trashed page together with the descendants trashed with it. Needs write on all
 * of them (403 with nothing changed otherwise). Search vectors are rebuilt.
 */
export async function restorePage(sequelize: Sequelize, props: RestorePageProps): Promise<string[]> {
  const pondId = props.access.data.pondId;
  return sequelize.transaction(async (transaction) => {
    await lockPondTree(sequelize, pondId, transaction);
    const tree = new PageTree(sequelize, pondId, transaction);
    const page = await lockedPage(tree, props.pageId);
    assertTrashed(page);
    const group = await tree.trashGroup(page);
    const blocked = group.filter((row) => !props.access.page({ id: row.id, trashedAt: row.trashed_at }, 'write').allowed);
    if (blocked.length > 0) throw forbidden({ reason: 'pages_not_writable', count: blocked.length });
    const target = await restoreTarget(tree, page, Math.max(...group.map((row) => row.level)));
    // Placed while still trashed: the live-sibling index only sees the page once it is live.
    await tree.execute(
      `UPDATE pages SET parent_id = :parentId, position = :position, home_parent_id = :homeParentId, home_position = :homePosition WHERE id = :pageId`,
      { parentId: target.parentId, position: target.position, homeParentId: target.home?.parentId ?? null, homePosition: target.home?.position ?? null, pageId: page.id },
    );
    const pageIds = group.map((row) => row.id);
    await tree.execute(`UPDATE pages SET trashed_at = NULL, trashed_by = NULL, updated_at = now() WHERE id IN (:pageIds)`, { pageIds });
    await bringHomeWaitingPages(tree, pageIds);
    await reindexPages(pageIds, transaction);
    await syncLinksToPages(sequelize, pageIds, transaction);
    await queuePageChanges(transaction, pondId, pageIds, { treeChanged: true });
    return pageIds;
  });
}

export interface PurgePageOptions {
  dataDir: string;
  logger?: Logger | undefined;
}

/**
 * Removes a trashed page for good: its remaining children move up to its parent (at its
 * place, still trashed, so they stay restorable), then one DELETE takes the page with its
 * content cache, update log, attachments, watches, favorites, labels and page-scope grants
 * (every reference cascades). Attachment bytes are removed after the commit.
 */
export async function purgePage(sequelize: Sequelize, pageId: string, options: PurgePageOptions): Promise<void> {
  const located = await sequelize.query<{ pond_id: string }>('SELECT pond_id FROM pages WHERE id = :pageId', { replacements: { pageId }, type: QueryTypes.SELECT });
  const pondId = located[0]?.pond_id;
  if (!pondId) throw notFound();
  const fileIds = await sequelize.transaction(async (transaction) => {
    // A page can outlive its retention inside a trashed pond; the scheduled purge still takes it.
    await lockPondTree(sequelize, pondId, transaction, { allowTrashed: true });
    const tree = new PageTree(sequelize, pondId, transaction);
    const page = await lockedPage(tree, pageId);
    assertTrashed(page);
    await moveChildrenAfter(tree, await tree.allChildren(page.id), page.parent_id, page.position, page.id);
    const files = await tree.query<{ id: string }>('SELECT id FROM files WHERE page_id = :pageId OR (page_id IS NULL AND upload_page_id = :pageId) FOR UPDATE', { pageId });
    // Claimed files cascade with the page; unclaimed uploads to it go explicitly (their key only forgets the page).
    await tree.execute('DELETE FROM files WHERE page_id IS NULL AND upload_page_id = :pageId', { pageId });
    await tree.execute('DELETE FROM pages WHERE id = :pageId', { pageId });
    // Its page-scope grants and label assignments are gone with it; every process's cache must know.
    await announceAccessChange(pondId, transaction);
    return files.map((file) => file.id);
  });
  await removeStoredFiles(options.dataDir, fileIds, options.logger);
}

const PURGE_BATCH = 200;

/**
 * The scheduled purge: every page trashed longer than `trash.retentionDays` ago, one
 * transaction each (a long trash never holds a pond lock for long).
 */
export async function purgeExpiredTrash(
  sequelize: Sequelize,
  options: { dataDir: string; now?: Date; retentionDays?: number; logger?: Logger },
): Promise<{ purged: number }> {
  const retentionDays = options.retentionDays ?? (await getSetting('trash.retentionDays'));
  const cutoff = new Date((options.now ?? new Date()).getTime() - retentionDays * 86_400_000);
  const attempted = new Set<string>();
  let purged = 0;
  for (;;) {
    const rows = await sequelize.query<{ id: string }>(
      `SELECT id FROM pages WHERE trashed_at < :cutoff AND NOT (id = ANY (ARRAY[:attempted]::uuid[])) ORDER BY trashed_at, id LIMIT ${PURGE_BATCH}`,
      { replacements: { cutoff, attempted: [...attempted, '00000000-0000-0000-0000-000000000000'] }, type: QueryTypes.SELECT },
    );
    if (rows.length === 0) return { purged };
    for (const { id } of rows) {
      attempted.add(id);
      try {
        await purgePage(sequelize, id, options);
        purged += 1;
      } catch (error) {
        // Restored or purged by hand meanwhile: nothing left to do for this page.
        if (error instanceof ApiError && (error.code === 'not_found' || error.code === 'page_not_trashed')) continue;
        throw error;
      }
    }
  }
}
