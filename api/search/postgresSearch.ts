/**
 * The Postgres search engine (the `SearchEngine` of searchEngine.ts).
 *
 * Results come in three tiers, each ranked by `ts_rank` over the stored vector (weights: title
 * A 1.0, labels B 0.4, body C 0.2; no `to_tsvector` at query time):
 *   0. full-text matches in the title or label names (`search_head`),
 *   1. other full-text matches (`search_vector`),
 *   2. the substring fallback: pages holding a word that contains a query word ('wiss' →
 *      'Wissensbasis'), found through the lexicon (`search_lexemes`) and then the vectors'
 *      index. It runs only when the full-text tiers are exhausted, and never repeats them.
 *
 * Ranking every match of a common word reads every one of their vectors, so the ranked set is
 * bounded: the best HEAD_CANDIDATES title/label matches (ranked on the small head vectors) plus
 * the first BODY_CANDIDATES body matches the index yields. A query matching more than that is
 * answered from those candidates, and its list ends after them.
 * The permission filter is part of each candidate query, so the bound counts readable pages.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { SqlParameters } from '../policies/readablePagesSql.ts';
import { SEARCH_BODY_MAX_CHARS, SEARCH_CONFIG } from './pageSearchIndex.ts';
import { decodeSearchCursor, encodeSearchCursor, type SearchCursor } from './searchCursor.ts';
import { HIT_END, HIT_START, type SearchEngine, type SearchHit, type SearchRequest, type SearchResult } from './searchEngine.ts';
import { parseSearchQuery, type ParsedSearchQuery } from './searchQuery.ts';
import { resolveSearchScope, UNRESTRICTED_SCOPE, type SearchScope } from './searchScope.ts';

export const HEAD_CANDIDATES = 50;
export const BODY_CANDIDATES = 100;
export const FALLBACK_CANDIDATES = 100;
/** Lexemes a partial word stands for: the shortest ones containing it. */
const LEXEMES_PER_TERM = 40;
/** A one- or two-character prefix starts many words: the shortest are chosen among this many (index order). */
const PREFIX_LEXEMES_SCANNED = 2_000;
/** The window of the body a snippet is cut from, starting this far before the first hit. */
const SNIPPET_WINDOW_CHARS = 600;
const SNIPPET_LEAD_CHARS = 200;

interface Candidate {
  id: string;
  tier: 0 | 1 | 2;
  rank: number;
}

function byRank(a: Candidate, b: Candidate): number {
  return a.tier - b.tier || b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function after(candidate: Candidate, cursor: SearchCursor | null): boolean {
  return cursor === null || byRank(candidate, { id: cursor.id, tier: cursor.tier, rank: cursor.rank }) > 0;
}

interface Statement {
  sql: string;
  bind: unknown[];
}

/**
 * Full-text candidates: tier 0 (title or label hit) and tier 1 (body only), each the first
 * matches the index yields up to its bound, ranked over the full vector. `capped` when a bound
 * was reached: there are more matches than the list will show.
 */
function fullTextStatement(scope: SearchScope, parsed: ParsedSearchQuery): Statement {
  const parameters = new SqlParameters();
  const query = `websearch_to_tsquery('${SEARCH_CONFIG}', ${parameters.add(parsed.text, 'text')})`;
  // An excluded word may sit in the body of a page whose title matches the rest.
  const bodyExcludes = parsed.excludedTerms.length > 0 ? `AND p.search_vector @@ ${query}` : '';
  // Ranked where found: the rank is computed for the rows the LIMIT lets through, and no join
  // back to `pages` gives the planner a reason to scan it.
  const sql = `
    WITH head AS (
      SELECT p.id, 0 AS tier, ts_rank(p.search_vector, ${query}) AS rank
        FROM pages p WHERE p.search_head @@ ${query} ${bodyExcludes} AND ${scope.sql('p', parameters)} LIMIT ${HEAD_CANDIDATES + 1}
    ),
    body AS (
      SELECT p.id, 1 AS tier, ts_rank(p.search_vector, ${query}) AS rank
        FROM pages p WHERE p.search_vector @@ ${query} AND NOT (p.search_head @@ ${query}) AND ${scope.sql('p', parameters)} LIMIT ${BODY_CANDIDATES + 1}
    )
    SELECT id, tier, rank, (SELECT count(*) FROM head) > ${HEAD_CANDIDATES} OR (SELECT count(*) FROM body) > ${BODY_CANDIDATES} AS capped
      FROM (SELECT * FROM head UNION ALL SELECT * FROM body) AS candidates`;
  return { sql, bind: parameters.values };
}

/** Quotes a lexeme as a tsquery operand. */
function tsqueryOperand(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The lexemes standing for each partial term: an infix match (trigram index) from 3 characters, a prefix below. */
function lexiconStatement(terms: readonly string[]): Statement {
  const parameters = new SqlParameters();
  const lookups = terms.map((term, index) => {
    const folded = `lower(dt_unaccent(${parameters.add(term, 'text')}))`;
    return term.length >= 3
      ? `(SELECT ${index} AS term, lexeme FROM search_lexemes WHERE lexeme LIKE '%' || ${folded} || '%' ORDER BY length(lexeme), lexeme LIMIT ${LEXEMES_PER_TERM})`
      : `(SELECT ${index} AS term, lexeme FROM (SELECT lexeme FROM search_lexemes WHERE lexeme LIKE ${folded} || '%' ORDER BY lexeme LIMIT ${PREFIX_LEXEMES_SCANNED}) AS prefixed
           ORDER BY length(lexeme), lexeme LIMIT ${LEXEMES_PER_TERM})`;
  });
  return { sql: lookups.join(' UNION ALL '), bind: parameters.values };
}

/** The fallback's tsquery: every term by one of its lexemes, none of the excluded words; null when a term has none. */
async function fallbackQuery(sequelize: Sequelize, parsed: ParsedSearchQuery): Promise<string | null> {
  if (parsed.partialTerms.length === 0) return null;
  const lexicon = lexiconStatement(parsed.partialTerms);
  const rows = await rowsOf<{ term: number; lexeme: string }>(sequelize, lexicon);
  const alternatives = parsed.partialTerms.map((_, index) => rows.filter((row) => row.term === index).map((row) => tsqueryOperand(row.lexeme)));
  if (alternatives.some((lexemes) => lexemes.length === 0)) return null;
  return alternatives.map((lexemes) => `(${lexemes.join(' | ')})`).join(' & ');
}

function fallbackTsquery(parameters: SqlParameters, query: string, excluded: readonly string[]): string {
  const exclusions = excluded.map((word) => ` && !! phraseto_tsquery('${SEARCH_CONFIG}', ${parameters.add(word, 'text')})`).join('');
  return `(${parameters.add(query, 'text')}::tsquery${exclusions})`;
}

function fallbackStatement(scope: SearchScope, query: string, excluded: readonly string[], fullTextIds: readonly string[]): Statement {
  const parameters = new SqlParameters();
  const tsquery = fallbackTsquery(parameters, query, excluded);
  const notFullText = fullTextIds.length > 0 ? `AND p.id <> ALL (${parameters.add(fullTextIds, 'uuid[]')})` : '';
  // Ranked by the head alone (title and label hits first): ranking by the body would read the
  // vector of every candidate, and a word part says little about how relevant a body is.
  const sql = `
    WITH candidates AS (
      SELECT p.id, ts_rank(p.search_head, ${tsquery}) AS rank
        FROM pages p WHERE p.search_vector @@ ${tsquery} ${notFullText} AND ${scope.sql('p', parameters)} LIMIT ${FALLBACK_CANDIDATES + 1}
    )
    SELECT id, rank, (SELECT count(*) FROM candidates) > ${FALLBACK_CANDIDATES} AS capped FROM candidates`;
  return { sql, bind: parameters.values };
}

const SENTINELS_SQL = `E'\\uE000\\uE001'`;
const MARKS = `StartSel=${HIT_START}, StopSel=${HIT_END}`;

/**
 * Titles, ponds, label chips and snippets of the hits, the hits of each tier highlighted by its
 * query. A headline parses all the text it is given, so it gets a window of the body around
 * the first occurrence of a query word (found by a plain string search of the folded text).
 */
function presentationStatement(parsed: ParsedSearchQuery, fallback: { query: string; excluded: readonly string[] } | null, ids: string[], fallbackIds: string[]): Statement {
  const parameters = new SqlParameters();
  const fullText = `websearch_to_tsquery('${SEARCH_CONFIG}', ${parameters.add(parsed.text, 'text')})`;
  const query = fallback && fallbackIds.length > 0 ? `CASE WHEN p.id = ANY (${parameters.add(fallbackIds, 'uuid[]')}) THEN ${fallbackTsquery(parameters, fallback.query, fallback.excluded)} ELSE ${fullText} END` : fullText;
  const terms = parameters.add([...parsed.partialTerms, ...parsed.phraseWords], 'text[]');
  const sql = `
    SELECT p.id, p.slug, po.id AS pond_id, po.slug AS pond_slug, po.name AS pond_name,
           ts_headline('${SEARCH_CONFIG}', translate(p.title, ${SENTINELS_SQL}, ''), q.query, 'HighlightAll=true, ${MARKS}') AS title,
           ts_headline('${SEARCH_CONFIG}', substr(b.body, greatest(1, h.first_hit - ${SNIPPET_LEAD_CHARS}), ${SNIPPET_WINDOW_CHARS}), q.query,
                       'MaxWords=32, MinWords=12, ShortWord=2, ${MARKS}') AS snippet,
           coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY lower(l.name), l.id)
                       FROM page_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.page_id = p.id), '[]') AS labels
      FROM pages p JOIN ponds po ON po.id = p.pond_id LEFT JOIN page_contents c ON c.page_id = p.id
           CROSS JOIN LATERAL (SELECT ${query} AS query) q
           CROSS JOIN LATERAL (SELECT translate(left(coalesce(c.plain_text, ''), ${SEARCH_BODY_MAX_CHARS}), ${SENTINELS_SQL}, '') AS body) b
           CROSS JOIN LATERAL (
             SELECT coalesce(min(nullif(strpos(folded.body, lower(dt_unaccent(t))), 0)), 1) AS first_hit
               FROM (SELECT lower(dt_unaccent(b.body)) AS body) folded, unnest(${terms}) AS t) h
     WHERE p.id = ANY (${parameters.add(ids, 'uuid[]')})`;
  return { sql, bind: parameters.values };
}

interface PresentedRow {
  id: string;
  slug: string;
  pond_id: string;
  pond_slug: string;
  pond_name: string;
  title: string;
  snippet: string;
  labels: SearchHit['labels'];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export interface SearchOptions {
  /** No permission filter (benchmarks compare against it). */
  unrestricted?: boolean;
}

/** Runs one statement and returns its rows. */
async function rowsOf<Row extends object>(sequelize: Sequelize, statement: Statement): Promise<Row[]> {
  return sequelize.query<Row>(statement.sql, { bind: statement.bind, type: QueryTypes.SELECT });
}

export async function searchPages(sequelize: Sequelize, request: SearchRequest, options: SearchOptions = {}): Promise<SearchResult> {
  const parsed = parseSearchQuery(request.query);
  const cursor = request.cursor ? decodeSearchCursor(request.cursor) : null;
  const scope = options.unrestricted ? UNRESTRICTED_SCOPE : await resolveSearchScope(sequelize, request.subject, { pondId: request.pondId ?? null, labelIds: request.labelIds ?? [] });
  // Nothing to look for: an empty query, or one that only excludes.
  if (parsed.partialTerms.length === 0 && parsed.phraseWords.length === 0) return { items: [], nextCursor: null };
  const wanted = request.limit + 1;
  const fullTextRows = await rowsOf<{ id: string; tier: 0 | 1; rank: number; capped: boolean }>(sequelize, fullTextStatement(scope, parsed));
  const candidates: Candidate[] = fullTextRows.map((row): Candidate => ({ id: row.id, tier: row.tier, rank: row.rank })).sort(byRank);
  let page = candidates.filter((candidate) => after(candidate, cursor)).slice(0, wanted);
  const capped = fullTextRows.some((row) => row.capped);
  let fallback: { query: string; excluded: readonly string[] } | null = null;
  const fallbackIds: string[] = [];
  if (page.length < wanted && !capped) {
    const query = await fallbackQuery(sequelize, parsed);
    if (query) {
      fallback = { query, excluded: parsed.excludedTerms };
      const rows = await rowsOf<{ id: string; rank: number }>(sequelize, fallbackStatement(scope, query, parsed.excludedTerms, candidates.map((candidate) => candidate.id)));
      const partial: Candidate[] = rows.map((row) => ({ id: row.id, tier: 2 as const, rank: row.rank })).sort(byRank);
      page = [...page, ...partial.filter((candidate) => after(candidate, cursor))].slice(0, wanted);
      fallbackIds.push(...page.filter((candidate) => candidate.tier === 2).map((candidate) => candidate.id));
    }
  }
  const more = page.length > request.limit;
  page = page.slice(0, request.limit);
  if (page.length === 0) return { items: [], nextCursor: null };
  const presented = await rowsOf<PresentedRow>(sequelize, presentationStatement(parsed, fallback, page.map((candidate) => candidate.id), fallbackIds));
  const byId = new Map(presented.map((row) => [row.id, row]));
  const items: SearchHit[] = [];
  for (const candidate of page) {
    const row = byId.get(candidate.id);
    if (!row) continue;
    items.push({
      id: row.id,
      title: row.title,
      slug: row.slug,
      pond: { id: row.pond_id, slug: row.pond_slug, name: row.pond_name },
      labels: row.labels,
      snippet: oneLine(row.snippet),
      match: candidate.tier === 2 ? 'substring' : 'fulltext',
    });
  }
  const last = page.at(-1)!;
  return { items, nextCursor: more ? encodeSearchCursor({ tier: last.tier, rank: last.rank, id: last.id }) : null };
}

/** The plans of the statements a search runs (EXPLAIN, not executed), for the benchmark's checks. */
export async function explainSearch(sequelize: Sequelize, request: SearchRequest, options: SearchOptions = {}): Promise<string[]> {
  const parsed = parseSearchQuery(request.query);
  const scope = options.unrestricted ? UNRESTRICTED_SCOPE : await resolveSearchScope(sequelize, request.subject, { pondId: request.pondId ?? null, labelIds: request.labelIds ?? [] });
  const statements: Statement[] = [fullTextStatement(scope, parsed)];
  if (parsed.partialTerms.length > 0) {
    statements.push(lexiconStatement(parsed.partialTerms));
    const query = await fallbackQuery(sequelize, parsed);
    if (query) statements.push(fallbackStatement(scope, query, parsed.excludedTerms, []));
  }
  const lines: string[] = [];
  for (const statement of statements) {
    const plan = await rowsOf<{ 'QUERY PLAN': string }>(sequelize, { sql: `EXPLAIN ${statement.sql}`, bind: statement.bind });
    lines.push(...plan.map((row) => row['QUERY PLAN']));
  }
  return lines;
}

export function postgresSearchEngine(sequelize: Sequelize): SearchEngine {
  return { search: (request) => searchPages(sequelize, request) };
}
