/**
 * `PATCH /pages/:id/position`: reorder a page among its siblings and, in the same step,
 * give it a new parent. The whole move runs in one transaction under the pond row lock, so
 * the cycle and depth checks see the tree exactly as the write leaves it: of two concurrent
 * moves "A under B" and "B under A", the second finds the cycle the first made possible.
 */
import type { Sequelize } from 'sequelize';
import { ApiError, forbidden } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { Page } from '../models/index.ts';
import { assertParentAccess, assertUsableLiveParent, placementKey, withTreeFieldErrors, type Placement } from '../pages/pagePlacement.ts';
import { MAX_PAGE_DEPTH, PageTree } from '../pages/pageTree.ts';
import { lockPondTree } from '../ponds/pondLock.ts';
import { queuePageChanges } from '../publicPages/publicDocumentQueue.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';

export interface MovePageInput extends Placement {
  /** Absent keeps the parent; null moves the page to the top level. */
  parentId?: string | null | undefined;
}

export interface MovePageProps {
  pageId: string;
  /** The mover's resolved access to the page's pond. */
  access: SubjectAccess;
  userId: string;
  input: MovePageInput;
  locale: () => Promise<Locale>;
}

/**
 * Moves a page. The caller needs write on the page (the route checks it) and on the target
 * parent (on the pond for the top level), also when the parent stays. Refuses a
 * parent inside the page's own subtree (`page_cycle`) and a result deeper than
 * `MAX_PAGE_DEPTH` for any page of the moved subtree (`page_depth_exceeded`, 409).
 */
export async function movePage(sequelize: Sequelize, props: MovePageProps): Promise<Page> {
  const { access, input } = props;
  const pondId = access.data.pondId;
  const pageId = await withTreeFieldErrors(props.locale, () =>
    sequelize.transaction(async (transaction) => {
      await lockPondTree(sequelize, pondId, transaction);
      const tree = new PageTree(sequelize, pondId, transaction);
      const page = await tree.lockRow(props.pageId);
      if (!page) throw new ApiError('not_found', 404);
      if (page.trashed_at) throw new ApiError('page_trashed', 404, { trashedAt: page.trashed_at.toISOString() });
      const parentId = input.parentId === undefined ? page.parent_id : input.parentId;
      // The order of a sibling group belongs to its parent: even a reorder in place needs write on it.
      if (parentId === null) {
        if (!access.pond('write').allowed) throw forbidden();
      } else if (parentId === page.parent_id) {
        // A reorder in place: the parent of a live page is live, and neither cycle nor depth can change.
        assertParentAccess(access, parentId);
      } else await assertUsableParent(tree, access, page.id, parentId);
      const position = await placementKey(tree, access, parentId, input, page.id);
      await tree.execute(
        `UPDATE pages SET parent_id = :parentId, position = :position, home_parent_id = NULL, home_position = NULL, updated_at = now()
          WHERE id = :pageId`,
        { parentId, position, pageId: page.id },
      );
      await queuePageChanges(transaction, pondId, [page.id], { treeChanged: true });
      return page.id;
    }),
  );
  return (await Page.findByPk(pageId))!;
}

/** The new parent must be live, readable and writable, outside the page's subtree, and leave room for it. */
async function assertUsableParent(tree: PageTree, access: SubjectAccess, pageId: string, parentId: string): Promise<void> {
  if (parentId === pageId) throw new ApiError('page_cycle', 409, { parentId });
  await assertUsableLiveParent(tree, access, parentId);
  const ancestors = await tree.ancestors(parentId);
  if (ancestors.some((ancestor) => ancestor.id === pageId)) throw new ApiError('page_cycle', 409, { parentId });
  const depth = ancestors.length + 1 + (await tree.liveHeight(pageId));
  if (depth > MAX_PAGE_DEPTH) throw new ApiError('page_depth_exceeded', 409, { maxDepth: MAX_PAGE_DEPTH, depth });
}
