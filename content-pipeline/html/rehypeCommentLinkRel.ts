/**
 * rehype plugin for comment bodies: every link gets `rel="nofollow noopener noreferrer ugc"`.
 * Comments are user content anyone with read access may post; search engines must not
 * credit them and the target must not learn where the reader came from. Runs after the
 * sanitizer, which would drop `rel` as an input attribute.
 */
import type { Root } from 'hast';
import { visit } from 'unist-util-visit';

const COMMENT_LINK_REL = ['nofollow', 'noopener', 'noreferrer', 'ugc'];

export default function rehypeCommentLinkRel() {
  return (tree: Root): undefined => {
    visit(tree, 'element', (node) => {
      if (node.tagName === 'a') node.properties.rel = [...COMMENT_LINK_REL];
    });
  };
}
