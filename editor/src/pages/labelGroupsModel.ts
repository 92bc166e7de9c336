/**
 * The sidebar's label grouping: the pond's label tree with the pages carrying each label
 * under it (a page with two labels stands under both), and the pages without a label apart.
 * Pages are sorted by title within a group, labels keep the API's tree order.
 */
import type { LabelSummaryView } from '../api/apiViews.ts';
import type { SidebarPage } from './sidebarPages.ts';

export interface LabelGroup {
  label: LabelSummaryView;
  pages: SidebarPage[];
  children: LabelGroup[];
  /** Pages in this group and every group inside it, each counted once. */
  pageCount: number;
}

export interface LabelGrouping {
  groups: LabelGroup[];
  unlabelled: SidebarPage[];
}

const byTitle = (collator: Intl.Collator) => (a: SidebarPage, b: SidebarPage) => collator.compare(a.title, b.title);

export function groupPagesByLabel(pages: readonly SidebarPage[], labels: readonly LabelSummaryView[], locale = 'en'): LabelGrouping {
  const collator = new Intl.Collator(locale, { sensitivity: 'base', numeric: true });
  const groups = new Map<string, LabelGroup>(labels.map((label) => [label.id, { label, pages: [], children: [], pageCount: 0 }]));
  const unlabelled: SidebarPage[] = [];
  for (const page of pages) {
    const known = (page.labelIds ?? []).filter((id) => groups.has(id));
    if (known.length === 0) unlabelled.push(page);
    for (const id of known) groups.get(id)!.pages.push(page);
  }
  const roots: LabelGroup[] = [];
  for (const label of labels) {
    const group = groups.get(label.id)!;
    group.pages.sort(byTitle(collator));
    const parent = label.parentId ? groups.get(label.parentId) : undefined;
    (parent ? parent.children : roots).push(group);
  }
  const count = (group: LabelGroup): Set<string> => {
    const ids = new Set(group.pages.map((page) => page.id));
    for (const child of group.children) for (const id of count(child)) ids.add(id);
    group.pageCount = ids.size;
    return ids;
  };
  roots.forEach(count);
  return { groups: roots, unlabelled: unlabelled.sort(byTitle(collator)) };
}
