/**
 * The Site Admin's account directory (`GET /admin/users?q=`) finds accounts by a part of their
 * username, e-mail or display name, case- and accent-folded ('muller' finds 'Müller').
 *
 * - `dt_user_directory_text(username, email, display_name)`: the three fields folded
 *   (`lower(dt_unaccent(…))`) and joined by U+001F, a character no search text holds, so a
 *   search never matches across two fields. The listing (api/users/accountListing.ts) filters
 *   with exactly this call, or the index below is not used.
 * - `users_directory_search_idx`: a trigram index on it, so a search of three or more
 *   characters reads only the matching rows, also among 100,000 accounts
 *   (`npm run bench:admin-users`). Shorter searches match most accounts anyway; the listing's
 *   order (the `lower(username)` index) finds a page of them quickly.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE FUNCTION dt_user_directory_text(username text, email text, display_name text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      RETURN lower(dt_unaccent(username || E'\\u001F' || email || E'\\u001F' || display_name));
    CREATE INDEX users_directory_search_idx ON users USING gin (dt_user_directory_text(username, email, display_name) gin_trgm_ops);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX users_directory_search_idx;
    DROP FUNCTION dt_user_directory_text(text, text, text);
  `);
}
