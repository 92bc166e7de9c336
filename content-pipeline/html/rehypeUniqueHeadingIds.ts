/**
 * rehype plugin: every heading gets an `id`, unique within the page. A heading keeps the id
 * stored in the document; one without an id gets one from its text; a repeated id gets `-2`,
 * `-3` … in document order (the same rule the Markdown reader uses for derived ids).
 *
 * A plain recursive walk, not unist-util-visit: that one builds a named closure per node
 * (Object.defineProperty of `name`), which cost ~2 ms of the ~6 ms HTML render of a
 * 5,000-word page on every save (issue 6, benchmark (e)).
 */
import type { Element, ElementContent, Root, RootContent } from 'hast';
// The Markdown reader's slug rule, so a derived id is the same whichever way a page came in.
import { headingSlug } from '../markdown/headingIds.ts';

const HEADING = /^h[1-6]$/;

function textOf(node: Element): string {
  return node.children.map((child) => (child.type === 'text' ? child.value : child.type === 'element' ? textOf(child) : '')).join('');
}

/** Elements in document order (pre-order, through `children` only, as unist-util-visit). */
function eachElement(nodes: readonly (RootContent | ElementContent)[], visit: (node: Element) => void): void {
  for (const node of nodes) {
    if (node.type !== 'element') continue;
    visit(node);
    eachElement(node.children, visit);
  }
}

export default function rehypeUniqueHeadingIds() {
  return (tree: Root): undefined => {
    const taken = new Set<string>();
    eachElement(tree.children, (node) => {
      if (!HEADING.test(node.tagName)) return;
      const stored = typeof node.properties.id === 'string' ? node.properties.id.trim() : '';
      const base = stored || headingSlug(textOf(node));
      let id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
      taken.add(id);
      node.properties.id = id;
    });
  };
}
