/**
 * The Postgres search engine (the `SearchEngine` of searchEngine.ts).
 *
 * Results come in four tiers, each ranked by `ts_rank` over the stored vectors (weights:
 * title A 1.0, labels B 0.4, body C 0.2; no `to_tsvector` at query time):
 *   0. full-text matches in the title or label names (`search_head`),
 *   1. other full-text matches (`search_vector`),
 *   2. matches through a German transliteration only ('Baeume' → 'Bäume', 'Strasse' →
 *      'Straße', 'Größe' → 'Groesse'): below every match of the words as typed,
 *   3. the substring fallback: pages holding a word that contains a query word ('wiss' →
 *      'Wissensbasis'), found through the lexicon (`search_lexemes`) and then the vectors'
 *      index. Only once the full-text tiers are exhausted, and never a page they hold.
 *
 * Ranking every match of a common word reads every one of their vectors, so the ranked set is
 * bounded (searchStatements.ts): a query matching more than that is answered from the first
 * matches the index yields, and its list ends after them. The permission filter is part of
 * each candidate scan, so the bounds count readable pages. The statements are built in
 * searchStatements.ts; this module runs them and pages through the result.
 *
 * The order is total: tier, rank, then the page id, so pages of equal rank come in one order
 * every time and a cursor (which holds all three) neither repeats nor skips one. The candidates
 * are read without parallel workers: their interleaving would change which matches a bounded
 * scan yields first, so the same query on the same data could name a different first hit.
 */
import { createHash } from 'node:crypto';
import type { ClientBase } from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import { transactionClient } from '../documents/documentLog.ts';
import { searchCursor } from '../http/cursorCodec.ts';
import { presentPageReference } from '../presenters/pagePresenter.ts';
import type { SearchEngine, SearchHit, SearchRequest, SearchResult } from './searchEngine.ts';
import { parseSearchQuery, type ParsedSearchQuery } from './searchQuery.ts';
import { resolveSearchScope, type SearchScope } from './searchScope.ts';
import { candidatesStatement, lexiconStatement, presentationStatement, tsqueryOperand, type Fallback, type Statement } from './searchStatements.ts';

interface Candidate {
  id: string;
  tier: 0 | 1 | 2 | 3;
  rank: number;
}

/** The result order: tier, then rank (best first), then page id. */
function byRank(a: Candidate, b: Candidate): number {
  return a.tier - b.tier || b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function idsInTier(candidates: readonly Candidate[], tier: Candidate['tier']): string[] {
  return candidates.filter((candidate) => candidate.tier === tier).map((candidate) => candidate.id);
}

/** Where the statements of one search run. */
interface SearchSession {
  sequelize: Sequelize;
  transaction: Transaction;
}

/**
 * Runs `work` in a read-only transaction (one snapshot for every statement of a search) that
 * finds candidates through bitmap scans only. The alternatives the planner would otherwise
 * pick for a dense match under a LIMIT, a sequential scan or a scan of the pond index, test
 * `@@` row by row, and that reads each row's vector out of TOAST: a cost the planner does not
 * see (measured: 120 ms instead of 5 ms for a common word part).
 */
async function inSearchSession<T>(sequelize: Sequelize, work: (session: SearchSession) => Promise<T>): Promise<T> {
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SET TRANSACTION READ ONLY; SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL max_parallel_workers_per_gather = 0', {
      transaction,
    });
    return work({ sequelize, transaction });
  });
}

/** Presenting a few known pages by id: plain index scans are right again. */
async function allowIndexScans(session: SearchSession): Promise<void> {
  await session.sequelize.query('SET LOCAL enable_indexscan = on', { transaction: session.transaction });
}

/**
 * Runs a statement on the transaction's connection. A statement whose text repeats (the
 * presentation) is prepared once per connection under a name derived from its text: planning
 * it costs about as much as running it.
 */
async function rowsOf<Row extends object>(session: SearchSession, statement: Statement, options: { prepared?: boolean } = {}): Promise<Row[]> {
  const name = options.prepared ? `search_${createHash('sha1').update(statement.sql).digest('hex').slice(0, 20)}` : undefined;
  const client = transactionClient(session.transaction) as unknown as ClientBase;
  const result = await client.query<Row>({ text: statement.sql, values: statement.bind, ...(name ? { name } : {}) });
  return result.rows;
}

/** The lexemes of every partial term; null when there are none or a term has none (nothing can match all of them). */
async function lookUpFallback(session: SearchSession, parsed: ParsedSearchQuery): Promise<Fallback | null> {
  if (parsed.partialTerms.length === 0) return null;
  const rows = await rowsOf<{ term: number; lexeme: string }>(session, lexiconStatement(parsed.partialTerms, parsed.transliterations));
  // Two spellings of a term may find the same lexeme: each is looked for once.
  const alternatives = parsed.partialTerms.map((_, index) => [...new Set(rows.filter((row) => row.term === index).map((row) => tsqueryOperand(row.lexeme)))]);
  if (alternatives.some((lexemes) => lexemes.length === 0)) return null;
  return { alternatives };
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

/** The query, or null when there is nothing to look for: an empty query, or one that only excludes. */
function parsedOrNull(request: SearchRequest): ParsedSearchQuery | null {
  const parsed = parseSearchQuery(request.query);
  return parsed.partialTerms.length === 0 && parsed.phraseWords.length === 0 ? null : parsed;
}

/** The scope of the request's subject and filters; 404 for a pond or label they cannot see, whatever the query. */
function scopeOf(sequelize: Sequelize, request: SearchRequest): Promise<SearchScope> {
  return resolveSearchScope(sequelize, request.subject, { pondId: request.pondId ?? null, labelIds: request.labelIds ?? [] });
}

export async function searchPages(sequelize: Sequelize, request: SearchRequest): Promise<SearchResult> {
  return searchInScope(sequelize, request, await scopeOf(sequelize, request));
}

/**
 * A search inside `scope`. The engine resolves the scope from the request's subject
 * (`searchPages`); the benchmark passes its own, to compare against no permission filter.
 */
export async function searchInScope(sequelize: Sequelize, request: SearchRequest, scope: SearchScope): Promise<SearchResult> {
  const cursor = request.cursor ?? null;
  const parsed = parsedOrNull(request);
  if (!parsed) return { items: [], nextCursor: null };
  return inSearchSession(sequelize, async (session) => {
    const fallback = await lookUpFallback(session, parsed);
    const rows = await rowsOf<Candidate>(session, candidatesStatement(scope, parsed, fallback, cursor, request.limit + 1));
    const candidates = rows.sort(byRank);
    const page = candidates.slice(0, request.limit);
    if (page.length === 0) return { items: [], nextCursor: null };
    const fallbackIds = idsInTier(page, 3);
    await allowIndexScans(session);
    const presented = await rowsOf<PresentedRow>(session, presentationStatement(parsed, fallback, page.map((candidate) => candidate.id), fallbackIds, idsInTier(page, 2)), { prepared: true });
    const byId = new Map(presented.map((row) => [row.id, row]));
    const items = page.flatMap((candidate): SearchHit[] => {
      const row = byId.get(candidate.id);
      if (!row) return [];
      const pond = { id: row.pond_id, slug: row.pond_slug, name: row.pond_name };
      const snippet = row.snippet.replace(/\s+/g, ' ').trim();
      return [{ ...presentPageReference(row), pond, labels: row.labels, snippet, match: candidate.tier === 3 ? 'substring' : 'fulltext' }];
    });
    const last = page.at(-1)!;
    return { items, nextCursor: candidates.length > request.limit ? searchCursor.encode({ tier: last.tier, rank: last.rank, id: last.id }) : null };
  });
}

/** The plans of the statements a first page of results runs in `scope` (EXPLAIN, not executed), for the benchmark's checks. */
export async function explainSearch(sequelize: Sequelize, request: SearchRequest, scope?: SearchScope): Promise<string[]> {
  const parsed = parsedOrNull(request);
  const resolved = scope ?? (await scopeOf(sequelize, request));
  if (!parsed) return [];
  return inSearchSession(sequelize, async (session) => {
    const lines: string[] = [];
    const explain = async (statement: Statement) => {
      const plan = await rowsOf<{ 'QUERY PLAN': string }>(session, { sql: `EXPLAIN ${statement.sql}`, bind: statement.bind });
      lines.push(...plan.map((row) => row['QUERY PLAN']));
    };
    if (parsed.partialTerms.length > 0) await explain(lexiconStatement(parsed.partialTerms, parsed.transliterations));
    const fallback = await lookUpFallback(session, parsed);
    const candidates = candidatesStatement(resolved, parsed, fallback, null, request.limit + 1);
    await explain(candidates);
    const rows = await rowsOf<Candidate>(session, candidates);
    const page = rows.sort(byRank).slice(0, request.limit);
    await allowIndexScans(session);
    if (page.length > 0) await explain(presentationStatement(parsed, fallback, page.map((candidate) => candidate.id), idsInTier(page, 3), idsInTier(page, 2)));
    return lines;
  });
}

export function postgresSearchEngine(sequelize: Sequelize): SearchEngine {
  return { search: (request) => searchPages(sequelize, request) };
}
