import type { Label } from '../models/index.ts';

export interface LabelView {
  id: string;
  pondId: string;
  parentId: string | null;
  name: string;
  color: string;
  /** 1 for a root label. */
  depth: number;
  createdAt: string;
  updatedAt: string;
}

export interface PageLabelsView {
  pageId: string;
  labelIds: string[];
  labels: LabelView[];
}

export function presentLabel(label: Label, depth: number): LabelView {
  return {
    id: label.id,
    pondId: label.pondId,
    parentId: label.parentId,
    name: label.name,
    color: label.color,
    depth,
    createdAt: label.createdAt.toISOString(),
    updatedAt: label.updatedAt.toISOString(),
  };
}

// Case-insensitive, but "Ä" stays apart from "A" so the order is stable and readable.
const byName = new Intl.Collator('en', { sensitivity: 'accent' });

function compareSiblings(a: Label, b: Label): number {
  return byName.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The labels of one pond in tree order: depth-first, parents before their children,
 * siblings by name (case-insensitively). `only` keeps just those labels, still in tree order
 * and with their real depth.
 */
export function presentLabelTree(labels: readonly Label[], only?: ReadonlySet<string>): LabelView[] {
  const children = new Map<string | null, Label[]>();
  const ids = new Set(labels.map((label) => label.id));
  for (const label of labels) {
    // A parent outside the given rows cannot happen (same-pond foreign key); treat it as a root.
    const parentKey = label.parentId !== null && ids.has(label.parentId) ? label.parentId : null;
    const siblings = children.get(parentKey);
    if (siblings) siblings.push(label);
    else children.set(parentKey, [label]);
  }
  for (const siblings of children.values()) siblings.sort(compareSiblings);
  const views: LabelView[] = [];
  const visited = new Set<string>();
  const walk = (parentKey: string | null, depth: number): void => {
    for (const label of children.get(parentKey) ?? []) {
      if (visited.has(label.id)) continue;
      visited.add(label.id);
      if (!only || only.has(label.id)) views.push(presentLabel(label, depth));
      walk(label.id, depth + 1);
    }
  };
  walk(null, 1);
  return views;
}
