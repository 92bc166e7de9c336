/**
 * The Site Admin's account list (`GET /admin/users`): ordered by username (case-insensitive,
 * then id), keyset paged by the last (username, id) handed out. `q` finds accounts whose
 * username, e-mail or display name contains it, case- and accent-folded ('muller' and
 * 'MÜLLER' find 'Müller'; folding drops accents, it does not transliterate, so 'mueller' does
 * not), taken literally (`%` and `_` match themselves); it filters on `dt_user_directory_text`,
 * the expression of the trigram index of migration 0016. `status` narrows to one state;
 * without it, deleted accounts are left out. `siteAdmin` narrows to Site Admins or to the rest.
 */
import { Op, where, fn, col, literal, type WhereOptions } from 'sequelize';
import type { AccountListCursor } from '../http/cursorCodec.ts';
import { User, type UserStatus } from '../models/index.ts';

export const DEFAULT_ACCOUNT_LIST_LIMIT = 50;
export const MAX_ACCOUNT_LIST_LIMIT = 200;

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

/** The folded directory text of the listed row: character for character the index's expression. */
const DIRECTORY_TEXT = literal('dt_user_directory_text("User"."username", "User"."email", "User"."display_name")');

/** `text` as a LIKE pattern that matches it anywhere, literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export async function listAccounts(options: AccountListOptions): Promise<AccountPage> {
  const sortKey = fn('lower', col('username'));
  const conditions: WhereOptions[] = [options.status ? { status: options.status } : { status: { [Op.ne]: 'deleted' } }];
  if (options.siteAdmin !== undefined) conditions.push({ isSiteAdmin: options.siteAdmin });
  if (options.q) {
    // Folded as the rows are; the escapes survive folding (unaccent and lower leave \, % and _ alone).
    conditions.push(where(DIRECTORY_TEXT, Op.like, fn('lower', fn('dt_unaccent', containsPattern(options.q)))));
  }
  if (options.cursor) {
    const { username, id } = options.cursor;
    conditions.push({ [Op.or]: [where(sortKey, Op.gt, username), { [Op.and]: [where(sortKey, username), { id: { [Op.gt]: id } }] }] });
  }
  const users = await User.findAll({ where: { [Op.and]: conditions }, order: [[sortKey, 'ASC'], ['id', 'ASC']], limit: options.limit + 1 });
  if (users.length <= options.limit) return { users, next: null };
  const page = users.slice(0, options.limit);
  const last = page[page.length - 1]!;
  return { users: page, next: { username: last.username.toLowerCase(), id: last.id } };
}
