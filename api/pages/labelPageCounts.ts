/**
 * How many live pages the caller may read carry each label, or the label or one of its
 * descendants (what deleting the label's subtree would touch, shown before the confirmation).
 * One query for the pond's label assignments; readability is decided in memory with the
 * pond's resolved access, so counts never include a page the caller cannot see.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { SubjectAccess } from '../policies/accessPolicy.ts';

export interface LabelPageCounts {
  pageCount: number;
  subtreePageCount: number;
}

export async function labelPageCounts(sequelize: Sequelize, pondId: string, access: SubjectAccess, labels: readonly { id: string; parentId: string | null }[]): Promise<Map<string, LabelPageCounts>> {
  // A pond without labels has nothing to count (and the app reads its labels on every page).
  if (labels.length === 0) return new Map();
  const rows = await sequelize.query<{ label_id: string; page_id: string }>(
    `SELECT pl.label_id, pl.page_id FROM page_labels pl JOIN pages p ON p.id = pl.page_id WHERE p.pond_id = :pondId AND p.trashed_at IS NULL`,
    { replacements: { pondId }, type: QueryTypes.SELECT },
  );
  const readable = new Map<string, boolean>();
  const direct = new Map<string, Set<string>>();
  for (const row of rows) {
    let allowed = readable.get(row.page_id);
    if (allowed === undefined) readable.set(row.page_id, (allowed = access.page({ id: row.page_id, trashedAt: null }, 'read').allowed));
    if (!allowed) continue;
    let pages = direct.get(row.label_id);
    if (!pages) direct.set(row.label_id, (pages = new Set()));
    pages.add(row.page_id);
  }
  const children = new Map<string, string[]>();
  for (const label of labels) if (label.parentId) children.set(label.parentId, [...(children.get(label.parentId) ?? []), label.id]);
  const subtree = (id: string, seen: Set<string>, into: Set<string>): Set<string> => {
    if (seen.has(id)) return into;
    seen.add(id);
    for (const page of direct.get(id) ?? []) into.add(page);
    for (const child of children.get(id) ?? []) subtree(child, seen, into);
    return into;
  };
  return new Map(labels.map((label) => [label.id, { pageCount: direct.get(label.id)?.size ?? 0, subtreePageCount: subtree(label.id, new Set(), new Set()).size }]));
}

/**
 * The labels someone who reads only part of the pond is shown (docs/access-model.md, "Visitors
 * and members"): those on a live page they may read (`pageCount` above 0 in their own counts)
 * and every label above one of them, which names the path ("Projects/2025") and holds the
 * tree together. Labels only on pages hidden from them, and empty ones, stay unseen.
 */
export function labelsAroundReadablePages(labels: readonly { id: string; parentId: string | null }[], counts: ReadonlyMap<string, LabelPageCounts>): Set<string> {
  const parentOf = new Map(labels.map((label) => [label.id, label.parentId]));
  const shown = new Set<string>();
  for (const label of labels) {
    if (!(counts.get(label.id)?.pageCount ?? 0)) continue;
    // `shown` stops the walk where an earlier label's path joined, and guards against a cycle.
    for (let current: string | null | undefined = label.id; current && !shown.has(current); current = parentOf.get(current)) shown.add(current);
  }
  return shown;
}
