/**
 * remark plugin: the inline syntax `[[slug]]`, `[[slug|text]]` and its embedded form
 * `![[slug]]` / `![[slug|display]]`, parsed into mdast `wikiLink` nodes.
 *
 * It is a micromark syntax extension rather than a text search over parsed nodes, because by
 * then CommonMark has already resolved the backslash escapes the display text needs (`\|`,
 * `\]`, `\\`) and may have turned parts of it into emphasis.
 *
 * Grammar (one line, nothing else in between):
 * - the target is a page slug: ASCII letters, digits and hyphens (slugs are compared
 *   case-insensitively elsewhere, so the case is kept as written). Anything else after `[[`
 *   is not a wikilink and stays ordinary Markdown (`[[*foo* bar]]` is a bracket and a link).
 * - the separator is `|`, also accepted as `\|` so a wikilink survives inside a GFM table
 *   cell, where every pipe of the cell content must be escaped.
 * - the display text runs to the first unescaped `]]`; a backslash before an ASCII
 *   punctuation character makes that character literal (`\|`, `\]`, `\\`). An empty display
 *   text is no display text.
 * Whether an embed stands on a line of its own is decided later (remarkTransclusions).
 */
import type { Literal } from 'mdast';
import type { CompileContext, Extension as FromMarkdownExtension, Token } from 'mdast-util-from-markdown';
import type { Code, Construct, Effects, Extension as MicromarkExtension, State } from 'micromark-util-types';
import type { Processor } from 'unified';

/** mdast node for `[[…]]`; `embedded` marks the `![[…]]` form. */
export interface WikiLink extends Literal {
  type: 'wikiLink';
  targetSlug: string;
  displayText: string | null;
  embedded: boolean;
}

declare module 'mdast' {
  interface PhrasingContentMap {
    wikiLink: WikiLink;
  }
  interface RootContentMap {
    wikiLink: WikiLink;
  }
}

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    wikiLink: 'wikiLink';
  }
}

const EXCLAMATION_MARK = 33;
const HYPHEN = 45;
const BACKSLASH = 92;
const LEFT_BRACKET = 91;
const RIGHT_BRACKET = 93;
const VERTICAL_BAR = 124;

const SLUG_PREFIX = /^[A-Za-z0-9-]+/;
const ASCII_PUNCTUATION_ESCAPE = /\\([!-/:-@[-`{-~])/g;

function isSlugCharacter(code: Code): boolean {
  return code !== null && ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === HYPHEN);
}

/** micromark encodes line endings as negative codes below -2 (CR, LF, CRLF). */
function isLineEndingOrEnd(code: Code): boolean {
  return code === null || code < -2;
}

function tokenizeWikilink(effects: Effects, ok: State, nok: State): State {
  let slugLength = 0;
  return start;

  function start(code: Code): State | undefined {
    effects.enter('wikiLink');
    if (code === EXCLAMATION_MARK) {
      effects.consume(code);
      return firstOpeningBracket;
    }
    return firstOpeningBracket(code);
  }
  function firstOpeningBracket(code: Code): State | undefined {
    if (code !== LEFT_BRACKET) return nok(code);
    effects.consume(code);
    return secondOpeningBracket;
  }
  function secondOpeningBracket(code: Code): State | undefined {
    if (code !== LEFT_BRACKET) return nok(code);
    effects.consume(code);
    return slug;
  }
  function slug(code: Code): State | undefined {
    if (isSlugCharacter(code)) {
      slugLength += 1;
      effects.consume(code);
      return slug;
    }
    if (slugLength === 0) return nok(code);
    if (code === RIGHT_BRACKET) {
      effects.consume(code);
      return closingBracketAfterSlug;
    }
    if (code === VERTICAL_BAR) {
      effects.consume(code);
      return displayText;
    }
    if (code === BACKSLASH) {
      effects.consume(code);
      return escapedSeparator;
    }
    return nok(code);
  }
  function escapedSeparator(code: Code): State | undefined {
    if (code !== VERTICAL_BAR) return nok(code);
    effects.consume(code);
    return displayText;
  }
  function closingBracketAfterSlug(code: Code): State | undefined {
    if (code !== RIGHT_BRACKET) return nok(code);
    effects.consume(code);
    effects.exit('wikiLink');
    return ok;
  }
  function displayText(code: Code): State | undefined {
    if (isLineEndingOrEnd(code)) return nok(code);
    effects.consume(code);
    if (code === BACKSLASH) return escapedCharacter;
    if (code === RIGHT_BRACKET) return closingBracketAfterText;
    return displayText;
  }
  function escapedCharacter(code: Code): State | undefined {
    if (isLineEndingOrEnd(code)) return nok(code);
    effects.consume(code);
    return displayText;
  }
  function closingBracketAfterText(code: Code): State | undefined {
    if (code !== RIGHT_BRACKET) return displayText(code);
    effects.consume(code);
    effects.exit('wikiLink');
    return ok;
  }
}

/** Precedes the link and image openers of CommonMark, which also start at `[` and `!`. */
const wikilinkConstruct: Construct = { name: 'wikiLink', tokenize: tokenizeWikilink, add: 'before' };

const wikilinkSyntax: MicromarkExtension = {
  text: { [LEFT_BRACKET]: wikilinkConstruct, [EXCLAMATION_MARK]: wikilinkConstruct },
};

/** Splits the source of one `[[…]]` token (the tokenizer guarantees its shape). */
export function parseWikilinkSource(source: string): Omit<WikiLink, 'type' | 'value'> {
  const embedded = source.startsWith('!');
  const inner = source.slice(embedded ? 3 : 2, -2);
  const targetSlug = SLUG_PREFIX.exec(inner)?.[0] ?? '';
  const rest = inner.slice(targetSlug.length).replace(/^\\?\|/, '');
  const displayText = rest.replace(ASCII_PUNCTUATION_ESCAPE, '$1');
  return { targetSlug, displayText: displayText === '' ? null : displayText, embedded };
}

const wikilinkFromMarkdown: FromMarkdownExtension = {
  enter: {
    wikiLink(this: CompileContext, token: Token) {
      this.enter({ type: 'wikiLink', value: '', targetSlug: '', displayText: null, embedded: false }, token);
    },
  },
  exit: {
    wikiLink(this: CompileContext, token: Token) {
      const node = this.stack[this.stack.length - 1] as unknown as WikiLink;
      Object.assign(node, parseWikilinkSource(this.sliceSerialize(token)));
      node.value = node.displayText ?? node.targetSlug;
      this.exit(token);
    },
  },
};

export default function remarkWikilinks(this: Processor): undefined {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(wikilinkSyntax);
  (data.fromMarkdownExtensions ??= []).push(wikilinkFromMarkdown);
}
