/**
 * The SQL of the Postgres search engine (postgresSearch.ts), one builder per statement:
 *
 * 1. the lexicon lookup: the lexemes standing for each partial word of the query;
 * 2. the candidates: full-text matches (tier 0 title or label hit, tier 1 body only), matches
 *    of the German transliterations only (tier 2: 'Baeume' finding 'Bäume', 'Strasse' finding
 *    'Straße', 'Größe' finding 'Groesse') and, when they are exhausted before the page is full,
 *    the substring fallback (tier 3), each bounded and ranked where found. One statement, so the
 *    permission lists travel once;
 * 3. the presentation of one page of hits: titles, ponds, label chips, snippets.
 *
 * No statement computes `to_tsvector`: matching and ranking use the stored vectors. Query text
 * reaches the configuration in the index's spelling of ß (`indexedSpellingSql`).
 */
import type { SearchCursor } from '../http/cursorCodec.ts';
import { SqlParameters } from '../policies/readablePagesSql.ts';
import { headlineSql, indexedSpellingSql, lexiconSpellingSql, SEARCH_BODY_MAX_CHARS, SEARCH_CONFIG, withoutSentinelsSql } from './pageSearchIndex.ts';
import { HIT_END, HIT_START } from './searchEngine.ts';
import type { ParsedSearchQuery } from './searchQuery.ts';
import type { SearchScope } from './searchScope.ts';

export const HEAD_CANDIDATES = 50;
export const BODY_CANDIDATES = 100;
export const TRANSLITERATED_CANDIDATES = 100;
export const FALLBACK_CANDIDATES = 100;
/** Pages holding all of a phrase's words that are checked for the phrase itself. */
export const PHRASE_PAGES = 1_000;
/**
 * Lexemes a partial word stands for: the shortest ones containing it. Each costs a read of its
 * posting list (~0.2 ms for a common word), so the fallback looks for the 24 closest words.
 */
const LEXEMES_PER_TERM = 24;
/** A one- or two-character prefix starts many words: the shortest are chosen among this many (index order). */
const PREFIX_LEXEMES_SCANNED = 2_000;
/** The window of the body a snippet is cut from, starting this far before the first hit. */
const SNIPPET_WINDOW_CHARS = 320;
const SNIPPET_LEAD_CHARS = 100;

export interface Statement {
  sql: string;
  bind: unknown[];
}

/** What the fallback looks for: for every partial term, the lexemes standing for it. */
export interface Fallback {
  /** Per term, its lexemes as tsquery operands. */
  alternatives: string[][];
}

/** Quotes a lexeme as a tsquery operand. */
export function tsqueryOperand(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** A lexicon entry as a partial word is compared with it (the term is folded by unaccent, ß to ss, too). */
const LEXICON_SPELLING = lexiconSpellingSql('lexeme');

/** A spelling as the lexicon reads it: ß as ss (and as unaccent folds the term). */
const asRead = (spelling: string) => spelling.replace(/ß/g, 'ss');

/**
 * The spellings of each partial term to look up, as the lexicon reads them: the term and its
 * other spellings (umlauts: 'baeum' finds 'Bäume'), those that differ only in ß and ss once.
 */
function lexiconSpellings(terms: readonly string[], transliterations: readonly (readonly [string, readonly string[]])[]): [term: number, spelling: string][] {
  const others = new Map(transliterations);
  return terms.flatMap((term, index) => [...new Set([term, ...(others.get(term) ?? [])].map(asRead))].map((spelling): [number, string] => [index, spelling]));
}

/** The lexemes of each partial term: an infix match (trigram index) from 3 characters, a prefix below. */
export function lexiconStatement(terms: readonly string[], transliterations: readonly (readonly [string, readonly string[]])[] = []): Statement {
  const parameters = new SqlParameters();
  const lookups = lexiconSpellings(terms, transliterations).map(([index, term]) => {
    const folded = `lower(dt_unaccent(${parameters.add(term, 'text')}))`;
    return term.length >= 3
      ? `(SELECT ${index} AS term, lexeme FROM search_lexemes WHERE ${LEXICON_SPELLING} LIKE '%' || ${folded} || '%' ORDER BY length(lexeme), lexeme LIMIT ${LEXEMES_PER_TERM})`
      : `(SELECT ${index} AS term, lexeme FROM (SELECT lexeme FROM search_lexemes WHERE ${LEXICON_SPELLING} LIKE ${folded} || '%' ORDER BY ${LEXICON_SPELLING} LIMIT ${PREFIX_LEXEMES_SCANNED}) AS prefixed
           ORDER BY length(lexeme), lexeme LIMIT ${LEXEMES_PER_TERM})`;
  });
  return { sql: lookups.join(' UNION ALL '), bind: parameters.values };
}

/** The tsquery `parser` makes of `text` (a bound value) in the index's spelling. */
function tsquerySql(parser: 'websearch_to_tsquery' | 'plainto_tsquery' | 'phraseto_tsquery', text: string): string {
  return `${parser}('${SEARCH_CONFIG}', ${indexedSpellingSql(text)})`;
}

/**
 * The query as typed (tiers 0 and 1). websearch_to_tsquery excludes an excluded word in the one
 * spelling typed; one with other spellings is kept out in each of them too, so '-strasse'
 * keeps out 'Straße' and '-muehle' 'Mühle' in every tier.
 */
function fullTextTsquery(parameters: SqlParameters, parsed: ParsedSearchQuery): string {
  const typed = tsquerySql('websearch_to_tsquery', parameters.add(parsed.text, 'text'));
  const others = new Map(parsed.transliterations);
  const respelled = parsed.excludedTerms.filter((words) => words.split(' ').some((word) => others.has(word)));
  return respelled.length === 0 ? typed : `(${typed}${exclusionsSql(parameters, parsed, respelled)})`;
}

/** ` && !! …` for each of `excluded` (words or phrases), in any of their spellings. */
function exclusionsSql(parameters: SqlParameters, parsed: ParsedSearchQuery, excluded: readonly string[]): string {
  return excluded.map((words) => ` && !! ${withEverySpelling(parameters, parsed, tsquerySql('phraseto_tsquery', parameters.add(words, 'text')))}`).join('');
}

/**
 * `query` (a tsquery expression) with every transliterated word standing for any of its
 * spellings: `baeume & x` → `(baeume | baume) & x` (the configuration folds 'bäume' to
 * 'baume'), `strasse` → `(strasse | straƨe)`. The structure stays: phrases, OR and exclusions
 * keep their meaning for every spelling. `query` itself when no word has another spelling.
 */
function withEverySpelling(parameters: SqlParameters, parsed: ParsedSearchQuery, query: string): string {
  return parsed.transliterations.reduce((rewritten, [word, others]) => {
    const target = tsquerySql('plainto_tsquery', parameters.add(word, 'text'));
    const any = [target, ...others.map((other) => tsquerySql('plainto_tsquery', parameters.add(other, 'text')))].join(' || ');
    return `ts_rewrite(${rewritten}, ${target}, (${any}))`;
  }, query);
}

/** The tier-2 query: `query` with every spelling of its words; null when no word has another spelling. */
function transliteratedTsquery(parameters: SqlParameters, parsed: ParsedSearchQuery, query: string): string | null {
  return parsed.transliterations.length === 0 ? null : withEverySpelling(parameters, parsed, query);
}

/**
 * Any other spelling of any word: a page tier 2 finds holds one (without, the transliterated
 * query says what the query as typed says). The index answers it from the short posting lists
 * of the rarer spellings, so a common word with another spelling ('dass', 'über') does not
 * read the vector of every page holding it only to find each matches as typed.
 */
function otherSpellingsTsquery(parameters: SqlParameters, parsed: ParsedSearchQuery): string {
  const others = parsed.transliterations.flatMap(([, spellings]) => spellings.map((other) => tsquerySql('plainto_tsquery', parameters.add(other, 'text'))));
  return `(${others.join(' || ')})`;
}

/**
 * The fallback as one tsquery (every term by one of its lexemes, none of the excluded words in
 * any spelling: '-muehle' keeps out 'Mühle'), for ranking and highlighting.
 */
function fallbackTsquery(parameters: SqlParameters, parsed: ParsedSearchQuery, fallback: Fallback): string {
  const query = fallback.alternatives.map((lexemes) => `(${lexemes.join(' | ')})`).join(' & ');
  return `(${parameters.add(query, 'text')}::tsquery${exclusionsSql(parameters, parsed, parsed.excludedTerms)})`;
}

/** Rows of `source` (columns tier, rank, id) after the cursor in the result order. */
function afterCursorSql(parameters: SqlParameters, cursor: SearchCursor | null): string {
  if (!cursor) return 'true';
  const tier = parameters.add(cursor.tier, 'int');
  const rank = parameters.add(cursor.rank, 'real');
  const id = parameters.add(cursor.id, 'uuid');
  return `(tier > ${tier} OR (tier = ${tier} AND (rank < ${rank} OR (rank = ${rank} AND id > ${id}))))`;
}

/**
 * Tier 1. A phrase is checked against a vector's positions, which the index does not hold:
 * every page holding all the words is read until enough hold the phrase. For a phrase of
 * common words that held none, that was every such page (300 ms); so a phrase is looked for in
 * the first PHRASE_PAGES readable pages holding all its words.
 */
function bodySql(parameters: SqlParameters, parsed: ParsedSearchQuery, query: string, readable: string): string {
  if (parsed.phraseWords.length === 0) {
    return `SELECT p.id, 1 AS tier, ts_rank(p.search_vector, ${query}) AS rank
        FROM pages p WHERE p.search_vector @@ ${query} AND NOT (p.search_head @@ ${query}) AND ${readable} LIMIT ${BODY_CANDIDATES + 1}`;
  }
  const loose = looseTsquery(parameters, parsed);
  return `SELECT c.id, 1 AS tier, ts_rank(c.search_vector, ${query}) AS rank
        FROM (SELECT p.id, p.search_vector, p.search_head FROM pages p WHERE p.search_vector @@ ${loose} AND ${readable} LIMIT ${PHRASE_PAGES}) AS c
       WHERE c.search_vector @@ ${query} AND NOT (c.search_head @@ ${query}) LIMIT ${BODY_CANDIDATES + 1}`;
}

/** The query with the phrases' words merely AND-ed: the index answers it exactly. */
function looseTsquery(parameters: SqlParameters, parsed: ParsedSearchQuery): string {
  return tsquerySql('websearch_to_tsquery', parameters.add(parsed.text.replace(/"/g, ' '), 'text'));
}

/**
 * Tier 2: pages the query finds only through a transliterated spelling, ranked by that query
 * over the full vector (title hits first). Below every full-text match of the words as typed,
 * so 'Baeume' lists the pages saying 'Baeume' before those saying 'Bäume', 'Strasse' those
 * saying 'Strasse' before those saying 'Straße'. A phrase is bounded as in tier 1.
 */
function transliteratedSql(parameters: SqlParameters, parsed: ParsedSearchQuery, query: string, transliterated: string, readable: string): string {
  const others = otherSpellingsTsquery(parameters, parsed);
  if (parsed.phraseWords.length === 0) {
    return `SELECT p.id, 2 AS tier, ts_rank(p.search_vector, ${transliterated}) AS rank
        FROM pages p WHERE p.search_vector @@ ${transliterated} AND p.search_vector @@ ${others} AND NOT (p.search_vector @@ ${query}) AND ${readable}
       LIMIT ${TRANSLITERATED_CANDIDATES + 1}`;
  }
  const loose = transliteratedTsquery(parameters, parsed, looseTsquery(parameters, parsed))!;
  return `SELECT c.id, 2 AS tier, ts_rank(c.search_vector, ${transliterated}) AS rank
        FROM (SELECT p.id, p.search_vector FROM pages p WHERE p.search_vector @@ ${loose} AND p.search_vector @@ ${others} AND ${readable} LIMIT ${PHRASE_PAGES}) AS c
       WHERE c.search_vector @@ ${transliterated} AND NOT (c.search_vector @@ ${query}) LIMIT ${TRANSLITERATED_CANDIDATES + 1}`;
}

/**
 * The candidates after `cursor` (columns id, tier, rank), unordered: the caller sorts them
 * by tier, rank (best first) and id, the order the cursor was taken in.
 *
 * Full text: tier 0 is the first HEAD_CANDIDATES title or label matches the index yields,
 * tier 1 the first BODY_CANDIDATES other matches; each ranked over the full vector, only the
 * rows the LIMIT lets through (ranking every match of a common word would read every one of
 * their vectors). An excluded word may sit in the body of a page whose title matches the
 * rest: then the head match also checks the full vector.
 *
 * The fallback runs only when neither full-text bound was reached and fewer full-text
 * candidates than `wanted` follow the cursor (a one-time filter: otherwise its scans never
 * start). It matches one index condition per lexeme (OR within a term, AND across terms):
 * Postgres unites their posting lists about eight times faster than it evaluates one tsquery
 * of many alternatives. Ranked by the head alone: title and label hits first, without reading
 * the body's vector.
 */
export function candidatesStatement(scope: SearchScope, parsed: ParsedSearchQuery, fallback: Fallback | null, cursor: SearchCursor | null, wanted: number): Statement {
  const parameters = new SqlParameters();
  const query = fullTextTsquery(parameters, parsed);
  const afterCursor = afterCursorSql(parameters, cursor);
  const readable = scope.sql('p', parameters);
  const bodyExcludes = parsed.excludedTerms.length > 0 ? `AND p.search_vector @@ ${query}` : '';
  const transliterated = transliteratedTsquery(parameters, parsed, query);
  const folded = transliterated ? transliteratedSql(parameters, parsed, query, transliterated, readable) : `SELECT NULL::uuid AS id, 2 AS tier, 0::real AS rank WHERE false`;
  let partial = '';
  if (fallback) {
    const tsquery = fallbackTsquery(parameters, parsed, fallback);
    const matches = fallback.alternatives
      .map((lexemes) => `(${lexemes.map((lexeme) => `p.search_vector @@ ${parameters.add(lexeme, 'tsquery')}`).join(' OR ')})`)
      .join(' AND ');
    const excluded = parsed.excludedTerms.length > 0 ? `AND p.search_vector @@ ${tsquery}` : '';
    partial = `,
    gate AS (
      SELECT (SELECT count(*) FROM head) <= ${HEAD_CANDIDATES} AND (SELECT count(*) FROM body) <= ${BODY_CANDIDATES}
         AND (SELECT count(*) FROM folded) <= ${TRANSLITERATED_CANDIDATES}
         AND (SELECT count(*) FROM full_text WHERE ${afterCursor}) < ${wanted} AS open
    ),
    partial AS (
      SELECT p.id, 3 AS tier, ts_rank(p.search_head, ${tsquery}) AS rank
        FROM pages p
       WHERE (SELECT open FROM gate) AND ${matches} ${excluded} AND p.id NOT IN (SELECT id FROM full_text) AND ${readable}
       LIMIT ${FALLBACK_CANDIDATES}
    )`;
  }
  const sql = `
    WITH head AS (
      SELECT p.id, 0 AS tier, ts_rank(p.search_vector, ${query}) AS rank
        FROM pages p WHERE p.search_head @@ ${query} ${bodyExcludes} AND ${readable} LIMIT ${HEAD_CANDIDATES + 1}
    ),
    body AS (${bodySql(parameters, parsed, query, readable)}),
    folded AS (${folded}),
    full_text AS (SELECT * FROM head UNION ALL SELECT * FROM body UNION ALL SELECT * FROM folded)${partial}
    SELECT id, tier, rank FROM (SELECT * FROM full_text${fallback ? ' UNION ALL SELECT * FROM partial' : ''}) AS candidates WHERE ${afterCursor}`;
  return { sql, bind: parameters.values };
}

const MARKS = `StartSel=${HIT_START}, StopSel=${HIT_END}`;

/**
 * Titles, ponds, label chips and snippets of the hits, the hits of each tier highlighted by its
 * query. A headline parses all the text it is given, so it gets a window of the body around
 * the first occurrence of a query word: found by a plain string search, of the folded text
 * only when the word is not there as typed ('baume' in 'Bäume').
 */
export function presentationStatement(parsed: ParsedSearchQuery, fallback: Fallback | null, ids: string[], fallbackIds: string[], transliteratedIds: string[] = []): Statement {
  const parameters = new SqlParameters();
  const fullText = fullTextTsquery(parameters, parsed);
  const transliterated = transliteratedIds.length > 0 ? transliteratedTsquery(parameters, parsed, fullText) : null;
  const byTier = [
    ...(fallback && fallbackIds.length > 0 ? [`WHEN p.id = ANY (${parameters.add(fallbackIds, 'uuid[]')}) THEN ${fallbackTsquery(parameters, parsed, fallback)}`] : []),
    ...(transliterated ? [`WHEN p.id = ANY (${parameters.add(transliteratedIds, 'uuid[]')}) THEN ${transliterated}`] : []),
  ];
  const query = byTier.length > 0 ? `CASE ${byTier.join(' ')} ELSE ${fullText} END` : fullText;
  const words = [...parsed.partialTerms, ...parsed.phraseWords];
  const others = new Map(parsed.transliterations);
  const terms = parameters.add([...words, ...words.flatMap((word) => others.get(word) ?? [])], 'text[]');
  const sql = `
    SELECT p.id, p.slug, po.id AS pond_id, po.slug AS pond_slug, po.name AS pond_name,
           ${headlineSql(withoutSentinelsSql('p.title'), 'q.query', `HighlightAll=true, ${MARKS}`)} AS title,
           ${headlineSql(withoutSentinelsSql(`substr(b.body, greatest(1, h.first_hit - ${SNIPPET_LEAD_CHARS}), ${SNIPPET_WINDOW_CHARS})`), 'q.query', `MaxWords=32, MinWords=12, ShortWord=2, ${MARKS}`)} AS snippet,
           coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY lower(l.name), l.id)
                       FROM page_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.page_id = p.id), '[]') AS labels
      FROM pages p JOIN ponds po ON po.id = p.pond_id LEFT JOIN page_contents c ON c.page_id = p.id
           CROSS JOIN LATERAL (SELECT ${query} AS query) q
           -- OFFSET 0 keeps each computed once per row: inlined, every reference would read the text again.
           CROSS JOIN LATERAL (SELECT left(coalesce(c.plain_text, ''), ${SEARCH_BODY_MAX_CHARS}) AS body OFFSET 0) b
           CROSS JOIN LATERAL (SELECT lower(b.body) AS body OFFSET 0) lowered
           CROSS JOIN LATERAL (
             SELECT coalesce(min(coalesce(nullif(strpos(lowered.body, t), 0), nullif(strpos(lower(dt_unaccent(b.body)), lower(dt_unaccent(t))), 0))), 1) AS first_hit
               FROM unnest(${terms}) AS t) h
     WHERE p.id = ANY (${parameters.add(ids, 'uuid[]')})`;
  return { sql, bind: parameters.values };
}
