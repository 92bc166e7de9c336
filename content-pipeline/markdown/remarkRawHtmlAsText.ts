/**
 * remark plugin: raw HTML is kept as visible text, never executed. An inline tag becomes a
 * text node with its literal source; an HTML block becomes paragraphs of its literal lines
 * (split at blank lines, as the same text would read back once written as Markdown).
 */
import type { Html, Node, Paragraph, Parent, Root, Text } from 'mdast';
import type { Transformer } from 'unified';

/** Parents whose children are blocks: an `html` node there is an HTML block. */
const FLOW_CONTAINERS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition', 'containerDirective']);

function htmlBlockAsParagraphs(html: Html): Paragraph[] {
  return html.value
    .split(/\n[ \t]*\n/)
    .map((chunk) => chunk.replace(/^\n+|\n+$/g, ''))
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => ({ type: 'paragraph', children: [{ type: 'text', value: chunk }] }));
}

function replaceHtml(parent: Parent): void {
  const isFlow = FLOW_CONTAINERS.has(parent.type);
  const children: Node[] = [];
  for (const child of parent.children) {
    if (child.type === 'html') {
      if (isFlow) children.push(...htmlBlockAsParagraphs(child));
      else if (child.value !== '') {
        const literal: Text = { type: 'text', value: child.value, position: child.position };
        children.push(literal);
      }
      continue;
    }
    if ('children' in child) replaceHtml(child as Parent);
    children.push(child);
  }
  parent.children = children as Parent['children'];
}

export default function remarkRawHtmlAsText(): Transformer<Root, Root> {
  return (tree) => {
    replaceHtml(tree);
  };
}
