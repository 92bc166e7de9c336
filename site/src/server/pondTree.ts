/**
 * The page tree of the app's sidebar, built from the pond's page list as the caller may read
 * it: siblings in their stored order (`position`, then id, as the API orders them), a page
 * whose parent the caller may not read at the top level (the API already sends it with
 * `parentId: null`).
 */
import type { PageSummaryView } from '../../../editor/src/api/apiViews.ts';

export interface TreeNode {
  id: string;
  slug: string;
  title: string;
  children: TreeNode[];
}

function bySiblingOrder(a: PageSummaryView, b: PageSummaryView): number {
  // Positions are fractional-index keys: plain code-unit order, as Postgres' "C" collation.
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function buildTree(pages: readonly PageSummaryView[]): TreeNode[] {
  const nodes = new Map(pages.map((page) => [page.id, { id: page.id, slug: page.slug, title: page.title, children: [] as TreeNode[] }]));
  const roots: TreeNode[] = [];
  for (const page of [...pages].sort(bySiblingOrder)) {
    const node = nodes.get(page.id)!;
    const parent = page.parentId ? nodes.get(page.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** The ids on the way from the top to `pageId` (itself included), so those branches render open. */
export function pathTo(pages: readonly PageSummaryView[], pageId: string | null): Set<string> {
  const parents = new Map(pages.map((page) => [page.id, page.parentId]));
  const path = new Set<string>();
  for (let id: string | null | undefined = pageId; id && !path.has(id); id = parents.get(id)) path.add(id);
  return path;
}
