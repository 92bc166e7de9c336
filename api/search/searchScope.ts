/**
 * Where a search looks: the ponds it covers and the SQL predicate a page must pass there.
 *
 * Without `pondId` a search covers every live pond where some grant reaches the caller: the
 * ponds they belong to (a grant names them or all signed-in users) and the ponds with a public
 * grant. Inside them the bulk read policy decides page by page (readablePagesSql.ts). A Site
 * Admin's bypass lets them read anything, but an unfiltered search does not roam other users'
 * personal ponds: they search there by naming the pond.
 *
 * `pondId` and `labels` narrow further; both must be visible to the caller, else 404 as for
 * anything else they cannot see.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import { isUuid, listReachablePonds, pondVisible, subjectAccessTo, type AccessSubject, type SubjectAccess } from '../policies/accessPolicy.ts';
import { readableLivePagesSql, readablePagesLists, type SqlParameters } from '../policies/readablePagesSql.ts';

export interface SearchScope {
  /** The predicate over the `pages` row aliased `page` (adds its parameters). */
  sql(page: string, parameters: SqlParameters): string;
}

/** Every label of `labelIds` and their descendants, in the ponds of `accesses`; 404 for a label not there. */
function labelsWithDescendants(accesses: readonly SubjectAccess[], labelIds: readonly string[]): string[] {
  const children = new Map<string, string[]>();
  const known = new Set<string>();
  for (const access of accesses) {
    for (const [labelId, parentId] of access.data.labelParents) {
      known.add(labelId);
      if (parentId) children.set(parentId, [...(children.get(parentId) ?? []), labelId]);
    }
  }
  const result = new Set<string>();
  const pending = [...labelIds];
  for (const labelId of labelIds) if (!known.has(labelId)) throw notFound();
  while (pending.length > 0) {
    const labelId = pending.pop()!;
    if (result.has(labelId)) continue;
    result.add(labelId);
    pending.push(...(children.get(labelId) ?? []));
  }
  return [...result];
}

/** The scope of one search request; 404 when `pondId` or a label is not visible to the subject. */
export async function resolveSearchScope(sequelize: Sequelize, subject: AccessSubject, filters: { pondId?: string | null; labelIds?: readonly string[] }): Promise<SearchScope> {
  let accesses: SubjectAccess[];
  if (filters.pondId) {
    const access = isUuid(filters.pondId) ? await subjectAccessTo(sequelize, subject, filters.pondId) : null;
    if (!access || !pondVisible(access)) throw notFound();
    accesses = [access];
  } else {
    accesses = await listReachablePonds(sequelize, subject);
  }
  const labelIds = filters.labelIds ?? [];
  if (labelIds.length > 0 && !filters.pondId) {
    // A label outside the reachable ponds may still be in a pond the subject can see by name.
    const missing = labelIds.filter((labelId) => !accesses.some((access) => access.data.labelParents.has(labelId)));
    if (missing.length > 0) {
      const rows = await sequelize.query<{ pond_id: string }>(`SELECT DISTINCT pond_id FROM labels WHERE id IN (:missing)`, { replacements: { missing }, type: QueryTypes.SELECT });
      for (const row of rows) {
        const access = await subjectAccessTo(sequelize, subject, row.pond_id);
        if (access && pondVisible(access) && !accesses.some((known) => known.data.pondId === row.pond_id)) accesses.push(access);
      }
    }
  }
  const labelSet = labelIds.length > 0 ? labelsWithDescendants(accesses, labelIds) : null;
  const lists = readablePagesLists(accesses);
  return {
    sql(page, parameters) {
      const readable = readableLivePagesSql(page, lists, parameters);
      const labelled = labelSet ? ` AND ${page}.label_ids && ${parameters.add(labelSet, 'uuid[]')}` : '';
      return `(${page}.trashed_at IS NULL AND ${readable}${labelled})`;
    },
  };
}
