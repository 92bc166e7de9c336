/**
 * Heading ids: derived from the heading text when Markdown is read (ids are never written to
 * Markdown), unique within one document by appending `-2`, `-3`, ….
 */

/** The id a heading gets when its text has nothing id-worthy (empty, only punctuation or emoji). */
export const FALLBACK_HEADING_ID = 'heading';

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

/**
 * A slugger for one document: every call returns an id not returned before (`a`, `a-2`,
 * `a-3`; a heading literally titled "a 2" after two "a"s gets `a-2-2`).
 */
export function createHeadingSlugger(): (text: string) => string {
  const used = new Set<string>();
  return (text) => {
    const base = headingSlug(text);
    let id = base;
    for (let n = 2; used.has(id); n += 1) id = `${base}-${n}`;
    used.add(id);
    return id;
  };
}
