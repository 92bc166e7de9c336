/**
 * The difference between two versions' Markdown, as rows a reader can follow: lines kept,
 * removed and added (`diffLines`), and inside a removed line that an added one replaces, the
 * words that changed (`diffWordsWithSpace`). Long runs of kept lines fold to a count, with a
 * few lines of context around each change, as a code review shows them.
 */
import { diffLines, diffWordsWithSpace } from 'diff';

export type RowKind = 'same' | 'removed' | 'added';

/** Part of a row's text; `changed` marks the words that differ from the paired line. */
export interface Segment {
  text: string;
  changed: boolean;
}

export type DiffRow = { kind: RowKind; segments: Segment[] } | { kind: 'skipped'; count: number };

export interface VersionDiff {
  rows: DiffRow[];
  added: number;
  removed: number;
}

/** Kept lines shown before and after a change. */
export const CONTEXT_LINES = 2;

const linesOf = (value: string) => value.replace(/\n$/, '').split('\n');

/** The two lines' words: the old line with its removed words marked, the new one with its added words. */
function pairSegments(before: string, after: string): [Segment[], Segment[]] {
  const parts = diffWordsWithSpace(before, after);
  const old = parts.filter((part) => !part.added).map((part) => ({ text: part.value, changed: part.removed }));
  const next = parts.filter((part) => !part.removed).map((part) => ({ text: part.value, changed: part.added }));
  return [old, next];
}

/** Folds runs of kept lines longer than the context on both sides into `skipped` rows. */
function fold(rows: DiffRow[]): DiffRow[] {
  const changed = rows.map((row) => row.kind === 'added' || row.kind === 'removed');
  if (!changed.includes(true)) return rows.length > 0 ? [{ kind: 'skipped', count: rows.length }] : [];
  const near = rows.map((_, index) => changed.slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1).includes(true));
  const folded: DiffRow[] = [];
  for (const [index, row] of rows.entries()) {
    if (near[index]) folded.push(row);
    else {
      const last = folded.at(-1);
      if (last?.kind === 'skipped') last.count += 1;
      else folded.push({ kind: 'skipped', count: 1 });
    }
  }
  return folded;
}

export function versionDiff(before: string, after: string): VersionDiff {
  const parts = diffLines(before.endsWith('\n') || before === '' ? before : `${before}\n`, after.endsWith('\n') || after === '' ? after : `${after}\n`);
  const rows: DiffRow[] = [];
  let added = 0;
  let removed = 0;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    const lines = linesOf(part.value);
    if (!part.added && !part.removed) {
      for (const line of lines) rows.push({ kind: 'same', segments: [{ text: line, changed: false }] });
      continue;
    }
    const next = parts[index + 1];
    if (part.removed && next?.added) {
      // A replacement: its lines side by side, words marked, the surplus whole.
      const newLines = linesOf(next.value);
      const pairs = Math.min(lines.length, newLines.length);
      const pairedNew: Segment[][] = [];
      for (let line = 0; line < lines.length; line++) {
        if (line < pairs) {
          const [old, fresh] = pairSegments(lines[line]!, newLines[line]!);
          rows.push({ kind: 'removed', segments: old });
          pairedNew.push(fresh);
        } else rows.push({ kind: 'removed', segments: [{ text: lines[line]!, changed: true }] });
      }
      for (let line = 0; line < newLines.length; line++) rows.push({ kind: 'added', segments: pairedNew[line] ?? [{ text: newLines[line]!, changed: true }] });
      removed += lines.length;
      added += newLines.length;
      index++;
      continue;
    }
    for (const line of lines) rows.push({ kind: part.added ? 'added' : 'removed', segments: [{ text: line, changed: true }] });
    if (part.added) added += lines.length;
    else removed += lines.length;
  }
  return { rows: fold(rows), added, removed };
}
