/**
 * Page slugs: flat and unique within a pond, compared case-insensitively, trashed pages
 * included (a restored page keeps its URL). The unique index `pages_slug_key` on
 * `(pond_id, lower(slug))` is the final word; these helpers only avoid running into it.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { violatedUniqueIndex } from '../db/uniqueViolations.ts';
import { firstFreeSlug, slugify } from '../ponds/slugs.ts';

/** A title with nothing slug-worthy in it (e.g. only punctuation or emoji) gets this base. */
export const FALLBACK_PAGE_SLUG = 'page';

/** Whether another page of the pond already holds `slug` (case-insensitively). */
export async function pageSlugTaken(sequelize: Sequelize, pondId: string, slug: string, options: { exceptPageId?: string; transaction: Transaction }): Promise<boolean> {
  const rows = await sequelize.query<{ taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pages WHERE pond_id = :pondId AND lower(slug) = lower(:slug) AND id <> :exceptPageId) AS taken`,
    {
      // The nil uuid never names a page: "no exception" without a second SQL variant.
      replacements: { pondId, slug, exceptPageId: options.exceptPageId ?? '00000000-0000-0000-0000-000000000000' },
      type: QueryTypes.SELECT,
      transaction: options.transaction,
    },
  );
  return rows[0]?.taken ?? false;
}

/**
 * The slug for a page created without one: the title slugified, with `-<n>` appended on
 * collision. One query loads every slug the base could collide with.
 */
export async function derivePageSlug(sequelize: Sequelize, pondId: string, title: string, transaction: Transaction): Promise<string> {
  const base = slugify(title) || FALLBACK_PAGE_SLUG;
  const rows = await sequelize.query<{ slug: string }>(
    // LIKE treats `_` and `%` as wildcards; slugs contain neither, so the pattern is exact.
    `SELECT lower(slug) AS slug FROM pages WHERE pond_id = :pondId AND (lower(slug) = :base OR lower(slug) LIKE :pattern)`,
    { replacements: { pondId, base, pattern: `${base}-%` }, type: QueryTypes.SELECT, transaction },
  );
  return firstFreeSlug(base, new Set(rows.map((row) => row.slug)));
}

/** A concurrent writer took the slug between our check and our write. */
export function isPageSlugConflict(error: unknown): boolean {
  return violatedUniqueIndex(error) === 'pages_slug_key';
}
