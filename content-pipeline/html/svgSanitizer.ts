/**
 * Sanitizes a plugin's stored SVG snapshot before it is served inline. Allowlist of drawing
 * elements and presentation attributes, then a pass that removes external references:
 * - no `script`, `style`, `foreignObject` (HTML inside SVG), animation (`animate`/`set` can
 *   rewrite an `href` to `javascript:`), `image`, `a`, `iframe` … (not on the list);
 * - no event handlers and no `style` attribute (not on the list; presentation attributes
 *   such as `fill` cover what a snapshot needs, without CSS's `url()`/`@import` channels);
 * - `href`/`xlink:href` only as `#fragment`, so `<use>` can only reuse the snapshot's own
 *   shapes, never another file;
 * - any other attribute value with `url(…)` must point at `#fragment` too (`fill`, `filter`,
 *   `clip-path`, `mask`, `marker-*`), else the attribute is dropped;
 * - ids and classes get the `user-content-` prefix, and the snapshot's own references with
 *   them, so a snapshot inlined into a page cannot take an id or a class the app uses (DOM
 *   clobbering: `<g id="main">` would shadow the app's `#main` and `window.main`).
 * Parsing is tolerant (parse5 in SVG space): broken markup is repaired, not rejected.
 */
import type { Element, Root } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { sanitize, type Schema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { find, svg } from 'property-information';
import { visit } from 'unist-util-visit';

/** Larger snapshots are refused rather than parsed on a request path. */
export const MAX_SVG_SNAPSHOT_LENGTH = 1_000_000;

const SVG_ELEMENTS = [
  'svg', 'g', 'defs', 'symbol', 'use', 'title', 'desc',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan', 'textPath',
  'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'pattern', 'marker',
  'filter', 'feGaussianBlur', 'feOffset', 'feBlend', 'feColorMatrix', 'feFlood', 'feComposite',
  'feMerge', 'feMergeNode', 'feMorphology', 'feDropShadow',
];

/** Attribute names as written in SVG; mapped to hast property names below. */
const SVG_ATTRIBUTES = [
  'id', 'class', 'transform', 'role', 'aria-label', 'aria-hidden', 'version', 'xmlns', 'xmlns:xlink', 'xml:space',
  'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr', 'width', 'height',
  'd', 'points', 'dx', 'dy', 'rotate', 'pathLength', 'textLength', 'lengthAdjust', 'startOffset',
  'viewBox', 'preserveAspectRatio',
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap',
  'stroke-linejoin', 'stroke-dasharray', 'stroke-dashoffset', 'stroke-miterlimit', 'opacity',
  'clip-path', 'clip-rule', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end',
  'color', 'visibility', 'display', 'vector-effect', 'shape-rendering', 'text-rendering', 'paint-order',
  'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline',
  'alignment-baseline', 'baseline-shift', 'letter-spacing', 'word-spacing', 'text-decoration',
  'offset', 'stop-color', 'stop-opacity', 'gradientUnits', 'gradientTransform', 'spreadMethod',
  'patternUnits', 'patternContentUnits', 'patternTransform', 'clipPathUnits', 'maskUnits',
  'maskContentUnits', 'markerWidth', 'markerHeight', 'markerUnits', 'refX', 'refY', 'orient',
  'filterUnits', 'primitiveUnits', 'in', 'in2', 'result', 'stdDeviation', 'mode', 'values', 'type',
  'operator', 'k1', 'k2', 'k3', 'k4', 'radius', 'flood-color', 'flood-opacity',
];

const FRAGMENT_ONLY = /^#[^\s"'<>()]*$/;

/** GitHub's clobber prefix, as hast-util-sanitize's default schema uses it. */
export const SVG_CLOBBER_PREFIX = 'user-content-';

/** The `#` of a `url(#id)` reference, behind any spaces, quotes or CSS escapes. */
const URL_FRAGMENT_REFERENCE = /(url\([\s'"\\]*)#/gi;

const svgSchema: Schema = {
  tagNames: SVG_ELEMENTS,
  // Dropped with their content: their text would show up as stray characters.
  strip: ['script', 'style', 'foreignObject', 'iframe', 'object', 'embed', 'noscript', 'template', 'metadata'],
  // Prefixed by the sanitizer; the references to them by localizeReferences below.
  clobber: ['id', 'className'],
  clobberPrefix: SVG_CLOBBER_PREFIX,
  allowComments: false,
  allowDoctypes: false,
  protocols: {},
  attributes: {
    '*': [
      ...SVG_ATTRIBUTES.map((name) => find(svg, name).property),
      ['href', FRAGMENT_ONLY],
      ['xLinkHref', FRAGMENT_ONLY],
    ],
  },
};

/** `url(#id)` is a reference inside the snapshot; any other `url(`, or a script scheme, is not. */
function isExternalReference(value: string): boolean {
  const compact = value.replace(/[\s\\]/g, '').toLowerCase();
  if (/javascript:|vbscript:|data:|expression\(|@import/.test(compact)) return true;
  const urls = compact.match(/url\(([^)]*)\)?/g) ?? [];
  return urls.some((url) => !/^url\((['"]?)#[^'"()]*\1\)$/.test(url));
}

/**
 * Drops every attribute with an external reference and points the internal ones (`href`,
 * `xlink:href`, `url(#…)`) at the prefixed ids.
 */
function localizeReferences(tree: Root | Element): void {
  visit(tree, 'element', (node) => {
    for (const [key, value] of Object.entries(node.properties)) {
      const values = Array.isArray(value) ? value : [value];
      if (values.some((item) => typeof item === 'string' && isExternalReference(item))) {
        delete node.properties[key];
      } else if ((key === 'href' || key === 'xLinkHref') && typeof value === 'string') {
        node.properties[key] = `#${SVG_CLOBBER_PREFIX}${value.slice(1)}`;
      } else if (typeof value === 'string' && value.includes('#')) {
        node.properties[key] = value.replace(URL_FRAGMENT_REFERENCE, `$1#${SVG_CLOBBER_PREFIX}`);
      }
    }
  });
}

/** The sanitized `<svg>` element, or `null` when the input holds no usable SVG. */
export function sanitizeSvgToHast(source: string): Element | null {
  if (source.length > MAX_SVG_SNAPSHOT_LENGTH) return null;
  const parsed = fromHtml(source, { fragment: true, space: 'svg' });
  const clean = sanitize(parsed, svgSchema);
  if (clean.type !== 'root') return null;
  const root = clean.children.find((node): node is Element => node.type === 'element' && node.tagName === 'svg');
  if (!root) return null;
  localizeReferences(root);
  return root;
}

/** The sanitized snapshot as an SVG string, or `null` when the input holds no usable SVG. */
export function sanitizeSvg(source: string): string | null {
  const root = sanitizeSvgToHast(source);
  return root ? toHtml(root, { space: 'svg' }) : null;
}
