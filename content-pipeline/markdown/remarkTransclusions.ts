/**
 * remark plugin: a paragraph made only of embedded wikilinks (`![[slug]]`,
 * `![[slug|display]]`), one per line, becomes one `transclusion` block per line. An embed
 * anywhere else (inside a sentence, a heading, a table cell) cannot be a block there; it
 * degrades to a `!` followed by an ordinary wikilink, so nothing disappears.
 */
import type { Literal, Node, Paragraph, Parent, Root, RootContent, Text } from 'mdast';
import type { WikiLink } from './remarkWikilinks.ts';
import type { Transformer } from 'unified';

/** mdast node for a standalone embed: another page shown in place. */
export interface Transclusion extends Literal {
  type: 'transclusion';
  targetSlug: string;
  displayText: string | null;
}

declare module 'mdast' {
  interface RootContentMap {
    transclusion: Transclusion;
  }
  interface BlockContentMap {
    transclusion: Transclusion;
  }
}

/** Blocks whose children are inline content: embeds there cannot become blocks. */
const PHRASING_CONTAINERS = new Set(['paragraph', 'heading', 'tableCell', 'leafDirective']);

/** A soft line break between two embeds, with any spaces around it. */
const LINE_SEPARATOR = /^[ \t]*\n[ \t]*$/;

function isEmbed(node: Node): node is WikiLink {
  return node.type === 'wikiLink' && (node as WikiLink).embedded;
}

/** The transclusions a paragraph stands for, or null when it holds anything besides embeds. */
function standaloneEmbeds(paragraph: Paragraph): Transclusion[] | null {
  const transclusions: Transclusion[] = [];
  for (const [index, child] of paragraph.children.entries()) {
    const expectEmbed = index % 2 === 0;
    if (expectEmbed && isEmbed(child)) {
      transclusions.push({ type: 'transclusion', value: child.value, targetSlug: child.targetSlug, displayText: child.displayText, position: child.position });
    } else if (expectEmbed || child.type !== 'text' || !LINE_SEPARATOR.test(child.value)) {
      return null;
    }
  }
  return transclusions.length > 0 && paragraph.children.length % 2 === 1 ? transclusions : null;
}

/** Replaces an inline embed by `!` and a plain wikilink: what the reader sees stays the same. */
function degradeInlineEmbeds(parent: Parent): void {
  const children: Node[] = [];
  for (const child of parent.children) {
    if (isEmbed(child)) {
      const bang: Text = { type: 'text', value: '!' };
      const wikilink: WikiLink = { ...child, embedded: false };
      children.push(bang, wikilink);
    } else {
      if ('children' in child) degradeInlineEmbeds(child as Parent);
      children.push(child);
    }
  }
  parent.children = children as Parent['children'];
}

function transformBlocks(parent: Parent): void {
  const children: Node[] = [];
  for (const child of parent.children) {
    const transclusions = child.type === 'paragraph' ? standaloneEmbeds(child) : null;
    if (transclusions) {
      children.push(...transclusions);
      continue;
    }
    if (PHRASING_CONTAINERS.has(child.type)) degradeInlineEmbeds(child as Parent);
    else if ('children' in child) transformBlocks(child as Parent);
    children.push(child);
  }
  parent.children = children as RootContent[];
}

export default function remarkTransclusions(): Transformer<Root, Root> {
  return (tree) => {
    transformBlocks(tree);
  };
}
