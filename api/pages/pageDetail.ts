/**
 * The detail view of one page (read, create, rename, move, restore, version restore all
 * answer with it): the page with its pond, its labels and whether the caller may see its
 * parent and write it. One query, then the page presenter.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import type { Page, Pond } from '../models/index.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { pagePubliclyReadable } from '../policies/publicReading.ts';
import { presentPageDetail, type PageDetailView } from '../presenters/pagePresenter.ts';

interface DetailRow {
  slug: string;
  name: string;
  label_ids: string[];
  parent_trashed_at: Date | null;
}

/** The detail view: pond, labels and the parent's state in one query. */
export async function loadPageDetail(sequelize: Sequelize, page: Page, access: SubjectAccess): Promise<PageDetailView> {
  const rows = await sequelize.query<DetailRow>(
    `SELECT po.slug, po.name,
            ARRAY(SELECT label_id::text FROM page_labels WHERE page_id = :pageId ORDER BY label_id) AS label_ids,
            (SELECT trashed_at FROM pages WHERE id = :parentId) AS parent_trashed_at
       FROM ponds po WHERE po.id = :pondId`,
    { replacements: { pageId: page.id, parentId: page.parentId, pondId: page.pondId }, type: QueryTypes.SELECT },
  );
  const row = rows[0];
  if (!row) throw notFound();
  // The foreign key guarantees the parent row exists whenever parentId is set.
  const parentReadable = page.parentId !== null && access.page({ id: page.parentId, trashedAt: row.parent_trashed_at }, 'read').allowed;
  return presentPageDetail(page, {
    pond: { id: page.pondId, slug: row.slug, name: row.name } satisfies Pick<Pond, 'id' | 'slug' | 'name'>,
    labelIds: row.label_ids,
    parentReadable,
    canWrite: access.page(page, 'write').allowed,
    publicRead: pagePubliclyReadable(access.data, page),
  });
}
