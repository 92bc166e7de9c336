/**
 * remark plugin: directives other than sections are not part of our dialect, and
 * remark-directive also reads ordinary prose as directives (`Note:this`, `12:30`). Each one
 * goes back to the literal text it was written as:
 * - a text directive (`:name[label]{attrs}`) becomes a text node with its source;
 * - a leaf directive (`::name…`) becomes a paragraph with its source;
 * - any other container directive keeps its content as blocks, between paragraphs holding its
 *   opening line and (when present) its closing fence.
 * Runs after remarkSections, which has already taken the `section` containers.
 */
import type { Node, Paragraph, Parent, Root, Text } from 'mdast';
import type { ContainerDirective, LeafDirective, TextDirective } from 'mdast-util-directive';
import type { Transformer } from 'unified';

/** A closing fence line, possibly behind block quote markers or indentation. */
const CLOSING_FENCE = /^[ \t>]*(:{3,})[ \t]*$/;

function sourceOf(node: Node, source: string): string | null {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? null : source.slice(start, end);
}

function textParagraph(value: string): Paragraph {
  return { type: 'paragraph', children: [{ type: 'text', value }] };
}

function textDirectiveAsText(directive: TextDirective, source: string): Text {
  return { type: 'text', value: sourceOf(directive, source) ?? `:${directive.name}`, position: directive.position };
}

function leafDirectiveAsParagraph(directive: LeafDirective, source: string): Paragraph {
  return textParagraph(sourceOf(directive, source) ?? `::${directive.name}`);
}

function containerDirectiveAsBlocks(directive: ContainerDirective, source: string): Node[] {
  const lines = (sourceOf(directive, source) ?? `:::${directive.name}`).split(/\r?\n|\r/);
  const openingLine = lines[0] ?? '';
  const closingFence = lines.length > 1 ? CLOSING_FENCE.exec(lines[lines.length - 1] ?? '')?.[1] : undefined;
  // The `[label]` paragraph is already part of the opening line's text.
  const content = directive.children.filter((child) => !(child.type === 'paragraph' && child.data && 'directiveLabel' in child.data));
  return [textParagraph(openingLine), ...content, ...(closingFence ? [textParagraph(closingFence)] : [])];
}

function replaceDirectives(parent: Parent, source: string): void {
  const children: Node[] = [];
  for (const child of parent.children) {
    if ('children' in child) replaceDirectives(child as Parent, source);
    if (child.type === 'textDirective') children.push(textDirectiveAsText(child, source));
    else if (child.type === 'leafDirective') children.push(leafDirectiveAsParagraph(child, source));
    else if (child.type === 'containerDirective') children.push(...containerDirectiveAsBlocks(child, source));
    else children.push(child);
  }
  parent.children = children as Parent['children'];
}

export default function remarkDirectivesAsText(): Transformer<Root, Root> {
  return (tree, file) => {
    replaceDirectives(tree, String(file.value));
  };
}
