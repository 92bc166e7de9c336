/**
 * remark plugin for comment bodies: images become links to the image, labelled with the alt
 * text. Comments allow no `<img>` (no tracking pixels, no layout breakage), but the
 * reference must not vanish either.
 */
import type { Link, LinkReference, Root } from 'mdast';
import { visit } from 'unist-util-visit';

export default function remarkImagesAsLinks() {
  return (tree: Root): undefined => {
    visit(tree, (node, index, parent) => {
      if (!parent || index === undefined) return;
      if (node.type === 'image') {
        const link: Link = { type: 'link', url: node.url, title: node.title, children: [{ type: 'text', value: node.alt || node.url }], position: node.position };
        parent.children.splice(index, 1, link as never);
      } else if (node.type === 'imageReference') {
        const link: LinkReference = { type: 'linkReference', identifier: node.identifier, label: node.label, referenceType: node.referenceType, children: [{ type: 'text', value: node.alt || node.label || node.identifier }], position: node.position };
        parent.children.splice(index, 1, link as never);
      }
    });
  };
}
