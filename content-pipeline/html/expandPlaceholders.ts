/**
 * Expansion of the placeholders documentToHtml leaves in a page body, for the serving layer
 * (public pages, read views): it knows who reads and what they may see; this module does
 * not, so it asks resolvers.
 *
 * Call order matters, `expandPlaceholders` does both in the right one: transclusions first
 * (a transcluded body brings its own plugin blocks), then plugin blocks. Transcluded bodies
 * are sanitized with the page schema on the way in; plugin output is built here after that,
 * from sanitized SVG (svgSanitizer.ts) and escaped text.
 */
import type { JSONContent } from '@tiptap/core';
import type { Element, ElementContent, Root, RootContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { sanitize } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { PLUGIN_CONTENT_MARKER } from './documentToHast.ts';
import { pageSanitizeSchema } from './sanitizeSchema.ts';
import { sanitizeSvgToHast } from './svgSanitizer.ts';

/** Spec, Limits: transclusion nesting. */
export const MAX_TRANSCLUSION_DEPTH = 2;

/** The target's cached body as documentToHtml produced it (placeholders not yet expanded). */
export interface TransclusionTarget {
  html: string;
  title: string;
}

/** `null` when the target is missing or the reader may not read it (same pond is the caller's check). */
export type TransclusionResolver = (slug: string) => TransclusionTarget | null;

export interface ExpandTransclusionsOptions {
  /** Levels of nesting expanded; deeper transclusions degrade to wikilinks. Default 2. */
  maxDepth?: number;
  /** The slug of the page being served, so that a page transcluding itself is a cycle. */
  selfSlug?: string;
  /**
   * Shown inside the box of a transcluded page without any text, in the reader's language
   * (an empty box reads as broken); without it such a box stays empty.
   */
  emptyNote?: string;
}

/** Which plugin block a placeholder stands for. */
export interface PluginBlockRef {
  pluginId: string;
  blockType: string;
  /** Position among the plugin blocks of its page, in document order (see `pluginBlocksInOrder`). */
  index: number;
  /** The transcluded page the block comes from; `null` for the served page itself. */
  sourceSlug: string | null;
}

export interface PluginStaticForm {
  svgSnapshot?: string | null;
  /** The plugin manifest's fallback. */
  fallbackText?: string | null;
  fallbackImage?: { src: string; alt?: string | null } | null;
}

export type PluginBlockResolver = (block: PluginBlockRef) => PluginStaticForm | null;

function parseFragment(html: string): Root {
  return fromHtml(html, { fragment: true });
}

function isElementWith(node: RootContent | ElementContent, property: string): node is Element {
  return node.type === 'element' && node.tagName === 'div' && node.properties[property] !== undefined;
}

function propertyString(node: Element, property: string): string {
  const value = node.properties[property];
  return Array.isArray(value) ? value.join(' ') : value === undefined || value === null ? '' : String(value);
}

/** Replaces every matching element of a tree (not descending into replacements). */
function replaceElements(parent: Root | Element, matches: (node: RootContent | ElementContent) => boolean, replace: (node: Element) => ElementContent[]): void {
  const next: (RootContent & ElementContent)[] = [];
  for (const child of parent.children) {
    if (child.type === 'element' && matches(child)) {
      next.push(...replace(child));
      continue;
    }
    if (child.type === 'element') replaceElements(child, matches, replace);
    next.push(child as RootContent & ElementContent);
  }
  parent.children = next;
}

// ——— transclusions ———

const isTransclusion = (node: RootContent | ElementContent): node is Element => isElementWith(node, 'dataDtTransclusion');
const isPluginBlock = (node: RootContent | ElementContent): node is Element => isElementWith(node, 'dataDtPlugin');

/** Whether a body shows nothing a reader could see: no element, no text but whitespace. */
function isBlank(body: Root): boolean {
  return body.children.every((child) => (child.type === 'text' ? child.value.trim() === '' : child.type !== 'element'));
}

function expandTransclusionTree(tree: Root | Element, resolve: TransclusionResolver, depth: number, maxDepth: number, chain: readonly string[], emptyNote?: string): void {
  replaceElements(tree, isTransclusion, (placeholder) => {
    const slug = propertyString(placeholder, 'dataDtTransclusion');
    // The placeholder already holds the plain wikilink every failure degrades to.
    const degraded = placeholder.children;
    if (depth > maxDepth || chain.includes(slug)) return degraded;
    const target = resolve(slug);
    if (!target) return degraded;
    const body = sanitize(parseFragment(target.html), pageSanitizeSchema) as Root;
    if (emptyNote && isBlank(body)) {
      body.children = [{ type: 'element', tagName: 'p', properties: { className: ['dt-transclusion-empty'] }, children: [{ type: 'text', value: emptyNote }] }];
    }
    expandTransclusionTree(body, resolve, depth + 1, maxDepth, [...chain, slug], emptyNote);
    // Plugin blocks of this target (not of deeper ones, already marked) are resolved by slug.
    replaceElements(body, isPluginBlock, (block) => {
      if (block.properties.dataDtSource === undefined) block.properties.dataDtSource = slug;
      return [block];
    });
    const wrapper: Element = {
      type: 'element',
      tagName: 'div',
      properties: { className: ['dt-transclusion'], dataSlug: slug, dataDtTitle: target.title },
      children: body.children as ElementContent[],
    };
    return [wrapper];
  });
}

/** Transcluded pages bring their own headings; repeated ids get `-2`, `-3` … in page order. */
function dedupeHeadingIds(tree: Root | Element, taken = new Set<string>()): void {
  const walk = (parent: Root | Element): void => {
    for (const child of parent.children) {
      if (child.type !== 'element') continue;
      if (/^h[1-6]$/.test(child.tagName) && typeof child.properties.id === 'string') {
        const base = child.properties.id;
        let id = base;
        for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
        taken.add(id);
        child.properties.id = id;
      }
      walk(child);
    }
  };
  walk(tree);
}

/** A heading id as the tree walk above would leave it, taking it. */
function uniqueHeadingId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/**
 * Replaces each `<div data-dt-transclusion="slug">` with the target's body, up to
 * `maxDepth` levels; a cycle, a missing or an unreadable target leaves the plain wikilink.
 * Expanded: `<div class="dt-transclusion" data-slug="slug" data-dt-title="Title">…</div>`.
 */
export function expandTransclusions(html: string, resolve: TransclusionResolver, options?: ExpandTransclusionsOptions): string;
export function expandTransclusions(tree: Root, resolve: TransclusionResolver, options?: ExpandTransclusionsOptions): Root;
export function expandTransclusions(input: string | Root, resolve: TransclusionResolver, options: ExpandTransclusionsOptions = {}): string | Root {
  const tree = typeof input === 'string' ? parseFragment(input) : input;
  const chain = options.selfSlug === undefined ? [] : [options.selfSlug];
  expandTransclusionTree(tree, resolve, 1, options.maxDepth ?? MAX_TRANSCLUSION_DEPTH, chain, options.emptyNote);
  dedupeHeadingIds(tree);
  return typeof input === 'string' ? toHtml(tree) : tree;
}

// ——— plugin blocks ———

function pluginBox(className: string[], children: ElementContent[]): Element {
  return { type: 'element', tagName: 'div', properties: { className }, children };
}

function fallbackImage(image: NonNullable<PluginStaticForm['fallbackImage']>): Element | null {
  const img: Element = { type: 'element', tagName: 'img', properties: { src: image.src, alt: image.alt ?? '', loading: 'lazy' }, children: [] };
  const clean = sanitize(img, pageSanitizeSchema);
  return clean.type === 'element' && typeof clean.properties.src === 'string' ? clean : null;
}

/** The best static form: sanitized SVG snapshot, else fallback text, else fallback image, else the marker. */
function staticForm(form: PluginStaticForm | null): Element {
  const svg = form?.svgSnapshot ? sanitizeSvgToHast(form.svgSnapshot) : null;
  if (svg) return pluginBox(['dt-plugin'], [svg]);
  if (form?.fallbackText) {
    return pluginBox(['dt-plugin', 'dt-plugin-fallback'], [{ type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value: form.fallbackText }] }]);
  }
  const image = form?.fallbackImage ? fallbackImage(form.fallbackImage) : null;
  if (image) return pluginBox(['dt-plugin', 'dt-plugin-fallback'], [image]);
  return pluginBox(['dt-plugin', 'dt-plugin-empty'], [{ type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value: PLUGIN_CONTENT_MARKER }] }]);
}

/**
 * Replaces each `<div data-dt-plugin="plugin/type" data-dt-block="n">` with
 * `<div class="dt-plugin">` holding the block's best static form. Without a resolver (or
 * when it returns `null`) the block shows `[plugin content]`.
 */
export function expandPluginBlocks(html: string, resolve?: PluginBlockResolver): string;
export function expandPluginBlocks(tree: Root, resolve?: PluginBlockResolver): Root;
export function expandPluginBlocks(input: string | Root, resolve?: PluginBlockResolver): string | Root {
  const tree = typeof input === 'string' ? parseFragment(input) : input;
  replaceElements(tree, isPluginBlock, (placeholder) => {
    const pluginType = propertyString(placeholder, 'dataDtPlugin');
    const slash = pluginType.indexOf('/');
    const source = placeholder.properties.dataDtSource;
    const ref: PluginBlockRef = {
      pluginId: slash < 0 ? pluginType : pluginType.slice(0, slash),
      blockType: slash < 0 ? '' : pluginType.slice(slash + 1),
      index: Number(propertyString(placeholder, 'dataDtBlock')) || 0,
      sourceSlug: typeof source === 'string' ? source : null,
    };
    return [staticForm(resolve ? resolve(ref) : null)];
  });
  return typeof input === 'string' ? toHtml(tree) : tree;
}

export interface ExpandPlaceholdersOptions extends ExpandTransclusionsOptions {
  resolveTransclusion: TransclusionResolver;
  resolvePluginBlock?: PluginBlockResolver;
}

/** Both expansions in the required order: transclusions, then plugin blocks. */
export function expandPlaceholders(html: string, options: ExpandPlaceholdersOptions): string {
  // Most bodies hold no placeholder: they are served as rendered, without a parse and a re-serialization.
  if (!html.includes('data-dt-transclusion') && !html.includes('data-dt-plugin')) return html;
  return expandBySplicing(html, options) ?? expandPlaceholdersByTree(html, options);
}

/** The reference expansion: the whole body parsed, expanded and serialized again. */
export function expandPlaceholdersByTree(html: string, options: ExpandPlaceholdersOptions): string {
  const tree = expandTransclusions(parseFragment(html), options.resolveTransclusion, options);
  return toHtml(expandPluginBlocks(tree, options.resolvePluginBlock));
}

/**
 * A placeholder as documentToHtml serializes it (documentToHast.ts): a div with only its
 * data attributes, holding one paragraph (the wikilink or the plugin marker) and no div.
 */
const PLACEHOLDER = /<div data-dt-(transclusion|plugin)="([^"&]*)"(?: data-dt-block="(\d+)")?>([\s\S]*?)<\/div>/g;
/** A heading as documentToHtml serializes it; ids are `h-` slugs, so never hold a character reference. */
const HEADING_ID = /<h([1-6]) id="([^"&]*)"/g;

/**
 * The same expansion without parsing the served body: only the placeholders are replaced,
 * each by its expansion built (and sanitized) as a tree, and heading ids are made unique in
 * document order just as the tree walk does. The body's own markup is documentToHtml's
 * serialization, so its placeholders and headings can be found in the text; anything that
 * does not look exactly like it (null) goes the tree way. A body with a transclusion costs
 * about a tenth of the tree way (the served page is the big part, its placeholders are small).
 */
export function expandBySplicing(html: string, options: ExpandPlaceholdersOptions): string | null {
  const placeholders = [...html.matchAll(PLACEHOLDER)];
  if (placeholders.length !== html.split('<div data-dt-').length - 1) return null;
  const taken = new Set<string>();
  const headings = (text: string): string => text.replace(HEADING_ID, (_, level: string, id: string) => `<h${level} id="${uniqueHeadingId(id, taken)}"`);
  const maxDepth = options.maxDepth ?? MAX_TRANSCLUSION_DEPTH;
  const chain = options.selfSlug === undefined ? [] : [options.selfSlug];
  let expanded = '';
  let last = 0;
  for (const match of placeholders) {
    const [whole, kind, value = '', block, inner = ''] = match;
    if (inner.includes('<div')) return null;
    expanded += headings(html.slice(last, match.index));
    last = match.index + whole.length;
    if (kind === 'plugin') {
      const slash = value.indexOf('/');
      const ref: PluginBlockRef = {
        pluginId: slash < 0 ? value : value.slice(0, slash),
        blockType: slash < 0 ? '' : value.slice(slash + 1),
        index: Number(block) || 0,
        sourceSlug: null,
      };
      expanded += toHtml(staticForm(options.resolvePluginBlock ? options.resolvePluginBlock(ref) : null));
      continue;
    }
    if (block !== undefined) return null;
    // The transclusion as a tree of its own: the placeholder, expanded like the tree way does.
    const root: Root = { type: 'root', children: [{ type: 'element', tagName: 'div', properties: { dataDtTransclusion: value }, children: parseFragment(inner).children as ElementContent[] }] };
    expandTransclusionTree(root, options.resolveTransclusion, 1, maxDepth, chain, options.emptyNote);
    dedupeHeadingIds(root, taken);
    expanded += toHtml(expandPluginBlocks(root, options.resolvePluginBlock));
  }
  return expanded + headings(html.slice(last));
}

/**
 * The plugin_block nodes of a document in the order their `data-dt-block` indexes count,
 * so a resolver can map `PluginBlockRef.index` back to the node (and its `svgSnapshot`).
 */
export function pluginBlocksInOrder(doc: JSONContent): JSONContent[] {
  const found: JSONContent[] = [];
  const walk = (node: JSONContent): void => {
    if (node.type === 'plugin_block') found.push(node);
    for (const child of node.content ?? []) walk(child);
  };
  walk(doc);
  return found;
}
