/**
 * remark plugin for comment bodies: the block kinds the comment allowlist has no element for
 * are rewritten into ones it has, so their text keeps its shape instead of running together:
 * a heading becomes a paragraph in bold, each table row a paragraph with ` | ` between cells,
 * a task item's box the text `[ ]` or `[x]`.
 */
import type { Paragraph, PhrasingContent, Root, RootContent } from 'mdast';
import { visit } from 'unist-util-visit';

function tableRowsAsParagraphs(rows: { children: { children: PhrasingContent[] }[] }[]): Paragraph[] {
  return rows.map((row) => ({
    type: 'paragraph',
    children: row.children.flatMap((cell, index) => (index === 0 ? cell.children : [{ type: 'text', value: ' | ' } as PhrasingContent, ...cell.children])),
  }));
}

export default function remarkCommentBlocks() {
  return (tree: Root): undefined => {
    visit(tree, (node, index, parent) => {
      if (node.type === 'listItem' && typeof node.checked === 'boolean') {
        const marker = node.checked ? '[x] ' : '[ ] ';
        const first = node.children[0];
        if (first?.type === 'paragraph') first.children.unshift({ type: 'text', value: marker });
        else node.children.unshift({ type: 'paragraph', children: [{ type: 'text', value: marker.trim() }] });
        node.checked = null;
        return;
      }
      if (!parent || index === undefined) return;
      if (node.type === 'heading') {
        const paragraph: Paragraph = { type: 'paragraph', children: [{ type: 'strong', children: node.children }] };
        parent.children.splice(index, 1, paragraph as never);
      } else if (node.type === 'table') {
        const paragraphs: RootContent[] = tableRowsAsParagraphs(node.children);
        parent.children.splice(index, 1, ...(paragraphs as never[]));
        return index + paragraphs.length;
      }
      return undefined;
    });
  };
}
