/**
 * The one rule for text that comes in: no NUL (U+0000) and no lone surrogate, anywhere.
 *
 * Postgres stores neither: a NUL in a `text` parameter or either of them in `jsonb` is an
 * error (a 500), and where Sequelize escapes a value itself a NUL is silently stored as the two
 * characters `\0`, a lone surrogate as U+FFFD. So every string of a request's params, query and
 * body (keys included) is checked before the route's schema sees it, and every string the
 * schema hands on is checked again (a transform may decode text, as the cursors do); the
 * route wrapper refuses either with 400 `validation_failed` naming the field
 * (validation.ts). Nesting deeper than MAX_INPUT_DEPTH is refused too, before anything
 * recurses through it.
 *
 * Text that has to be stored whatever it holds (what an audit entry records about a failed
 * request) goes through `storableText` / `storableJson` instead.
 */

/** Deeper JSON than any route takes; a body nested deeper is refused before anything recurses through it. */
export const MAX_INPUT_DEPTH = 64;

const REPLACEMENT = '\uFFFD';

/** True when Postgres can store the text as it is: no NUL, no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** The text with each NUL and lone surrogate replaced by U+FFFD. */
export function storableText(text: string): string {
  return isStorableText(text) ? text : text.toWellFormed().replaceAll('\u0000', REPLACEMENT);
}

function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A copy of a JSON-like value whose strings (keys included) are all storable; deeper than MAX_INPUT_DEPTH is cut. */
export function storableJson(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (!isPlainContainer(value)) return value;
  if (depth >= MAX_INPUT_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => storableJson(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item, depth + 1)]));
}

export interface InputTextProblems {
  /** Where a string (or a key) breaks the rule, as path segments; a bad key is named with U+FFFD in place. */
  unstorable: string[][];
  /** The value nests deeper than MAX_INPUT_DEPTH. */
  tooDeep: boolean;
}

/**
 * Walks a request part (or what a schema made of it) without recursion, so a body nested
 * 100,000 deep costs a loop, not the stack. Only strings, arrays and plain objects are
 * walked: class instances a transform produced (a Date) hold no request text.
 */
export function findInputTextProblems(value: unknown, options: { limit?: number } = {}): InputTextProblems {
  const limit = options.limit ?? 20;
  const problems: InputTextProblems = { unstorable: [], tooDeep: false };
  const pending: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (pending.length > 0 && problems.unstorable.length < limit) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) problems.unstorable.push(path);
      continue;
    }
    if (!isPlainContainer(current)) continue;
    if (path.length >= MAX_INPUT_DEPTH) {
      problems.tooDeep = true;
      break;
    }
    const entries: [string, unknown][] = Array.isArray(current) ? current.map((item, index) => [String(index), item]) : Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, item] = entries[index]!;
      if (!isStorableText(key)) problems.unstorable.push([...path, storableText(key)]);
      else pending.push({ value: item, path: [...path, key] });
    }
  }
  return problems;
}
