/**
 * What a search query asks for, read the way `websearch_to_tsquery` reads it: words are
 * AND-ed, "quoted words" are a phrase, a leading minus excludes, `or` between words is OR.
 * Postgres parses the full-text query itself; this module picks out what the substring
 * fallback needs: the words the results must contain (outside phrases and exclusions) and
 * the excluded ones.
 */
import { HIT_END, HIT_START } from './searchEngine.ts';

export const MAX_QUERY_CHARS = 500;
/** More words than this do not make a better fallback, only a slower one. */
const MAX_FALLBACK_TERMS = 8;

export interface ParsedSearchQuery {
  /** The text for websearch_to_tsquery (control characters removed). */
  text: string;
  /** Words to find by a part of them, lower-cased, each a run of letters and digits. */
  partialTerms: string[];
  /** Excluded words and phrases (after a minus), lower-cased; no fallback result contains them. */
  excludedTerms: string[];
  /** The words of the phrases, lower-cased (where a snippet should look first). */
  phraseWords: string[];
}

const WORD = /[\p{L}\p{N}]+/gu;
// Control characters and our own highlight sentinels carry no meaning in a query.
const IGNORED = new RegExp(`[\\p{Cc}${HIT_START}${HIT_END}]`, 'gu');

export function parseSearchQuery(raw: string): ParsedSearchQuery {
  const text = raw.replace(IGNORED, ' ').trim();
  const partialTerms: string[] = [];
  const excludedTerms: string[] = [];
  // Phrases are matched in full only; an unclosed quote runs to the end, as in websearch.
  const phraseWords: string[] = [];
  const unquoted = text.replace(/(^|\s)(-?)"([^"]*)("|$)/g, (_match, space: string, minus: string, phrase: string) => {
    const words = (phrase.match(WORD) ?? []).map((word) => word.toLowerCase());
    if (minus === '') phraseWords.push(...words);
    else if (words.length > 0) excludedTerms.push(words.join(' '));
    return space;
  });
  for (const token of unquoted.split(/\s+/)) {
    if (token === '') continue;
    const excluded = token.startsWith('-');
    const words = token.match(WORD)?.map((word) => word.toLowerCase()) ?? [];
    if (excluded) excludedTerms.push(...words);
    else if (token.toLowerCase() !== 'or') partialTerms.push(...words);
  }
  return { text, partialTerms: [...new Set(partialTerms)].slice(0, MAX_FALLBACK_TERMS), excludedTerms: [...new Set(excludedTerms)], phraseWords: [...new Set(phraseWords)] };
}
