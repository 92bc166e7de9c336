/**
 * Our rehype-sanitize schemas, built from hast-util-sanitize's `defaultSchema` (GitHub's
 * rules) and narrowed to what we emit. Allowlists only: an element not listed is unwrapped
 * (its text stays), an attribute not listed is dropped. Attribute names are hast property
 * names (`dataSlug` is `data-slug`, `className` is `class`).
 *
 * What never passes, in either schema:
 * - `script`, `style`, `iframe`, `object`, `embed`, `svg`, `math`, `template` … (dropped with
 *   their content: their text is code, not prose);
 * - event handlers (`on*`) and `style` attributes (no attribute outside the lists passes);
 * - URLs in `href`/`src` other than http, https, mailto (href only) and relative ones;
 *   hast-util-sanitize reads the scheme up to the first `:` before any `/`, `?` or `#`, so
 *   `java\tscript:`, ` javascript:` and `JaVaScRiPt:` are unknown schemes and dropped;
 * - comments and doctypes.
 *
 * Ids, classes and names content can set never take a name the app uses (DOM clobbering: an
 * inlined body with `id="main"` would shadow the app's `#main` and `window.main`):
 * - ids appear only on headings and only as `h-…` (documentToHast.ts prefixes them, the same
 *   ids the outline lists); any other id is dropped. `id` is not in `clobber`, which would
 *   prefix again each time a transcluded body is sanitized on its way into another page;
 * - `name` is allowed nowhere, and would be prefixed `user-content-` (`clobber`);
 * - classes are fixed values, or content picks only the end of one in a namespace of its own:
 *   `language-…` on code (the name every highlighter looks for) and `dt-style-…` on sections.
 */
import { defaultSchema, type Schema } from 'hast-util-sanitize';

/** One entry of an element's attribute allowlist (the package does not export the type by name). */
type PropertyDefinition = NonNullable<Schema['attributes']>[string][number];

/** Dropped together with their content. */
const STRIP_WITH_CONTENT = ['script', 'style', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'noscript', 'textarea', 'title', 'xmp', 'noembed', 'noframes', 'frameset', 'frame', 'applet'];

/**
 * GitHub's tags, minus `picture`/`source` (their `srcset` would be a second URL channel).
 * Tags we never emit but keep are harmless: none of them carries a URL or a script.
 */
const PAGE_TAG_NAMES = (defaultSchema.tagNames ?? []).filter((tag) => tag !== 'picture' && tag !== 'source');

/** Rendered heading ids (HEADING_ANCHOR_PREFIX in headingIds.ts). */
const HEADING_ATTRIBUTES: PropertyDefinition[] = [['id', /^h-/]];

/** Classes we emit, per element; other classes are dropped. */
const WIKILINK_CLASSES = ['className', 'dt-wikilink', 'dt-phantom'] as const;

export const pageSanitizeSchema: Schema = {
  ...defaultSchema,
  strip: STRIP_WITH_CONTENT,
  tagNames: PAGE_TAG_NAMES,
  ancestors: defaultSchema.ancestors,
  clobber: ['name'],
  clobberPrefix: 'user-content-',
  allowComments: false,
  allowDoctypes: false,
  protocols: {
    href: ['http', 'https', 'mailto'],
    src: ['http', 'https'],
  },
  required: { input: { type: 'checkbox', disabled: true } },
  attributes: {
    a: ['href', 'title', 'dataSlug', [...WIKILINK_CLASSES]],
    img: ['src', 'alt', 'title', ['loading', 'lazy']],
    h1: HEADING_ATTRIBUTES,
    h2: HEADING_ATTRIBUTES,
    h3: HEADING_ATTRIBUTES,
    h4: HEADING_ATTRIBUTES,
    h5: HEADING_ATTRIBUTES,
    h6: HEADING_ATTRIBUTES,
    ol: ['start'],
    ul: [['className', 'contains-task-list']],
    li: [['className', 'task-list-item']],
    input: [['type', 'checkbox'], ['disabled', true], 'checked'],
    code: [['className', /^language-[\p{L}\p{M}\p{N}_#+.-]+$/u]],
    th: ['colSpan', 'rowSpan'],
    td: ['colSpan', 'rowSpan'],
    section: [['className', /^dt-style-[\w-]+$/]],
    span: [['className', 'dt-mention'], 'dataDtMention'],
    div: [
      // Placeholders (documentToHast.ts) and their expansions (expandPlaceholders.ts).
      'dataDtTransclusion',
      'dataDtPlugin',
      'dataDtBlock',
      'dataDtSource',
      'dataSlug',
      'dataDtTitle',
      ['className', 'dt-transclusion', 'dt-plugin', 'dt-plugin-fallback', 'dt-plugin-empty'],
    ],
    '*': [],
  },
};

/**
 * Comment bodies: p, br, strong, em, del, code, pre, blockquote, ul, ol, li, a[href] and the
 * mention chip (span.dt-mention, remarkCommentMentions.ts).
 * `rel` is added after sanitizing (rehypeCommentLinkRel.ts), so it is not allowed as input.
 */
export const commentSanitizeSchema: Schema = {
  strip: STRIP_WITH_CONTENT,
  tagNames: ['p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'span'],
  clobber: ['name', 'id'],
  clobberPrefix: 'user-content-',
  allowComments: false,
  allowDoctypes: false,
  protocols: {
    href: ['http', 'https', 'mailto'],
  },
  attributes: {
    a: ['href'],
    ol: ['start'],
    span: [['className', 'dt-mention'], ['dataDtMention', /^[0-9a-f-]{36}$/]],
  },
};
