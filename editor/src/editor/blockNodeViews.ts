/**
 * The node view of a plugin block (the schema stays content-pipeline's: this only `extend`s the
 * node with a view). Its `renderHTML` is an empty marker; the view shows the block's last
 * static rendering (its SVG snapshot, as an image: an SVG in an `<img>` runs nothing) or names
 * the plugin, so the block is visible, selectable and deletable in the editor.
 *
 * Tables need no view of their own: Tiptap writes their widths and alignment as `style`
 * attributes, and ProseMirror applies those through the CSSOM (`style.cssText`), which the
 * app's Content-Security-Policy allows (site/e2e/editor-blocks.test.ts checks it).
 */
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import { PluginBlock } from '../../../content-pipeline/browser.ts';
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
        draw(node);
        return {
          dom: box,
          update: (next) => {
            if (next.type !== node.type) return false;
            draw(next);
            return true;
          },
        };
      };
    },
  });
}
