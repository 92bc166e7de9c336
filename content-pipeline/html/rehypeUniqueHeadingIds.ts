/**
 * rehype plugin: every heading gets an `id`, unique within the page. A heading keeps the id
 * stored in the document; one without an id gets one from its text; a repeated id gets `-2`,
 * `-3` … in document order (the same rule the Markdown reader uses for derived ids).
 */
import type { Element, Root } from 'hast';
import { visit } from 'unist-util-visit';
// The Markdown reader's slug rule, so a derived id is the same whichever way a page came in.
import { headingSlug } from '../markdown/headingIds.ts';

const HEADING = /^h[1-6]$/;

function textOf(node: Element): string {
  return node.children.map((child) => (child.type === 'text' ? child.value : child.type === 'element' ? textOf(child) : '')).join('');
}

export default function rehypeUniqueHeadingIds() {
  return (tree: Root): undefined => {
    const taken = new Set<string>();
    visit(tree, 'element', (node) => {
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
