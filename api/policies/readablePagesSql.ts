/**
 * The bulk read policy inside SQL: "which live pages of these ponds may the subject read" as a
 * predicate over a `pages` row, so a query filters before its LIMIT (search, and any list that
 * must not page through rows it then throws away). The rules come from the grant resolver
 * (`SubjectAccess.liveReadRules`); this module only applies their precedence:
 *
 *   bypass → page-scope allow / deny → any denying label → any allowing label → pond level.
 *
 * A label rule is tested on the row itself (`pages.label_ids`, kept by a trigger), so the
 * predicate needs no join and its parameters stay small: ids of ponds, labels, and pages with
 * page-scope grants. Arrays are looked up by hash (constant arrays of a one-shot plan).
 * `readablePagesSql.test.ts` checks the predicate against `SubjectAccess.page` on generated
 * ponds.
 */
import type { SubjectAccess } from './grantResolution.ts';

/**
 * Positional parameters of one statement: `add` returns the placeholder of a new one. The
 * same array object added twice is sent once (a predicate used in several parts of a statement).
 */
export class SqlParameters {
  readonly values: unknown[] = [];
  private readonly placeholders = new Map<unknown, string>();

  add(value: unknown, cast?: string): string {
    const shared = typeof value === 'object' && value !== null;
    const known = shared ? this.placeholders.get(value) : undefined;
    if (known) return known;
    this.values.push(value);
    const placeholder = `$${this.values.length}${cast ? `::${cast}` : ''}`;
    if (shared) this.placeholders.set(value, placeholder);
    return placeholder;
  }
}

/** The rules of several ponds merged (ids are unique across ponds). */
export interface ReadablePagesLists {
  ponds: string[];
  bypassPonds: string[];
  readPonds: string[];
  allowPages: string[];
  denyPages: string[];
  /** Ponds with label rules, and the labels whose chain allows or denies reading. */
  labelRulePonds: string[];
  allowLabels: string[];
  denyLabels: string[];
}

export function readablePagesLists(accesses: readonly SubjectAccess[]): ReadablePagesLists {
  const lists: ReadablePagesLists = { ponds: [], bypassPonds: [], readPonds: [], allowPages: [], denyPages: [], labelRulePonds: [], allowLabels: [], denyLabels: [] };
  for (const access of accesses) {
    const rules = access.liveReadRules();
    if (rules.bypass === 'none') continue;
    const pondId = access.data.pondId;
    lists.ponds.push(pondId);
    if (rules.bypass === 'all') {
      lists.bypassPonds.push(pondId);
      continue;
    }
    if (rules.pondAllows) lists.readPonds.push(pondId);
    lists.allowPages.push(...rules.allowPageIds);
    lists.denyPages.push(...rules.denyPageIds);
    if (rules.allowLabelIds.length > 0 || rules.denyLabelIds.length > 0) {
      lists.labelRulePonds.push(pondId);
      lists.allowLabels.push(...rules.allowLabelIds);
      lists.denyLabels.push(...rules.denyLabelIds);
    }
  }
  return lists;
}

/**
 * The predicate "the subject may read this live page" over the `pages` row aliased `page`,
 * for pages of the listed ponds (pages of other ponds never pass). Trashed pages and trashed
 * ponds are the caller's to exclude (search does through the vectors being null).
 */
export function readableLivePagesSql(page: string, lists: ReadablePagesLists, parameters: SqlParameters): string {
  if (lists.ponds.length === 0) return 'false';
  const inList = (column: string, ids: string[]) => `${column} = ANY (${parameters.add(ids, 'uuid[]')})`;
  const pondLevel = lists.readPonds.length > 0 ? inList(`${page}.pond_id`, lists.readPonds) : 'false';
  let fallThrough = pondLevel;
  if (lists.labelRulePonds.length > 0) {
    const steps = [
      lists.denyLabels.length > 0 ? `WHEN ${page}.label_ids && ${parameters.add(lists.denyLabels, 'uuid[]')} THEN false` : '',
      lists.allowLabels.length > 0 ? `WHEN ${page}.label_ids && ${parameters.add(lists.allowLabels, 'uuid[]')} THEN true` : '',
    ].join(' ');
    fallThrough = `(CASE WHEN ${inList(`${page}.pond_id`, lists.labelRulePonds)} THEN (CASE ${steps} ELSE ${pondLevel} END) ELSE ${pondLevel} END)`;
  }
  const alternatives: string[] = [];
  if (lists.bypassPonds.length > 0) alternatives.push(inList(`${page}.pond_id`, lists.bypassPonds));
  if (lists.allowPages.length > 0) alternatives.push(inList(`${page}.id`, lists.allowPages));
  alternatives.push(lists.denyPages.length > 0 ? `(NOT ${inList(`${page}.id`, lists.denyPages)} AND ${fallThrough})` : fallThrough);
  // One opaque clause (coalesce) with a moderate selectivity guess. As separate clauses, the
  // planner multiplied a guess for each part into a tiny row estimate, and combined the pond
  // index with the vector index (BitmapAnd): building a bitmap of every page of the caller's
  // ponds cost more (2-5 ms) than the rows it saved the scan from reading (bench:search).
  return `coalesce(${inList(`${page}.pond_id`, lists.ponds)} AND (${alternatives.join(' OR ')}), false)`;
}
