
/**
 * Creating and renaming pages. Both serialize on the pond row (api/ponds/pondLock.ts), so two
 * creations never pick the same position or derived slug, and a pond trashed meanwhile
 * refuses the write. The unique slug index stays the final word: a derived slug that lost
 * a race is derived again, a given one answers `slug_taken`.
 */
import type { Sequelize } from 'sequelize';
import { documentToYjsUpdate, EMPTY_DOCUMENT, markdownToDocument } from '../../content-pipeline/index.ts';
import { renderDocument, saveRenderedData, type RenderedDocument } from '../documents/derivedData.ts';
import { appendUpdates, transactionClient } from '../documents/documentLog.ts';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { Page, type Pond } from '../models/index.ts';
import { autoWatchPage } from '../notifications/notificationFanOut.ts';
import { syncLinksToPages } from '../pages/linkResolution.ts';
import { derivePageSlug, isPageSlugConflict, pageSlugTaken } from '../pages/pageSlugs.ts';
import { assertUsableLiveParent, placementKey, TreeFieldError, type Placement } from '../pages/pagePlacement.ts';
import { MAX_PAGE_DEPTH, PageTree } from '../pages/pageTree.ts';
import { lockPondTree } from '../ponds/pondLock.ts';
import { queuePageChanges } from '../publicPages/publicDocumentQueue.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { reindexPages } from '../search/pageSearchIndex.ts';

// A derived slug can lose a race only to a writer that does not take the pond lock.
const DERIVED_SLUG_ATTEMPTS = 3;

export interface CreatePageInput extends Placement {
  title: string;
  slug?: string | undefined;
  parentId?: string | null | undefined;
  markdown?: string | undefined;
}

export interface CreatePageProps {
  pond: Pond;
  /** The creator's resolved access to the pond (judges the parent). */
  access: SubjectAccess;
  userId: string;
  input: CreatePageInput;
  locale: () => Promise<Locale>;
}

/** The page's first document, rendered before any lock is taken. */
interface InitialBody {
  update: Uint8Array;
  rendered: RenderedDocument;
}

function initialBody(markdown: string | undefined): InitialBody {
  const document = markdown ? markdownToDocument(markdown) : EMPTY_DOCUMENT;
  return { update: documentToYjsUpdate(document), rendered: renderDocument(document) };
}

async function createPageOnce(sequelize: Sequelize, props: CreatePageProps, body: InitialBody): Promise<Page> {
  const { pond, input, userId } = props;
  return sequelize.transaction(async (transaction) => {
    await lockPondTree(sequelize, pond.id, transaction);
    const tree = new PageTree(sequelize, pond.id, transaction);
    const parentId = input.parentId ?? null;
    if (parentId !== null) {
      await assertUsableLiveParent(tree, props.access, parentId);
      if ((await tree.depth(parentId)) + 1 > MAX_PAGE_DEPTH) throw new ApiError('page_depth_exceeded', 409, { maxDepth: MAX_PAGE_DEPTH });
    }
    let slug: string;
    if (input.slug !== undefined) {
      if (await pageSlugTaken(sequelize, pond.id, input.slug, { transaction })) throw new ApiError('slug_taken', 409, { slug: input.slug });
      slug = input.slug;
    } else slug = await derivePageSlug(sequelize, pond.id, input.title, transaction);
    const position = await placementKey(tree, props.access, parentId, input, null);
    const page = await Page.create(
      {
        pondId: pond.id,
        slug,
        title: input.title,
        parentId,
        position,
        createdBy: userId,
        updatedBy: userId,
      },
      { transaction },
    );
    // Every page has a document log and derived data from birth; links to its slug resolve.
    await appendUpdates(transactionClient(transaction), [{ pageId: page.id, update: body.update }]);
    await saveRenderedData(sequelize, { pageId: page.id, rendered: body.rendered, authorIds: [userId] }, transaction);
    await syncLinksToPages(sequelize, [page.id], transaction);
    await queuePageChanges(transaction, pond.id, [page.id], { treeChanged: true });
    // The creator follows their page when their preference says so.
    await autoWatchPage(sequelize, { userId, pageId: page.id, pondId: pond.id, preference: 'ownPages' }, transaction);
    return page;
  });
}

/** Creates a page at the given place among its siblings, by default last. */
export async function createPage(sequelize: Sequelize, props: CreatePageProps): Promise<Page> {
  const body = initialBody(props.input.markdown);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createPageOnce(sequelize, props, body);
    } catch (error) {
      if (error instanceof TreeFieldError) throw await error.toApiError(props.locale);
      if (!isPageSlugConflict(error)) throw error;
      if (props.input.slug !== undefined) throw uniqueViolationError(error, { slug: props.input.slug }) ?? error;
      if (attempt >= DERIVED_SLUG_ATTEMPTS) throw error;
    }
  }
}

export interface UpdatePageProps {
  page: Page;
  userId: string;
  title?: string | undefined;
  slug?: string | undefined;
}

/** Renames a page and/or changes its slug. The slug never follows the title on its own: URLs stay stable. */
export async function updatePage(sequelize: Sequelize, props: UpdatePageProps): Promise<Page> {
  try {
    return await sequelize.transaction(async (transaction) => {
      await lockPondTree(sequelize, props.page.pondId, transaction);
      const page = await Page.findByPk(props.page.id, { transaction, lock: transaction.LOCK.UPDATE });
      if (!page) throw notFound();
      if (page.trashedAt) throw new ApiError('page_trashed', 404, { trashedAt: page.trashedAt.toISOString() });
      const titleChanged = props.title !== undefined && props.title !== page.title;
      const slugChanged = props.slug !== undefined && props.slug !== page.slug;
      if (slugChanged && (await pageSlugTaken(sequelize, page.pondId, props.slug!, { exceptPageId: page.id, transaction }))) {
        throw new ApiError('slug_taken', 409, { slug: props.slug });
      }
      if (!titleChanged && !slugChanged) return page;
      if (titleChanged) page.title = props.title!;
      if (slugChanged) page.slug = props.slug!;
      page.updatedBy = props.userId;
      await page.save({ transaction });
      if (titleChanged) await reindexPages([page.id], transaction);
      if (slugChanged) await syncLinksToPages(sequelize, [page.id], transaction);
      await queuePageChanges(transaction, page.pondId, [page.id], { treeChanged: true });
      return page;
    });
  } catch (error) {
    throw uniqueViolationError(error, { slug: props.slug }) ?? error;
  }
}
