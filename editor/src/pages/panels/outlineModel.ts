/**
 * The outline: the page body's own headings, read from the DOM (the API has no outline field).
 * Only headings inside the body count: the rendered body (`#page-body`) until the editor takes
 * over, then the editor's text (`.page-editor-content`). Everything else on the screen with a
 * heading is not the page's: the title (`#page-title`) stands above the outline, the new-comment
 * box under the toolbar, the side panels (a version's preview). Headings inside a transclusion
 * belong to another page. The rendered body gives each heading an id `h-<id>`.
 */
export interface OutlineEntry {
  level: number;
  text: string;
  /** The heading's id, for a `#` link; null when the body gave it none (then a click scrolls). */
  id: string | null;
  element: HTMLElement;
}

const BODY_HEADINGS = ':is(#page-body, .page-editor-content) :is(h1, h2, h3, h4, h5, h6)';
// The editor's host stays hidden until it has synced, beside the rendered body: its headings count once shown.
const SKIPPED = '.dt-transclusion, .transclusion-box, .page-panels, [hidden]';

export function readOutline(root: ParentNode): OutlineEntry[] {
  return Array.from(root.querySelectorAll<HTMLElement>(BODY_HEADINGS))
    .filter((heading) => !heading.closest(SKIPPED) && (heading.textContent ?? '').trim() !== '')
    .map((heading) => ({
      level: Number(heading.tagName.slice(1)),
      text: (heading.textContent ?? '').trim().replace(/\s+/g, ' '),
      id: heading.id || null,
      element: heading,
    }));
}

/** Indent levels start at the shallowest heading present, so a page of h2s is not indented. */
export function indentOf(entry: OutlineEntry, entries: OutlineEntry[]): number {
  const top = Math.min(...entries.map((candidate) => candidate.level));
  return Math.min(entry.level - top, 4);
}
