/**
 * The bulk read policy inside SQL: "which live pages of these ponds may the subject read" as a
 * predicate over a `pages` row, so a query filters before its LIMIT (search, and any list that
 * must not page through rows it then throws away). The rules come from the grant resolver
 * (`SubjectAccess.liveReadRules`); this module only applies their precedence:
 *
 *   bypass → page-scope allow / deny → any denying label → any allowing label → pond level.
 *
 * Ids travel as array parameters, which Postgres looks up by hash (constant arrays of a
 * one-shot plan), so the predicate costs the same per row for 10 or 10,000 exceptions.
 * `readablePagesSql.test.ts` checks it against `SubjectAccess.page` on generated ponds.
 */
import type { SubjectAccess } from './grantResolution.ts';

/** Positional parameters of one statement: `add` returns the placeholder of a new one. */
export class SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }
}

/**
 * The predicate "the subject may read this live page" over the `pages` row aliased `page`,
 * for pages of the ponds in `accesses` (pages of other ponds never pass). Trashed pages and
 * trashed ponds are the caller's to exclude (search does through the vectors being null).
 */
export function readableLivePagesSql(page: string, accesses: readonly SubjectAccess[], parameters: SqlParameters): string {
  const allPonds: string[] = [];
  const readPonds: string[] = [];
  const allowPages: string[] = [];
  const denyPages: string[] = [];
  const allowLabels: string[] = [];
  const denyLabels: string[] = [];
  const labelRulePonds: string[] = [];
  const considered: string[] = [];
  for (const access of accesses) {
    const rules = access.liveReadRules();
    const pondId = access.data.pondId;
    if (rules.bypass === 'none') continue;
    considered.push(pondId);
    if (rules.bypass === 'all') {
      allPonds.push(pondId);
      continue;
    }
    if (rules.pondAllows) readPonds.push(pondId);
    allowPages.push(...rules.allowPageIds);
    denyPages.push(...rules.denyPageIds);
    if (rules.allowLabelIds.length > 0 || rules.denyLabelIds.length > 0) {
      labelRulePonds.push(pondId);
      allowLabels.push(...rules.allowLabelIds);
      denyLabels.push(...rules.denyLabelIds);
    }
  }
  if (considered.length === 0) return 'false';
  const inList = (column: string, ids: string[]) => `${column} = ANY (${parameters.add(ids, 'uuid[]')})`;
  const pondLevel = readPonds.length > 0 ? inList(`${page}.pond_id`, readPonds) : 'false';
  const labelled = (ids: string[]) => `EXISTS (SELECT 1 FROM page_labels pl WHERE pl.page_id = ${page}.id AND ${inList('pl.label_id', ids)})`;
  let fallThrough = pondLevel;
  if (labelRulePonds.length > 0) {
    const steps = [
      denyLabels.length > 0 ? `WHEN ${labelled(denyLabels)} THEN false` : '',
      allowLabels.length > 0 ? `WHEN ${labelled(allowLabels)} THEN true` : '',
    ].join(' ');
    fallThrough = `(CASE WHEN ${inList(`${page}.pond_id`, labelRulePonds)} THEN (CASE ${steps} ELSE ${pondLevel} END) ELSE ${pondLevel} END)`;
  }
  const alternatives: string[] = [];
  if (allPonds.length > 0) alternatives.push(inList(`${page}.pond_id`, allPonds));
  if (allowPages.length > 0) alternatives.push(inList(`${page}.id`, allowPages));
  alternatives.push(denyPages.length > 0 ? `(NOT ${inList(`${page}.id`, denyPages)} AND ${fallThrough})` : fallThrough);
  // One opaque clause (coalesce): the planner neither combines the pond index with the caller's
  // index scan (a BitmapAnd reading every page of the ponds to narrow a set the predicate narrows
  // anyway) nor multiplies guesses for each part into a tiny row estimate that makes it scan
  // every match of a common word instead of stopping at the first ones.
  return `coalesce(${inList(`${page}.pond_id`, considered)} AND (${alternatives.join(' OR ')}), false)`;
}
