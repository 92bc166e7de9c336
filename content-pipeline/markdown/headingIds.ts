/**
 * Heading ids. The document stores an `id` per heading, derived from the heading text when
 * Markdown is read (ids are never written to Markdown) and unique within one document by
 * appending `-2`, `-3`, ….
 *
 * Rendered, a heading's id is its anchor: `h-` + the stored id (or, without one, the slug of
 * its text), made unique again. The prefix keeps a page body that is inlined into the app
 * from taking an id the app uses (`main`, `login`, …: DOM clobbering, `window.main`). The HTML
 * renderer and the outline both take their ids from `createHeadingAnchors`, so they agree.
 */
import type { JSONContent } from '@tiptap/core';

/** The id a heading gets when its text has nothing id-worthy (empty, only punctuation or emoji). */
export const FALLBACK_HEADING_ID = 'heading';

/** Every rendered heading id starts with this; the app never uses it for ids of its own. */
export const HEADING_ANCHOR_PREFIX = 'h-';

/**
 * Slugifies heading text the way readers expect from GitHub-style anchors: lowercase, letters
 * and digits of any script kept, whitespace runs become one hyphen, other characters dropped.
 */
export function headingSlug(text: string): string {
  const slug = text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || FALLBACK_HEADING_ID;
}

/** The text a heading's id is derived from: its text, wikilink labels, `@label` of mentions, a space per hard break. */
export function headingText(content: readonly JSONContent[] | undefined): string {
  let text = '';
  for (const node of content ?? []) {
    if (node.type === 'text') text += node.text ?? '';
    else if (node.type === 'wikilink') text += stringAttr(node, 'displayText') || stringAttr(node, 'targetSlug');
    else if (node.type === 'mention') text += `@${stringAttr(node, 'label')}`;
    else if (node.type === 'hardBreak') text += ' ';
  }
  return text;
}

function stringAttr(node: JSONContent, name: string): string {
  const value: unknown = node.attrs?.[name];
  return typeof value === 'string' ? value : '';
}

/** A source of ids not handed out before in one document: `a`, `a-2`, `a-3`. */
function createUniqueIds(): (base: string) => string {
  const used = new Set<string>();
  return (base) => {
    let id = base;
    for (let n = 2; used.has(id); n += 1) id = `${base}-${n}`;
    used.add(id);
    return id;
  };
}

/**
 * A slugger for one document: every call returns an id not returned before (`a`, `a-2`,
 * `a-3`; a heading literally titled "a 2" after two "a"s gets `a-2-2`).
 */
export function createHeadingSlugger(): (text: string) => string {
  const unique = createUniqueIds();
  return (text) => unique(headingSlug(text));
}

/**
 * The anchors of one document's headings, to be called for each heading in document order:
 * `h-` + the stored id (trimmed) or the slug of the heading text, with `-2`, `-3` … for a
 * repeat. A stored id is otherwise kept as it is; the prefix alone makes it safe.
 */
export function createHeadingAnchors(): (heading: JSONContent) => string {
  const unique = createUniqueIds();
  return (heading) => {
    const stored = stringAttr(heading, 'id').trim();
    return HEADING_ANCHOR_PREFIX + unique(stored || headingSlug(headingText(heading.content)));
  };
}
