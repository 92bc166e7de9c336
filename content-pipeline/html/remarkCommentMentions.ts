/**
 * remark plugin for comment bodies: a mention link `[@Ann](dt-mention:<userId>)` (the page
 * dialect's form, markdown/dialect.ts) becomes the same chip a page renders,
 * `<span class="dt-mention" data-dt-mention="<userId>">@Ann</span>`, instead of a link whose
 * unknown scheme the sanitizer would drop. Its text is the link's plain text: markup inside
 * the label stays out of the chip. Only a UUID counts as a user id; anything else stays text.
 */
import type { PhrasingContent, Root, Text } from 'mdast';
import { visit } from 'unist-util-visit';
import { MENTION_SCHEME } from '../markdown/dialect.ts';

const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function plainText(nodes: PhrasingContent[]): string {
  return nodes.map((node) => ('value' in node ? node.value : 'children' in node ? plainText(node.children as PhrasingContent[]) : '')).join('');
}

export default function remarkCommentMentions() {
  return (tree: Root): undefined => {
    visit(tree, 'link', (node, index, parent) => {
      if (!parent || index === undefined || !node.url.startsWith(MENTION_SCHEME)) return;
      const userId = node.url.slice(MENTION_SCHEME.length);
      const label = `@${plainText(node.children).replace(/^@/, '')}`;
      const chip: Text = USER_ID.test(userId)
        ? { type: 'text', value: label, data: { hName: 'span', hProperties: { className: ['dt-mention'], dataDtMention: userId.toLowerCase() }, hChildren: [{ type: 'text', value: label }] } }
        : { type: 'text', value: label };
      parent.children.splice(index, 1, chip);
    });
  };
}
