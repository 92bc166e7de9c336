/**
 * The page tree as the sidebar island works with it: nodes in sibling order with their parent
 * and descendants, and the position request (`PATCH /pages/:id/position`) for each keyboard
 * move. Pure, so the moves are tested without a browser.
 */
import type { SidebarPage } from './sidebarPages.ts';

/** What the tree needs of a page. */
type TreePage = Pick<SidebarPage, 'id' | 'parentId' | 'slug' | 'title' | 'position'>;

export interface PageTreeNode {
  id: string;
  slug: string;
  title: string;
  parentId: string | null;
  children: PageTreeNode[];
  /** Every page below this one. */
  descendantIds: string[];
}

export type DropPlace = 'before' | 'after' | 'inside';

export type PositionRequest = { parentId: string | null; before: string } | { parentId: string | null; after: string } | { parentId: string | null; index: number };

function bySiblingOrder(a: TreePage, b: TreePage): number {
  // Fractional-index keys compare as plain code units (Postgres' "C" collation does the same).
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Pages whose parent is not in the list (the caller may not read it) stand at the top level. */
export function buildPageTree(pages: readonly TreePage[]): PageTreeNode[] {
  const nodes = new Map<string, PageTreeNode>();
  for (const page of pages) nodes.set(page.id, { id: page.id, slug: page.slug, title: page.title, parentId: null, children: [], descendantIds: [] });
  const roots: PageTreeNode[] = [];
  for (const page of [...pages].sort(bySiblingOrder)) {
    const node = nodes.get(page.id)!;
    const parent = page.parentId ? nodes.get(page.parentId) : undefined;
    if (parent) {
      node.parentId = parent.id;
      parent.children.push(node);
    } else roots.push(node);
  }
  const collect = (node: PageTreeNode): string[] => (node.descendantIds = node.children.flatMap((child) => [child.id, ...collect(child)]));
  roots.forEach(collect);
  return roots;
}

function locate(tree: PageTreeNode[], id: string, parent: PageTreeNode | null = null): { siblings: PageTreeNode[]; index: number; parent: PageTreeNode | null } | null {
  const index = tree.findIndex((node) => node.id === id);
  if (index >= 0) return { siblings: tree, index, parent };
  for (const node of tree) {
    const found = locate(node.children, id, node);
    if (found) return found;
  }
  return null;
}

/**
 * The request that moves a page one step: up or down among its siblings, in (to the end of the
 * previous sibling's children), out (right after its parent). Null when there is no such step.
 */
export function moveRequest(tree: PageTreeNode[], id: string, direction: 'up' | 'down' | 'in' | 'out'): PositionRequest | null {
  const at = locate(tree, id);
  if (!at) return null;
  const parentId = at.parent?.id ?? null;
  const previous = at.siblings[at.index - 1];
  const next = at.siblings[at.index + 1];
  if (direction === 'up') return previous ? { parentId, before: previous.id } : null;
  if (direction === 'down') return next ? { parentId, after: next.id } : null;
  if (direction === 'in') return previous ? { parentId: previous.id, index: previous.children.length } : null;
  if (!at.parent) return null;
  return { parentId: at.parent.parentId, after: at.parent.id };
}

/** The ancestors of a page, top first (for breadcrumbs); the pages list as the caller may read it. */
export function ancestorsOf<T extends Pick<TreePage, 'id' | 'parentId'>>(pages: readonly T[], pageId: string): T[] {
  const byId = new Map(pages.map((page) => [page.id, page]));
  const chain: T[] = [];
  const seen = new Set<string>([pageId]);
  for (let id = byId.get(pageId)?.parentId; id && !seen.has(id); id = byId.get(id)?.parentId) {
    const parent = byId.get(id);
    if (!parent) break;
    seen.add(id);
    chain.unshift(parent);
  }
  return chain;
}
