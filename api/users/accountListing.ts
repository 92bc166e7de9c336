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
 * ('lars.…') and that walk may pass half the table before the first; the trigram index, on the
 * other hand, must collect every match before any is ordered (8 ms for a third of 100,000).
 * So the planner's estimate of the matches (an EXPLAIN, from the trigram statistics) chooses:
 * - many (over `FEW_MATCHES`): the walk, which finds a page among the first entries;
 * - few: up to `FEW_MATCHES` matches in any order through the trigram index, ordered; should
 *   there be more after all, the walk.
 * The estimate is asked with the search folded here (`roughlyFolded`), as a literal: folded in
 * the statement, the pattern is no constant to the planner (dt_unaccent inlines to unaccent,
 * which is only stable), and it would guess 1 % of all accounts whatever was typed.
 */
import { QueryTypes } from 'sequelize';
import type { AccountListCursor } from '../http/cursorCodec.ts';
import { User, type UserStatus } from '../models/index.ts';

export const DEFAULT_ACCOUNT_LIST_LIMIT = 50;
export const MAX_ACCOUNT_LIST_LIMIT = 200;

/** Below this many characters a search has no trigram and cannot use the directory's index. */
const TRIGRAM_LENGTH = 3;
/** Up to this many matches of a search are ordered from the trigram index's hits. */
const FEW_MATCHES = 1000;

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

/** The conditions on `users u` and their values. */
/**
 * The search folded closely enough for an estimate: lowercase, accents dropped, ß as ss (as
 * unaccent spells it). The statements fold with dt_unaccent, which knows more letters (ø, ł, æ).
 */
function roughlyFolded(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss');
}

function filtersOf(options: AccountListOptions, { forEstimate = false } = {}): { sql: string; replacements: Record<string, unknown> } {
  const conditions = [options.status ? 'u.status = :status' : `u.status <> 'deleted'`];
  const replacements: Record<string, unknown> = { status: options.status ?? null };
  if (options.siteAdmin !== undefined) {
    conditions.push('u.is_site_admin = :siteAdmin');
    replacements.siteAdmin = options.siteAdmin;
  }
  if (options.q && forEstimate) {
    conditions.push('u.directory_text LIKE :pattern');
    replacements.pattern = containsPattern(roughlyFolded(options.q));
  } else if (options.q) {
    // Folded as the rows are; the escapes survive folding (unaccent and lower leave \, % and _ alone).
    conditions.push('u.directory_text LIKE lower(dt_unaccent(:pattern))');
    replacements.pattern = containsPattern(options.q);
  }
  if (options.cursor) {
    conditions.push('(lower(u.username) > :afterName OR (lower(u.username) = :afterName AND u.id > :afterId))');
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

/** The size that chooses between the two reads; tests make it small to reach each. */
export interface ListingTuning {
  fewMatches: number;
}

/** The planner's estimate of the accounts the filters match (an EXPLAIN: planned, not run). */
async function estimatedMatches(options: AccountListOptions): Promise<number> {
  const filters = filtersOf(options, { forEstimate: true });
  const [row] = await User.sequelize!.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM users u WHERE ${filters.sql}`, {
    replacements: filters.replacements,
    type: QueryTypes.SELECT,
  });
  return row?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0;
}

export async function listAccounts(options: AccountListOptions, tuning: ListingTuning = { fewMatches: FEW_MATCHES }): Promise<AccountPage> {
  const sequelize = User.sequelize!;
  const filters = filtersOf(options);
  const replacements = { ...filters.replacements, take: options.limit + 1, few: tuning.fewMatches + 1 };
  let rows: ListedRow[] | null = null;
  // Many matches (the planner's estimate from the trigram statistics): the walk finds a page at once.
  const many = options.q !== undefined && [...options.q].length >= TRIGRAM_LENGTH && (await estimatedMatches(options)) > tuning.fewMatches;
  if (!many && options.q && [...options.q].length >= TRIGRAM_LENGTH) {
    const found = await sequelize.query<ListedRow & { matchCount: number }>(
      `WITH matches AS MATERIALIZED (SELECT u.id, lower(u.username) AS sort_key FROM users u WHERE ${filters.sql} LIMIT :few)
       SELECT ${LISTED_COLUMNS}, (SELECT count(*) FROM matches)::int AS "matchCount"
         FROM (SELECT id, sort_key FROM matches ORDER BY sort_key, id LIMIT :take) AS page
         JOIN users u ON u.id = page.id
        ORDER BY page.sort_key, page.id`,
      { replacements, type: QueryTypes.SELECT },
    );
    if ((found[0]?.matchCount ?? 0) <= tuning.fewMatches) rows = found.map(({ matchCount: _count, ...row }) => row);
  }
  rows ??= await sequelize.query<ListedRow>(`SELECT ${LISTED_COLUMNS} FROM users u WHERE ${filters.sql} ORDER BY lower(u.username), u.id LIMIT :take`, {
    replacements,
    type: QueryTypes.SELECT,
  });
  const users = rows.map((row) => User.build(row, { isNewRecord: false, raw: true }));
  if (users.length <= options.limit) return { users, next: null };
  const page = users.slice(0, options.limit);
  const last = page[page.length - 1]!;
  return { users: page, next: { username: last.username.toLowerCase(), id: last.id } };
}
