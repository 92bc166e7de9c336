/**
 * The Site Admin's account list (`GET /admin/users`): ordered by username (case-insensitive,
 * then id), keyset paged by the last (username, id) handed out. `q` finds accounts whose
 * username, e-mail or display name contains it, case- and accent-folded ('muller' and
 * 'MÜLLER' find 'Müller'; folding drops accents, it does not transliterate, so 'mueller' does
 * not), taken literally (`%` and `_` match themselves); it filters on `users.directory_text`, the
 * folded text with the trigram index of migration 0016. `status` narrows to one state;
 * without it, deleted accounts are left out. `siteAdmin` narrows to Site Admins or to the rest.
 *
 * How a search is read (`npm run bench:admin-users` measures it at 100,000 accounts): left to
 * itself, the planner walks the `lower(username)` index and filters, expecting matches spread
 * evenly. But usernames are made of names, so the few accounts a name matches sit together
 * ('lars.…') and that walk may pass most of the table before the first; the trigram index, on
 * the other hand, must collect every match before any is ordered. So the planner's estimates of
 * the accounts the filters leave and of those the search matches (`estimated`) choose the first
 * read:
 * - matches dense enough that `window` accounts of the listing's order should hold two pages of
 *   them: a walk of that order bounded to `window` accounts, read from the index alone
 *   (migration 0017), which finds a page among the first entries;
 * - sparser matches, or the window held less than a page: up to `manyMatches` matches in any
 *   order through the trigram index, then ordered. The index is asked for every third trigram
 *   of the search only (merging the posting lists of common trigrams costs more than the few
 *   rows they would leave out), and every hit is checked against the whole search;
 * - more matches than that: the walk, unbounded.
 * The estimate is asked with the search folded here (`roughlyFolded`), as a literal: folded in
 * the statement, the pattern is no constant to the planner (dt_unaccent inlines to unaccent,
 * which is only stable), and it would guess 1 % of all accounts whatever was typed. The reads
 * fold in the statement, as the rows were folded.
 */
import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { queryPrepared, type PreparedStatement } from '../db/preparedStatement.ts';
import type { AccountListCursor } from '../http/cursorCodec.ts';
import { User, type UserStatus } from '../models/index.ts';

export const DEFAULT_ACCOUNT_LIST_LIMIT = 50;
export const MAX_ACCOUNT_LIST_LIMIT = 200;

/** Below this many characters a search has no trigram and cannot use the directory's index. */
const TRIGRAM_LENGTH = 3;

/** The sizes that choose between the reads; tests set them to reach each read. */
export interface ListingTuning {
  /** Accounts the bounded walk passes before it gives up. */
  window: number;
  /** Matches up to which the trigram index's hits are ordered; past them, the unbounded walk. */
  manyMatches: number;
  /** The first read, instead of the one the estimate chooses. */
  firstRead?: 'walk' | 'trigram';
}

const DEFAULT_TUNING: ListingTuning = { window: 5000, manyMatches: 10_000 };
/** The bounded walk goes first when its window should hold this many pages of matches. */
const WALK_MARGIN = 2;

export interface AccountListOptions {
  q?: string | undefined;
  status?: UserStatus | undefined;
  siteAdmin?: boolean | undefined;
  limit: number;
  cursor?: AccountListCursor | undefined;
}

export interface AccountPage {
  users: User[];
  /** Where the next page starts; null on the last page. */
  next: AccountListCursor | null;
}

/** What the list shows (`presentAccountListItem`), named as the model's attributes. */
const LISTED_COLUMNS = `u.id, u.username, u.email, u.display_name AS "displayName", u.status, u.is_site_admin AS "isSiteAdmin",
  u.last_login_at AS "lastLoginAt", u.email_verified_at AS "emailVerifiedAt"`;

/** `text` as a LIKE pattern that matches it anywhere, literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The search folded closely enough for an estimate: lowercase, accents dropped, ß as ss (as
 * unaccent spells it). The statements fold with dt_unaccent, which knows more letters (ø, ł, æ).
 */
function roughlyFolded(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss');
}

/**
 * The search as a LIKE pattern with a wildcard after every third character ('lars kruger' →
 * '%lar%s k%rug%er%'): the trigram index is asked for every third trigram only (merging the
 * posting lists of a search's many common trigrams costs more than the few rows they would
 * leave out), and every account holding the search matches it. Folded in the statement: folding
 * maps letter by letter and leaves the wildcards and escapes alone.
 */
function spreadPattern(search: string): string {
  const characters = [...search];
  let pattern = '%';
  characters.forEach((character, index) => {
    pattern += character.replace(/[\\%_]/, (special) => `\\${special}`);
    if ((index + 1) % TRIGRAM_LENGTH === 0) pattern += '%';
  });
  return pattern.endsWith('%') ? pattern : `${pattern}%`;
}

/** How the search takes part in a statement. */
type SearchUse = 'indexed' | 'checked';

interface Filters {
  sql: string;
  replacements: Record<string, unknown>;
}

/** The conditions on `users u` and their values. */
function filtersOf(options: AccountListOptions, use: SearchUse): Filters {
  const conditions = [options.status ? 'u.status = :status' : `u.status <> 'deleted'`];
  const replacements: Record<string, unknown> = { status: options.status ?? null };
  if (options.siteAdmin !== undefined) {
    conditions.push('u.is_site_admin = :siteAdmin');
    replacements.siteAdmin = options.siteAdmin;
  }
  // Typed text may arrive decomposed (u + ¨); the rows hold the composed letters.
  const search = options.q?.normalize('NFC');
  if (search) {
    if (use === 'indexed') {
      conditions.push('u.directory_text LIKE lower(dt_unaccent(:spread))');
      replacements.spread = spreadPattern(search);
    }
    // strpos, which no index answers: a walk stays a walk, and the trigram hits are checked whole.
    conditions.push('strpos(u.directory_text, lower(dt_unaccent(:search))) > 0');
    replacements.search = search;
  }
  if (options.cursor) {
    conditions.push('(lower(u.username), u.id) > (:afterName, :afterId)');
    replacements.afterName = options.cursor.username;
    replacements.afterId = options.cursor.id;
  }
  return { sql: conditions.join(' AND '), replacements };
}

interface ListedRow {
  id: string;
  username: string;
  email: string;
  displayName: string;
  status: UserStatus;
  isSiteAdmin: boolean;
  lastLoginAt: Date | null;
  emailVerifiedAt: Date | null;
}

interface Estimate {
  /** Accounts the filters other than the search leave. */
  population: number;
  /** Accounts the search matches among them. */
  matches: number;
}

/**
 * The planner's estimates (one EXPLAIN: planned, not run) of the accounts the filters other than
 * the search leave and of those among them the search matches. The search is estimated on
 * `lower(directory_text)`, the same text (folded already), whose statistics object (migration
 * 0017) samples 500 values where the column samples 100: enough to tell a surname held by 4 % of
 * the accounts from one held by 1 %, without slowing the planning of the reads, which filter on
 * the column itself.
 */
async function estimated(options: AccountListOptions): Promise<Estimate> {
  const base = filtersOf({ ...options, q: undefined }, 'checked');
  const pattern = containsPattern(roughlyFolded(options.q!.normalize('NFC')));
  type Plan = { 'Plan Rows': number; Plans?: Plan[] };
  const [row] = await User.sequelize!.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM users u WHERE ${base.sql} UNION ALL SELECT 1 FROM users u WHERE ${base.sql} AND lower(u.directory_text) LIKE :pattern`,
    { replacements: { ...base.replacements, pattern }, type: QueryTypes.SELECT },
  );
  const [population, matches] = row?.['QUERY PLAN'][0]?.Plan.Plans ?? [];
  return { population: population?.['Plan Rows'] ?? 0, matches: matches?.['Plan Rows'] ?? 0 };
}

/** Whether the bounded walk should find a page: its window is the whole population, or should hold enough matches. */
function walkFirst({ population, matches }: Estimate, take: number, window: number): boolean {
  return population <= window || matches * window >= population * take * WALK_MARGIN;
}

/**
 * A statement written with `:name` values as a named prepared statement (`$1`, …): a connection
 * plans each of the listing's reads once, instead of on every page (their planning cost more
 * than a shallow walk's execution). The values never shape the text, so there is one statement
 * per combination of filters.
 */
function prepared(sql: string, values: Record<string, unknown>): { statement: PreparedStatement; parameters: unknown[] } {
  const names: string[] = [];
  const text = sql.replace(/(?<![:\w]):([a-zA-Z]\w*)/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`account listing: no value for :${name}`);
    if (!names.includes(name)) names.push(name);
    return `$${names.indexOf(name) + 1}`;
  });
  const name = `account-listing-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  return { statement: { name, text }, parameters: names.map((entry) => values[entry]) };
}

/**
 * A row count written into a statement's text rather than passed as a value: Postgres' generic
 * plan for a prepared statement guesses an unknown LIMIT at a tenth of the table, and for the
 * walk would then choose reading the whole table and sorting it. The sizes are few (the page
 * sizes and the tuning), so are the statements.
 */
function sizeOf(count: number): number {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`account listing: ${count} is no row count`);
  return count;
}

/** The listed columns of the accounts a statement's `page (id, sort_key)` names, in its order. */
function readPage<Extra extends object = object>(pageSql: string, values: Record<string, unknown>, withClause = ''): Promise<(ListedRow & Extra)[]> {
  const { statement, parameters } = prepared(
    `${withClause} SELECT ${LISTED_COLUMNS}${withClause ? ', (SELECT count(*) FROM matches)::int AS "matchCount"' : ''}
       FROM (${pageSql}) AS page JOIN users u ON u.id = page.id
      ORDER BY page.sort_key, page.id`,
    values,
  );
  return queryPrepared<ListedRow & Extra>(User.sequelize!, statement, parameters);
}

/** The listing's order walked from the start (or the cursor), every account tested. */
function walk(options: AccountListOptions, take: number): Promise<ListedRow[]> {
  const filters = filtersOf(options, 'checked');
  return readPage(`SELECT u.id, lower(u.username) AS sort_key FROM users u WHERE ${filters.sql} ORDER BY lower(u.username), u.id LIMIT ${sizeOf(take)}`, filters.replacements);
}

/** The walk over the next `window` accounts only: null when they hold less than a page. */
async function boundedWalk(options: AccountListOptions, take: number, window: number): Promise<ListedRow[] | null> {
  const base = filtersOf({ ...options, q: undefined }, 'checked');
  const rows = await readPage(
    `SELECT w.id, w.sort_key FROM (
       SELECT u.id, lower(u.username) AS sort_key, u.directory_text FROM users u WHERE ${base.sql} ORDER BY lower(u.username), u.id LIMIT ${sizeOf(window)}
     ) AS w WHERE strpos(w.directory_text, lower(dt_unaccent(:search))) > 0 ORDER BY w.sort_key, w.id LIMIT ${sizeOf(take)}`,
    { ...base.replacements, search: options.q!.normalize('NFC') },
  );
  return rows.length === take ? rows : null;
}

/** Up to `most` matches from the trigram index, ordered: null when there are more. */
async function trigramMatches(options: AccountListOptions, take: number, most: number): Promise<ListedRow[] | null> {
  const filters = filtersOf(options, 'indexed');
  const rows = await readPage<{ matchCount: number }>(
    `SELECT id, sort_key FROM matches ORDER BY sort_key, id LIMIT ${sizeOf(take)}`,
    filters.replacements,
    `WITH matches AS MATERIALIZED (SELECT u.id, lower(u.username) AS sort_key FROM users u WHERE ${filters.sql} LIMIT ${sizeOf(most + 1)})`,
  );
  if ((rows[0]?.matchCount ?? 0) > most) return null;
  return rows.map(({ matchCount: _count, ...row }) => row);
}

export async function listAccounts(options: AccountListOptions, tuning: ListingTuning = DEFAULT_TUNING): Promise<AccountPage> {
  const take = options.limit + 1;
  let rows: ListedRow[] | null = null;
  if (options.q !== undefined && [...options.q.normalize('NFC')].length >= TRIGRAM_LENGTH) {
    const firstRead = tuning.firstRead ?? (walkFirst(await estimated(options), take, tuning.window) ? 'walk' : 'trigram');
    if (firstRead === 'walk') rows = await boundedWalk(options, take, tuning.window);
    rows ??= await trigramMatches(options, take, tuning.manyMatches);
  }
  rows ??= await walk(options, take);
  const users = rows.map((row) => User.build(row, { isNewRecord: false, raw: true }));
  if (users.length <= options.limit) return { users, next: null };
  const page = users.slice(0, options.limit);
  const last = page[page.length - 1]!;
  return { users: page, next: { username: last.username.toLowerCase(), id: last.id } };
}
