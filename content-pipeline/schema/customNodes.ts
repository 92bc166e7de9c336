/**
 * The nodes of our own: wikilink, transclusion, plugin_block, section, mention. Schema only
 * (attributes, parseHTML, renderHTML); the editor adds node views on top, so the schema
 * itself imports no DOM or Svelte and the server needs no stub editor.
 *
 * renderHTML output lands in the app's DOM (the editor), so content never sets an `id` there
 * and sets a class only as the end of `dt-style-…` (sanitizeSchema.ts says why).
 */
import { Node, mergeAttributes } from '@tiptap/core';

/** A section's class: `dt-style-<pluginId>-<styleId>`; anything outside `[A-Za-z0-9_-]` becomes `-`. */
export function sectionStyleClass(pluginId: unknown, styleId: unknown): string {
  const part = (value: unknown): string => (typeof value === 'string' ? value : '').replace(/[^\w-]/g, '-');
  return `dt-style-${part(pluginId)}-${part(styleId)}`;
}

/** `[[slug]]` or `[[slug|text]]`: an inline link to another page of the pond, by slug. */
export const Wikilink = Node.create({
  name: 'wikilink',
  group: 'inline',
  inline: true,
  atom: true,
  selectable: true,
  addAttributes() {
    return {
      targetSlug: { default: '' },
      displayText: { default: null },
    };
  },
  parseHTML() {
    return [{ tag: 'a[data-wikilink]', getAttrs: (element) => ({ targetSlug: element.getAttribute('data-slug') ?? '', displayText: element.getAttribute('data-text') }) }];
  },
  renderHTML({ node, HTMLAttributes }) {
    return ['a', mergeAttributes(HTMLAttributes, { 'data-wikilink': '', 'data-slug': node.attrs.targetSlug }), node.attrs.displayText ?? node.attrs.targetSlug];
  },
});

/** A standalone `![[slug]]` / `![[slug|display]]` line: another page embedded here. */
export const Transclusion = Node.create({
  name: 'transclusion',
  group: 'block',
  atom: true,
  addAttributes() {
    return {
      targetSlug: { default: '' },
      displayText: { default: null },
    };
  },
  parseHTML() {
    return [{ tag: 'div[data-transclusion]', getAttrs: (element) => ({ targetSlug: element.getAttribute('data-slug') ?? '', displayText: element.getAttribute('data-text') }) }];
  },
  renderHTML({ node, HTMLAttributes }) {
    return ['div', mergeAttributes(HTMLAttributes, { 'data-transclusion': '', 'data-slug': node.attrs.targetSlug })];
  },
});

/** A block owned by a plugin: its data is a JSON object; `svgSnapshot` is its last static rendering. */
export const PluginBlock = Node.create({
  name: 'plugin_block',
  group: 'block',
  atom: true,
  addAttributes() {
    return {
      pluginId: { default: '' },
      blockType: { default: '' },
      data: { default: {} },
      svgSnapshot: { default: null },
    };
  },
  parseHTML() {
    return [{ tag: 'div[data-plugin-block]' }];
  },
  renderHTML({ node, HTMLAttributes }) {
    return ['div', mergeAttributes(HTMLAttributes, { 'data-plugin-block': '', 'data-plugin': node.attrs.pluginId, 'data-type': node.attrs.blockType })];
  },
});

/** A container a section-style plugin can style (`pluginId` / `styleId`). */
export const Section = Node.create({
  name: 'section',
  group: 'block',
  content: 'block+',
  defining: true,
  addAttributes() {
    return {
      pluginId: { default: '' },
      styleId: { default: '' },
    };
  },
  parseHTML() {
    return [{ tag: 'section[data-section]' }];
  },
  renderHTML({ node, HTMLAttributes }) {
    return ['section', mergeAttributes(HTMLAttributes, { 'data-section': '', class: sectionStyleClass(node.attrs.pluginId, node.attrs.styleId) }), 0];
  },
});

/** `@someone`: an inline reference to a user (id) with the label shown at the time. */
export const Mention = Node.create({
  name: 'mention',
  group: 'inline',
  inline: true,
  atom: true,
  addAttributes() {
    return {
      // The user id goes to `data-id`, never to the element's own `id`.
      id: { default: '', rendered: false, parseHTML: (element) => element.getAttribute('data-id') ?? '' },
      label: { default: '' },
    };
  },
  parseHTML() {
    return [{ tag: 'span[data-mention]' }];
  },
  renderHTML({ node, HTMLAttributes }) {
    return ['span', mergeAttributes(HTMLAttributes, { 'data-mention': '', 'data-id': node.attrs.id }), `@${node.attrs.label}`];
  },
});
