/**
 * The Site Admin's account list (`GET /admin/users`): ordered by username (case-insensitive,
 * then id), keyset paged by the last (username, id) handed out. `q` finds accounts whose
 * username, e-mail or display name contains it (case-insensitive, taken literally: `%` and `_`
 * match themselves). `status` narrows to one state; without it, deleted accounts are left out.
 */
import { Op, where, fn, col, type WhereOptions } from 'sequelize';
import type { AccountListCursor } from '../http/cursorCodec.ts';
import { User, type UserStatus } from '../models/index.ts';

export const DEFAULT_ACCOUNT_LIST_LIMIT = 50;
export const MAX_ACCOUNT_LIST_LIMIT = 200;

export interface AccountListOptions {
  q?: string | undefined;
  status?: UserStatus | undefined;
  limit: number;
  cursor?: AccountListCursor | undefined;
}

export interface AccountPage {
  users: User[];
  /** Where the next page starts; null on the last page. */
  next: AccountListCursor | null;
}

/** `text` as an ILIKE pattern that matches it anywhere, literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export async function listAccounts(options: AccountListOptions): Promise<AccountPage> {
  const sortKey = fn('lower', col('username'));
  const conditions: WhereOptions[] = [options.status ? { status: options.status } : { status: { [Op.ne]: 'deleted' } }];
  if (options.q) {
    const pattern = containsPattern(options.q);
    conditions.push({ [Op.or]: [{ username: { [Op.iLike]: pattern } }, { email: { [Op.iLike]: pattern } }, { displayName: { [Op.iLike]: pattern } }] });
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
