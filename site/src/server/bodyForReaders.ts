/**
 * The sanitized page body as readers of a public document meet it, adjusted where the content
 * pipeline's exact output is known (its sanitizer allows no attributes on pre and table, and
 * exactly these two checkbox forms):
 * - code blocks and tables scroll sideways inside their box on a narrow screen, so each is a
 *   tab stop, or a keyboard could not scroll it;
 * - a task's box becomes a drawn box plus its state in words for screen readers: a disabled
 *   form control without a label, in a document nobody can submit, helps no one.
 *
 * Only whole tags are rewritten. The serializer leaves `<` unescaped inside attribute values
 * (a link title may read `<pre>`), so the scan reads each tag with its quoted values and
 * never matches inside one.
 */

export interface TaskLabels {
  /** Read before a done task's text, e.g. "Done:". */
  done: string;
  /** Read before an open task's text, e.g. "To do:". */
  open: string;
}

/** Every tag with its attributes (quoted values may hold `>` and `<`), comments included. */
const TAG = /<!--[\s\S]*?-->|<\/?[a-zA-Z][^\s/>]*(?:[^>"']|"[^"]*"|'[^']*')*>/g;
const REWRITTEN = ['<pre>', '<table>', '<input type="checkbox" disabled checked>', '<input type="checkbox" disabled>'];

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function bodyForReaders(html: string, labels: TaskLabels): string {
  // Most bodies have none of these: no scan then.
  if (!REWRITTEN.some((tag) => html.includes(tag))) return html;
  const rewrites = new Map([
    ['<pre>', '<pre tabindex="0">'],
    ['<table>', '<table tabindex="0">'],
    ['<input type="checkbox" disabled checked>', `<span class="task-box is-done" aria-hidden="true"></span><span class="visually-hidden">${escapeText(labels.done)} </span>`],
    ['<input type="checkbox" disabled>', `<span class="task-box" aria-hidden="true"></span><span class="visually-hidden">${escapeText(labels.open)} </span>`],
  ]);
  return html.replace(TAG, (tag) => rewrites.get(tag) ?? tag);
}
