/**
 * remark-stringify plugin: the writer of mdast `text` nodes, byte for byte what
 * mdast-util-to-markdown's own `text` handler writes, only faster.
 *
 * Why: the library escapes every text node with its generic `safe()`, which tests each of the
 * ~100 "unsafe" patterns against the text: it checks whether the pattern applies in the current
 * construct stack (a scan of the stack per pattern) and runs the pattern's regular expression
 * over the whole text. A 5,000-word page spent ~70 % of its Markdown time there (issue 6,
 * benchmark (e)). Here the patterns that apply to a construct stack are computed once per stack
 * and grouped by the character they escape, and a pattern only runs when its character occurs
 * in the text. Everything after the matching (the `_` run rule, the skip rule, escapes and
 * references) is the library's algorithm unchanged (mdast-util-to-markdown 2.2.3,
 * lib/util/safe.js, MIT, © Titus Wormer).
 *
 * Why skipping is exact: a match only matters at a position inside the text (`offset … end`),
 * where the pattern's character must stand. Matches outside (in the `before`/`after` context)
 * are recorded but only consulted as neighbours of in-range `_` runs, and only when the
 * neighbour is a "word" character (neither whitespace nor punctuation); patterns whose
 * character is such (the control characters of autolinks) are therefore never skipped.
 */
import type { Handle, Info, Options as ToMarkdownExtension, SafeConfig, State, Unsafe } from 'mdast-util-to-markdown';
import type { Parents, Text } from 'mdast';
import type { Processor } from 'unified';

type Pattern = Unsafe & { _compiled?: RegExp };

/** The patterns in scope for one construct stack, by the character they escape. */
interface ScopedPatterns {
  characters: string[];
  /** Per entry of `characters`, the patterns escaping it. */
  patterns: Pattern[][];
  /** Patterns that never get skipped (see the header). */
  always: Pattern[];
}

/** micromark's classifyCharacter: 1 whitespace, 2 punctuation, undefined otherwise. */
function classifyCharacter(code: number): 1 | 2 | undefined {
  if (Number.isNaN(code)) return undefined;
  const character = String.fromCharCode(code);
  if (code === 32 || /\s/.test(character)) return 1;
  if (/\p{P}|\p{S}/u.test(character)) return 2;
  return undefined;
}

function listInScope(stack: readonly string[], list: Unsafe['inConstruct'], none: boolean): boolean {
  const names = typeof list === 'string' ? [list] : list;
  if (!names || names.length === 0) return none;
  return names.some((name) => stack.includes(name));
}

function nodeInScope(types: Unsafe['beforeNode'], node: SafeConfig['beforeNode']): boolean {
  if (!types) return true;
  if (!node) return false;
  return typeof types === 'string' ? types === node.type : types.includes(node.type);
}

/** Scoped patterns per `state.unsafe` list (one per toMarkdown call), by construct stack. */
const scopeCache = new WeakMap<readonly Unsafe[], { stack: string[]; scoped: ScopedPatterns }[]>();

function sameStack(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}

function scopedPatterns(state: State): ScopedPatterns {
  let entries = scopeCache.get(state.unsafe);
  if (!entries) {
    entries = [];
    scopeCache.set(state.unsafe, entries);
  }
  // A document has a handful of distinct stacks (paragraph, heading, emphasis, table cell …).
  for (const entry of entries) if (sameStack(entry.stack, state.stack)) return entry.scoped;
  const always: Pattern[] = [];
  const byCharacter = new Map<string, Pattern[]>();
  for (const pattern of state.unsafe as Pattern[]) {
    if (!listInScope(state.stack, pattern.inConstruct, true) || listInScope(state.stack, pattern.notInConstruct, false)) continue;
    if (classifyCharacter(pattern.character.charCodeAt(0)) === undefined) {
      always.push(pattern);
      continue;
    }
    const list = byCharacter.get(pattern.character);
    if (list) list.push(pattern);
    else byCharacter.set(pattern.character, [pattern]);
  }
  const scoped = { characters: [...byCharacter.keys()], patterns: [...byCharacter.values()], always };
  entries.push({ stack: [...state.stack], scoped });
  return scoped;
}

/** The patterns to run on `value`: those in scope whose character occurs in `offset … end`. */
function patternsFor(scoped: ScopedPatterns, value: string, offset: number, end: number): Pattern[] {
  let patterns = scoped.always;
  for (let index = 0; index < scoped.characters.length; index += 1) {
    const found = value.indexOf(scoped.characters[index]!, offset);
    if (found === -1 || found >= end) continue;
    patterns = patterns.length === 0 ? scoped.patterns[index]! : patterns.concat(scoped.patterns[index]!);
  }
  return patterns;
}

/** mdast-util-to-markdown's `safe()`, with the pattern pre-selection described in the header. */
export function safeText(state: State, input: string | null | undefined, config: SafeConfig): string {
  const value = (config.before || '') + (input || '') + (config.after || '');
  const positions: number[] = [];
  const result: string[] = [];
  const infos: Record<number, { before: boolean; after: boolean }> = {};
  const percentEncode = state.stack.includes('autolink');
  const offset = config.before ? config.before.length : 0;
  const end = value.length - (config.after ? config.after.length : 0);

  for (const pattern of patternsFor(scopedPatterns(state), value, offset, end)) {
    if (!nodeInScope(pattern.beforeNode, config.beforeNode) || !nodeInScope(pattern.afterNode, config.afterNode)) continue;
    const expression = state.compilePattern(pattern);
    const from = pattern.beforeNode ? offset : 0;
    const subject = value.slice(from, pattern.afterNode ? end : undefined);
    expression.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = expression.exec(subject))) {
      const before = Boolean(pattern.before || pattern.atBreak);
      const after = Boolean(pattern.after);
      const position = from + match.index + (before ? match[1]!.length : 0);
      const info = infos[position];
      if (info) {
        if (info.before && !before) info.before = false;
        if (info.after && !after) info.after = false;
      } else {
        positions.push(position);
        infos[position] = { before, after };
      }
    }
  }

  positions.sort((a, b) => a - b);
  let start = offset;
  for (let index = 0; index < positions.length; index += 1) {
    const position = positions[index]!;
    if (position < start || position >= end) continue;

    // Intraword underscores (`a_b`, `a__b`) cannot form attention.
    if (
      value.charAt(position) === '_' &&
      position > 0 &&
      classifyCharacter(value.charCodeAt(position - 1)) === undefined &&
      !Object.hasOwn(infos, position - 1) &&
      !(position - 1 === offset && /[*_]/.test(value.charAt(offset - 1)))
    ) {
      let sequenceEnd = position + 1;
      while (sequenceEnd < end && value.charAt(sequenceEnd) === '_') sequenceEnd += 1;
      const skip = sequenceEnd - position - 1;
      if (
        positions[index + skip] === sequenceEnd - 1 &&
        sequenceEnd < value.length &&
        classifyCharacter(value.charCodeAt(sequenceEnd)) === undefined &&
        !Object.hasOwn(infos, sequenceEnd) &&
        !(sequenceEnd === end - 1 && /[*_]/.test(value.charAt(end)))
      ) {
        index += skip;
        continue;
      }
    }

    // Escaped anyway by its neighbour's escape.
    if (
      (position + 1 < end && positions[index + 1] === position + 1 && infos[position]!.after && !infos[position + 1]!.before && !infos[position + 1]!.after) ||
      (position - 1 >= offset && positions[index - 1] === position - 1 && infos[position]!.before && !infos[position - 1]!.before && !infos[position - 1]!.after)
    ) {
      continue;
    }

    if (start !== position) {
      const slice = value.slice(start, position);
      result.push(percentEncode ? slice : escapeBackslashes(slice, '\\'));
    }
    start = position + 1;

    if (percentEncode) {
      result.push('%' + value.charCodeAt(position).toString(16).toUpperCase().padStart(2, '0'));
    } else if (/[!-/:-@[-`{-~]/.test(value.charAt(position)) && (!config.encode || !config.encode.includes(value.charAt(position)))) {
      result.push('\\' + value.charAt(position));
    } else {
      result.push('&#x' + value.charCodeAt(position).toString(16).toUpperCase() + ';');
    }
  }

  const rest = value.slice(start, end);
  result.push(percentEncode ? rest : escapeBackslashes(rest, config.after ?? ''));
  return result.join('');
}

/** A backslash before ASCII punctuation (in `value`, or first in `after`) would escape it: doubled. */
function escapeBackslashes(value: string, after: string): string {
  if (!value.includes('\\') && !after.includes('\\')) return value;
  const expression = /\\(?=[!-/:-@[-`{-~])/g;
  const positions: number[] = [];
  const results: string[] = [];
  const whole = value + after;
  let start = 0;
  let match: RegExpExecArray | null;
  while ((match = expression.exec(whole))) positions.push(match.index);
  for (const position of positions) {
    if (start !== position) results.push(value.slice(start, position));
    results.push('\\');
    start = position;
  }
  results.push(value.slice(start));
  return results.join('');
}

/** mdast-util-to-markdown's `text` handler, with `safeText`. */
function writeText(node: Text, parent: Parents | undefined, state: State, info: Info): string {
  const siblings = parent && 'children' in parent ? (parent.children as SafeConfig['beforeNode'][]) : [];
  const index = state.indexStack[state.indexStack.length - 1]!;
  return safeText(state, node.value, { ...info, afterNode: siblings[index + 1], beforeNode: siblings[index - 1] });
}

/**
 * Characters of a text's start that decide its first written character: whether the first
 * one is escaped depends on the patterns matching at positions 0 and 1, and a match there
 * looks at most one character further (a pattern's `after`).
 */
const PEEK_LENGTH = 8;

/**
 * What the library gets when it peeks at a text (the phrasing writer writes the next sibling
 * to learn its first character, the `after` of the node before): the text handler's output,
 * of which only the first character is used. The library has no peek for text and writes the
 * whole text a second time; the first character comes out the same from its first characters
 * (see PEEK_LENGTH), so only those are written.
 */
function peekText(node: Text, parent: Parents | undefined, state: State, info: Info): string {
  const value = node.value.length > PEEK_LENGTH ? node.value.slice(0, PEEK_LENGTH) : node.value;
  return writeText({ ...node, value }, parent, state, info);
}

const text: Handle & { peek: Handle } = Object.assign(writeText as Handle, { peek: peekText as Handle });
const extension: ToMarkdownExtension = { handlers: { text } };

/** Registers the text writer with remark-stringify (after the other extensions, so it wins). */
export function remarkTextToMarkdown(this: Processor): undefined {
  const data = this.data();
  (data.toMarkdownExtensions ??= []).push(extension);
}
