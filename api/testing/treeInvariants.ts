/**
 * The invariants of a pond's page tree, checked over a snapshot of its rows by the property
 * and concurrency tests. Each violation is a readable sentence; a sound tree gives none.
 */
import { MAX_PAGE_DEPTH } from '../pages/pageTree.ts';

export interface TreeSnapshotRow {
  id: string;
  parent_id: string | null;
  position: string;
  trashed_at: Date | null;
  home_parent_id: string | null;
  has_vector: boolean;
}

export function treeViolations(rows: readonly TreeSnapshotRow[]): string[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const violations: string[] = [];
  const liveSiblingKeys = new Set<string>();
  for (const row of rows) {
    // No cycles: every chain of parents ends at the top within as many steps as there are pages.
    let depth = 1;
    let cursor = row;
    while (cursor.parent_id !== null && depth <= rows.length) {
      const parent = byId.get(cursor.parent_id);
      if (!parent) {
        violations.push(`${row.id}: ancestor ${cursor.parent_id} does not exist`);
        break;
      }
      cursor = parent;
      depth += 1;
    }
    if (depth > rows.length) violations.push(`${row.id}: its parent chain is a cycle`);
    const live = row.trashed_at === null;
    if (live) {
      // Reachable from the top through live pages only.
      const parent = row.parent_id === null ? null : byId.get(row.parent_id);
      if (parent && parent.trashed_at !== null) violations.push(`${row.id}: live under trashed ${parent.id}`);
      if (depth > MAX_PAGE_DEPTH && depth <= rows.length) violations.push(`${row.id}: live at depth ${depth}`);
      // A total order: no two live siblings share a key.
      const key = `${row.parent_id}|${row.position}`;
      if (liveSiblingKeys.has(key)) violations.push(`${row.id}: shares key ${row.position} with a live sibling`);
      liveSiblingKeys.add(key);
    }
    if (row.has_vector !== live) violations.push(`${row.id}: ${live ? 'live without' : 'trashed with'} a search vector`);
    if (row.home_parent_id !== null) {
      const home = byId.get(row.home_parent_id);
      if (!live) violations.push(`${row.id}: trashed but waiting for a home`);
      if (!home || home.trashed_at === null) violations.push(`${row.id}: waits for ${row.home_parent_id}, which is not in the trash`);
    }
  }
  return violations;
}
