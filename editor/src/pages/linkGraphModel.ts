/**
 * The link graph screen's data, apart from drawing: the API's graph (`GET /ponds/:id/links`)
 * turned into nodes (pages and phantom targets) and edges, the slice a label filter keeps,
 * the rows of the list view with their link counts, the search match, and starting positions
 * on a circle so the force layout (and thus the picture) is the same on every load.
 */
import type { LabelSummaryView } from '../api/apiViews.ts';

export interface LinkGraphView {
  nodes: { id: string; title: string; slug: string; labelIds: string[] }[];
  edges: { source: string; target: string }[];
  phantoms: { targetSlug: string; referrerIds: string[] }[];
}

export interface GraphNode {
  /** The page id, or `phantom:<slug>` for a missing target (a slug never contains a colon). */
  key: string;
  kind: 'page' | 'phantom';
  title: string;
  slug: string;
  labelIds: string[];
  linksOut: number;
  linksIn: number;
}

export interface GraphEdge {
  source: string;
  target: string;
  toPhantom: boolean;
}

export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export const phantomKey = (slug: string): string => `phantom:${slug}`;

/** Every node and edge of the view, each node counting its links in and out. */
export function buildGraphData(view: LinkGraphView): GraphData {
  const nodes = new Map<string, GraphNode>();
  for (const page of view.nodes) {
    nodes.set(page.id, { key: page.id, kind: 'page', title: page.title, slug: page.slug, labelIds: page.labelIds, linksOut: 0, linksIn: 0 });
  }
  const edges: GraphEdge[] = [];
  const link = (source: string, target: string, toPhantom: boolean) => {
    const from = nodes.get(source);
    const to = nodes.get(target);
    if (!from || !to) return;
    from.linksOut += 1;
    to.linksIn += 1;
    edges.push({ source, target, toPhantom });
  };
  for (const edge of view.edges) link(edge.source, edge.target, false);
  for (const phantom of view.phantoms) {
    const key = phantomKey(phantom.targetSlug);
    nodes.set(key, { key, kind: 'phantom', title: phantom.targetSlug, slug: phantom.targetSlug, labelIds: [], linksOut: 0, linksIn: 0 });
    for (const referrer of phantom.referrerIds) link(referrer, key, true);
  }
  return { nodes: [...nodes.values()], edges };
}

/** The label and every label inside it, so filtering by a parent keeps its sub-labels' pages. */
export function labelWithDescendants(labels: readonly LabelSummaryView[], labelId: string): Set<string> {
  const found = new Set([labelId]);
  // The API lists labels in tree order, a parent before its children.
  for (const label of labels) if (label.parentId && found.has(label.parentId)) found.add(label.id);
  return found;
}

/**
 * The keys of the nodes shown under a label filter (null: no filter): the pages carrying the
 * label or one inside it, and the phantoms such a page links to.
 */
export function visibleKeys(data: GraphData, labels: readonly LabelSummaryView[], labelId: string | null): Set<string> {
  if (!labelId) return new Set(data.nodes.map((node) => node.key));
  const wanted = labelWithDescendants(labels, labelId);
  const shown = new Set(data.nodes.filter((node) => node.kind === 'page' && node.labelIds.some((id) => wanted.has(id))).map((node) => node.key));
  for (const edge of data.edges) if (edge.toPhantom && shown.has(edge.source)) shown.add(edge.target);
  return shown;
}

/** The list view's rows: pages by title, then the missing targets by slug. */
export function listRows(data: GraphData, shown: ReadonlySet<string>, locale: string): GraphNode[] {
  const collator = new Intl.Collator(locale, { sensitivity: 'base', numeric: true });
  return data.nodes
    .filter((node) => shown.has(node.key))
    .sort((a, b) => (a.kind === b.kind ? collator.compare(a.title, b.title) : a.kind === 'page' ? -1 : 1));
}

/**
 * The node a search names among the shown ones: a title equal to the text first, then one
 * starting with it, then one containing it (letter case and accents aside); pages before phantoms.
 */
export function findNode(data: GraphData, shown: ReadonlySet<string>, text: string): GraphNode | null {
  const fold = (value: string) => value.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  const query = fold(text.trim());
  if (!query) return null;
  const candidates = data.nodes.filter((node) => shown.has(node.key));
  const tests = [(title: string) => title === query, (title: string) => title.startsWith(query), (title: string) => title.includes(query)];
  for (const test of tests) {
    for (const kind of ['page', 'phantom'] as const) {
      const match = candidates.find((node) => node.kind === kind && test(fold(node.title)));
      if (match) return match;
    }
  }
  return null;
}

/** Starting positions on a circle in the API's order (pages by title, then phantoms by slug). */
export function circlePositions(count: number): { x: number; y: number }[] {
  const radius = Math.max(10, Math.sqrt(count) * 10);
  return Array.from({ length: count }, (_, index) => {
    const angle = (2 * Math.PI * index) / Math.max(1, count);
    return { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
  });
}
