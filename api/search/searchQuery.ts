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
/** Each word with other spellings is one `ts_rewrite` of the query: a bound for a pathological query. */
const MAX_TRANSLITERATIONS = 16;

export interface ParsedSearchQuery {
  /** The text for websearch_to_tsquery (control characters removed). */
  text: string;
  /** Words to find by a part of them, lower-cased, each a run of letters and digits. */
  partialTerms: string[];
  /** Excluded words and phrases (after a minus), lower-cased; no fallback result contains them. */
  excludedTerms: string[];
  /** The words of the phrases, lower-cased (where a snippet should look first). */
  phraseWords: string[];
  /**
   * Every query word (found, phrase or excluded) with its other German spellings, lower-cased:
   * `['baeume', ['bäume']]`, `['strasse', ['straße']]`, `['größe', ['groeße', 'grösse', 'groesse']]`.
   * The transliteration tier searches for any of them.
   */
  transliterations: [word: string, others: string[]][];
}

const UMLAUT_SPELLED: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue' };
const SPELLED_UMLAUT: Record<string, string> = { ae: 'ä', oe: 'ö', ue: 'ü' };
/**
 * `ae`, `oe`, `ue` spell an umlaut after a consonant ('Baeume', 'Groesse', 'Muenze'), rarely
 * after a vowel or `q` ('Feuer', 'Quelle', 'neue'): those stay as they are.
 */
const SPELLED = /(?<=[b-df-hj-npr-tv-zß])(ae|oe|ue)/g;

/** The umlauts of a word spelled out, or its spelled-out umlauts written as such; null when it has neither. */
function umlautsSwapped(word: string): string | null {
  if (/[äöü]/.test(word)) return word.replace(/[äöü]/g, (umlaut) => UMLAUT_SPELLED[umlaut]!);
  const written = word.replace(SPELLED, (pair) => SPELLED_UMLAUT[pair]!);
  return written === word ? null : written;
}

/** ß written as ss, or ss as ß ('strasse' ↔ 'straße', 'schlusssatz' → 'schlußsatz'); null when it has neither. */
function sharpSwapped(word: string): string | null {
  if (word.includes('ß')) return word.replace(/ß/g, 'ss');
  return word.includes('ss') ? word.replace(/ss/g, 'ß') : null;
}

/**
 * The other German spellings of a lower-cased word, none when it has none: umlauts spelled
 * out or back ('bäume' ↔ 'baeume'), ß as ss or back ('straße' ↔ 'strasse'), and both at once
 * ('größe' → 'groeße', 'grösse', 'groesse'). The index keeps each apart (ä folds to a, not to
 * ae; ß stays ß: pageSearchIndex.ts), so each is a spelling of its own to search for.
 */
export function otherSpellingsOf(word: string): string[] {
  const umlauts = umlautsSwapped(word);
  const spellings = [umlauts, sharpSwapped(word), umlauts === null ? null : sharpSwapped(umlauts)];
  return [...new Set(spellings.filter((spelling): spelling is string => spelling !== null && spelling !== word))];
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
  const everyWord = new Set([...partialTerms, ...phraseWords, ...excludedTerms.flatMap((terms) => terms.split(' '))]);
  const transliterations = [...everyWord].flatMap((word): [string, string[]][] => {
    const others = otherSpellingsOf(word);
    return others.length === 0 ? [] : [[word, others]];
  });
  return {
    text,
    partialTerms: [...new Set(partialTerms)].slice(0, MAX_FALLBACK_TERMS),
    excludedTerms: [...new Set(excludedTerms)],
    phraseWords: [...new Set(phraseWords)],
    transliterations: transliterations.slice(0, MAX_TRANSLITERATIONS),
  };
}
