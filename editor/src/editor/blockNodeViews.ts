/**
 * Node views for blocks whose `renderHTML` cannot be shown as it is in the editor (the schema
 * stays content-pipeline's: these only `extend` a node with a view):
 *
 * - A plugin block's `renderHTML` is an empty marker; the view shows the block's last static
 *   rendering (its SVG snapshot, as an image: an SVG in an `<img>` runs nothing) or names the
 *   plugin, so the block is visible, selectable and deletable in the editor.
 * - An image names its uploaded file by id; the view derives the file's URL the way the
 *   pipeline's HTML does (`/api/v1/media/<id>`), so images already in a page show.
 *
 * Tables need no view of their own: Tiptap writes their widths and alignment as `style`
 * attributes, and ProseMirror applies those through the CSSOM (`style.cssText`), which the
 * app's Content-Security-Policy allows (site/e2e/editor-blocks.test.ts checks it).
 */
import type { AnyExtension, Node } from '@tiptap/core';
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import type { NodeView } from '@tiptap/pm/view';
import { MEDIA_PATH_PREFIX, PluginBlock } from '../../../content-pipeline/browser.ts';
import type { Translate } from '../i18n/translator.ts';

function svgImageSource(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

export function pluginBlockWithView(t: Translate) {
  return PluginBlock.extend({
    addNodeView() {
      return ({ node }) => {
        const box = document.createElement('div');
        box.className = 'editor-plugin-block';
        box.contentEditable = 'false';
        const draw = (current: ProseMirrorNode) => {
          const pluginId = String(current.attrs['pluginId'] ?? '');
          const blockType = String(current.attrs['blockType'] ?? '');
          const name = blockType ? `${pluginId} · ${blockType}` : pluginId;
          const snapshot = current.attrs['svgSnapshot'];
          box.replaceChildren();
          if (typeof snapshot === 'string' && snapshot.trim().startsWith('<svg')) {
            const image = document.createElement('img');
            image.src = svgImageSource(snapshot);
            image.alt = t('editor.pluginBlock', { name });
            box.append(image);
          } else {
            const label = document.createElement('p');
            label.textContent = t('editor.pluginBlockEmpty', { name });
            box.append(label);
          }
        };
        return redrawnView(node, box, draw);
      };
    },
  });
}

/** `base`: the schema's image node. */
export function imageWithView(base: AnyExtension): AnyExtension {
  return (base as Node).extend({
    addNodeView() {
      return ({ node }) => {
        const image = document.createElement('img');
        image.className = 'editor-image';
        const draw = (current: ProseMirrorNode) => {
          const { fileId, alt, title } = current.attrs as { fileId: string | null; alt: string | null; title: string | null };
          if (fileId) image.src = `${MEDIA_PATH_PREFIX}${encodeURIComponent(fileId)}`;
          else image.removeAttribute('src');
          image.alt = alt ?? '';
          if (title) image.title = title;
          else image.removeAttribute('title');
        };
        return redrawnView(node, image, draw);
      };
    },
  });
}

/** A node view whose element `draw` fills from the node, and again from each update of the same type. */
function redrawnView(node: ProseMirrorNode, dom: HTMLElement, draw: (current: ProseMirrorNode) => void): NodeView {
  draw(node);
  return {
    dom,
    update: (next) => {
      if (next.type !== node.type) return false;
      draw(next);
      return true;
    },
  };
}
