/**
 * remark plugin: GFM footnotes (which remark-gfm always parses) are not part of our document
 * model, so they go back to their literal text: a reference `[^label]` becomes that text, a
 * definition becomes its blocks with `[^label]: ` in front of the first paragraph.
 */
import type { FootnoteDefinition, Node, Paragraph, Parent, Root, Text } from 'mdast';
import type { Transformer } from 'unified';

function definitionAsBlocks(definition: FootnoteDefinition): Node[] {
  const marker: Text = { type: 'text', value: `[^${definition.label ?? definition.identifier}]: ` };
  const [first, ...rest] = definition.children;
  if (first?.type === 'paragraph') return [{ ...first, children: [marker, ...first.children] } satisfies Paragraph, ...rest];
  return [{ type: 'paragraph', children: [marker] } satisfies Paragraph, ...definition.children];
}

function replaceFootnotes(parent: Parent): void {
  const children: Node[] = [];
  for (const child of parent.children) {
    if ('children' in child) replaceFootnotes(child as Parent);
    if (child.type === 'footnoteReference') {
      const reference: Text = { type: 'text', value: `[^${child.label ?? child.identifier}]`, position: child.position };
      children.push(reference);
    }
    else if (child.type === 'footnoteDefinition') children.push(...definitionAsBlocks(child));
    else children.push(child);
  }
  parent.children = children as Parent['children'];
}

export default function remarkFootnotesAsText(): Transformer<Root, Root> {
  return (tree) => {
    replaceFootnotes(tree);
  };
}
