/**
 * Where plugins reach the public layer (spec: Public rendering rules). The plugins issue fills
 * these in: a plugin block's best static form (its stored SVG snapshot, or the manifest's
 * fallback text or image) and the section-style CSS of a pond's active plugins, which the
 * document inlines as a style block. Until then every block shows the `[plugin content]`
 * marker and no style is added. The generator calls nothing else for plugins.
 */
import type { PluginBlockRef, PluginStaticForm } from '../../content-pipeline/index.ts';

/** The static form of one plugin block of a page (`null`: the `[plugin content]` marker). */
export function pluginBlockStaticForm(_pageId: string, _block: PluginBlockRef): PluginStaticForm | null {
  return null;
}

/** The section-style CSS of the pond's active plugins ('' when none). */
export function activePluginStyles(_pondId: string): string {
  return '';
}
