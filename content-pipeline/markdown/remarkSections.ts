/**
 * remark plugin: the container directive `:::section{plugin="<pluginId>" style="<styleId>"}`
 * … `:::` becomes an mdast `section` node (a styled container). Other directives are left
 * for remarkDirectivesAsText, which turns them back into their literal text.
 */
import type { BlockContent, DefinitionContent, Node, Parent, Root } from 'mdast';
import type { ContainerDirective } from 'mdast-util-directive';
import type { Transformer } from 'unified';

/** mdast node for a section container. */
export interface Section extends Parent {
  type: 'section';
  pluginId: string;
  styleId: string;
  children: Array<BlockContent | DefinitionContent>;
}

declare module 'mdast' {
  interface RootContentMap {
    section: Section;
  }
  interface BlockContentMap {
    section: Section;
  }
}

export const SECTION_DIRECTIVE_NAME = 'section';

function toSection(directive: ContainerDirective): Section {
  const attributes = directive.attributes ?? {};
  // A `[label]` on the opening line arrives as a flagged first paragraph; it is content, so it
  // stays as an ordinary paragraph.
  const children = directive.children.map((child) => {
    if (child.type === 'paragraph' && child.data && 'directiveLabel' in child.data) {
      const { directiveLabel: _, ...data } = child.data;
      return { ...child, data };
    }
    return child;
  });
  return { type: 'section', pluginId: attributes.plugin ?? '', styleId: attributes.style ?? '', children, position: directive.position };
}

function replaceSections(parent: Parent): void {
  parent.children = parent.children.map((child: Node) => {
    if ('children' in child) replaceSections(child as Parent);
    return child.type === 'containerDirective' && (child as ContainerDirective).name === SECTION_DIRECTIVE_NAME ? toSection(child as ContainerDirective) : child;
  }) as Parent['children'];
}

export default function remarkSections(): Transformer<Root, Root> {
  return (tree) => {
    replaceSections(tree);
  };
}
