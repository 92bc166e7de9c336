/**
 * The pond's pages as choices for a select (a new page's parent, an access rule's page, the
 * explainer's page): in tree order with their depth, from the packed page list
 * (sidebarPages.ts), so a screen sends the list once and compactly.
 */
import { buildPageTree, type PageTreeNode } from './pageTreeModel.ts';
import { unpackSidebarPages } from './sidebarPages.ts';

export interface PageChoice {
  id: string;
  title: string;
  depth: number;
}

export function pageChoicesFrom(pagesData: string): PageChoice[] {
  const choices: PageChoice[] = [];
  const walk = (nodes: PageTreeNode[], depth: number) => {
    for (const node of nodes) {
      choices.push({ id: node.id, title: node.title, depth });
      walk(node.children, depth + 1);
    }
  };
  walk(buildPageTree(unpackSidebarPages(pagesData)), 0);
  return choices;
}

/** A choice's label with its depth shown as indentation (em spaces survive in an `<option>`). */
export const indentedTitle = (choice: PageChoice) => `${'\u2003'.repeat(choice.depth)}${choice.title}`;
