/**
 * Search hits come with their matches wrapped in U+E000 (start) and U+E001 (end) (docs/search.md):
 * split into plain and marked parts, so a view renders the marks as elements and every part
 * as text (never as HTML).
 */
export interface HighlightPart {
  text: string;
  marked: boolean;
}

const START = '\uE000';
const END = '\uE001';

export function highlightParts(value: string): HighlightPart[] {
  const parts: HighlightPart[] = [];
  let marked = false;
  let text = '';
  for (const character of value) {
    if (character === START || character === END) {
      if (text) parts.push({ text, marked });
      text = '';
      marked = character === START;
      continue;
    }
    text += character;
  }
  if (text) parts.push({ text, marked });
  return parts;
}

/** The value without its markers (for titles in attributes and accessible names). */
export function plainText(value: string): string {
  return value.replace(/[\uE000\uE001]/g, '');
}
