/**
 * Creating and renaming pages. Both serialize on the pond row (`FOR UPDATE`), so two
 * creations never pick the same position or derived slug, and a pond trashed meanwhile
 * refuses the write. The unique slug index stays the final word: a derived slug that lost
 * a race is derived again, a given one answers `slug_taken`.
 */
import { generateKeyBetween } from 'fractional-indexing';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ApiError, forbidden, notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { Page, type Pond } from '../models/index.ts';
import { derivePageSlug, isPageSlugConflict, pageSlugTaken } from '../pages/pageSlugs.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { reindexPages } from '../search/pageSearchIndex.ts';

/** Spec, Limits: a root page has depth 1; no page may be deeper than this. */
export const MAX_PAGE_DEPTH = 6;

// A derived slug can lose a race only to a writer that does not take the pond lock.
const DERIVED_SLUG_ATTEMPTS = 3;

const INVALID_PARENT_MESSAGE: Record<Locale, string> = {
  en: 'Choose a page of this pond that is not in the trash and that you can read.',
  de: 'Wähle eine Seite dieses Teichs, die nicht im Papierkorb liegt und die du lesen kannst.',
};

export interface CreatePageInput {
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

/**
 * Thrown inside the transaction and localized outside it: the locale lookup may need a
 * connection of its own, which must not be awaited while holding the pond lock.
 */
class InvalidParentError extends Error {}

/** Locks the pond row for this transaction; refuses a pond in the trash. */
async function lockLivePond(sequelize: Sequelize, pondId: string, transaction: Transaction): Promise<void> {
  const rows = await sequelize.query<{ trashed_at: Date | null }>(`SELECT id, trashed_at FROM ponds WHERE id = :pondId FOR UPDATE`, {
    replacements: { pondId },
    type: QueryTypes.SELECT,
    transaction,
  });
  const pond = rows[0];
  if (!pond) throw notFound();
  if (pond.trashed_at) throw new ApiError('pond_trashed', 409);
}

/**
 * The parent a new page goes under. Missing, elsewhere, trashed and unreadable all answer
 * the same field error, so the answer reveals nothing the caller cannot see; readable but
 * not writable is 403.
 */
async function usableParent(props: CreatePageProps, parentId: string, transaction: Transaction): Promise<Page> {
  const parent = await Page.findOne({ where: { id: parentId, pondId: props.pond.id }, transaction });
  if (!parent || parent.trashedAt || !props.access.page(parent, 'read').allowed) throw new InvalidParentError();
  if (!props.access.page(parent, 'write').allowed) throw forbidden();
  return parent;
}

/** The depth of a page (root = 1), counted up to one level past the limit. */
async function pageDepth(sequelize: Sequelize, pageId: string, transaction: Transaction): Promise<number> {
  const rows = await sequelize.query<{ depth: number | null }>(
    `WITH RECURSIVE chain (id, parent_id, depth) AS (
         SELECT id, parent_id, 1 FROM pages WHERE id = :pageId
       UNION ALL
         SELECT p.id, p.parent_id, c.depth + 1 FROM pages p JOIN chain c ON p.id = c.parent_id WHERE c.depth <= :maxDepth
     )
     SELECT max(depth) AS depth FROM chain`,
    { replacements: { pageId, maxDepth: MAX_PAGE_DEPTH }, type: QueryTypes.SELECT, transaction },
  );
  return rows[0]?.depth ?? 0;
}

/**
 * The greatest position in the sibling group. Trashed siblings count: they keep their
 * position, and a restored page must not collide with a newer one.
 */
async function lastSiblingPosition(sequelize: Sequelize, pondId: string, parentId: string | null, transaction: Transaction): Promise<string | null> {
  const rows = await sequelize.query<{ position: string | null }>(
    `SELECT max(position) AS position FROM pages WHERE pond_id = :pondId AND ${parentId === null ? 'parent_id IS NULL' : 'parent_id = :parentId'}`,
    { replacements: { pondId, parentId }, type: QueryTypes.SELECT, transaction },
  );
  return rows[0]?.position ?? null;
}

async function createPageOnce(sequelize: Sequelize, props: CreatePageProps): Promise<Page> {
  const { pond, input, userId } = props;
  return sequelize.transaction(async (transaction) => {
    await lockLivePond(sequelize, pond.id, transaction);
    const parent = input.parentId ? await usableParent(props, input.parentId, transaction) : null;
    if (parent && (await pageDepth(sequelize, parent.id, transaction)) + 1 > MAX_PAGE_DEPTH) {
      throw new ApiError('page_depth_exceeded', 409, { maxDepth: MAX_PAGE_DEPTH });
    }
    let slug: string;
    if (input.slug !== undefined) {
      if (await pageSlugTaken(sequelize, pond.id, input.slug, { transaction })) throw new ApiError('slug_taken', 409, { slug: input.slug });
      slug = input.slug;
    } else slug = await derivePageSlug(sequelize, pond.id, input.title, transaction);
    const parentId = parent?.id ?? null;
    const position = generateKeyBetween(await lastSiblingPosition(sequelize, pond.id, parentId, transaction), null);
    const page = await Page.create(
      {
        pondId: pond.id,
        slug,
        title: input.title,
        parentId,
        position,
        initialMarkdown: input.markdown ?? null,
        createdBy: userId,
        updatedBy: userId,
      },
      { transaction },
    );
    await reindexPages([page.id], transaction);
    return page;
  });
}

/** Creates a page last among its siblings. */
export async function createPage(sequelize: Sequelize, props: CreatePageProps): Promise<Page> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createPageOnce(sequelize, props);
    } catch (error) {
      if (error instanceof InvalidParentError) {
        const message = INVALID_PARENT_MESSAGE[await props.locale()];
        throw new ApiError('validation_failed', 400, { fields: [{ path: 'parentId', code: 'invalid_parent', message }] });
      }
      if (!isPageSlugConflict(error)) throw error;
      if (props.input.slug !== undefined) throw new ApiError('slug_taken', 409, { slug: props.input.slug });
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
      await lockLivePond(sequelize, props.page.pondId, transaction);
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
      return page;
    });
  } catch (error) {
    if (isPageSlugConflict(error)) throw new ApiError('slug_taken', 409, { slug: props.slug });
    throw error;
  }
}
