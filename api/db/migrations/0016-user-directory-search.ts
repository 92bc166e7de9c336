/**
 * The Site Admin's account directory (`GET /admin/users?q=`) finds accounts by a part of their
 * username, e-mail or display name, case- and accent-folded ('muller' finds 'Müller').
 *
 * - `dt_user_directory_text(username, email, display_name)`: the three fields folded
 *   (`lower(dt_unaccent(…))`, the search's folding) and joined by U+001F, a character no
 *   search text holds, so a search never matches across two fields.
 * - `users.directory_text`: that text, generated and stored with the row. Folding costs a few
 *   microseconds a row; stored, a search that walks the listing's order (`lower(username)`)
 *   past thousands of rows, or rechecks thousands of index hits, compares plain text instead.
 *   The listing (api/users/accountListing.ts) filters on this column.
 * - `users_directory_search_idx`: a trigram index on it, so a search of three or more
 *   characters reads only the matching rows, also among 100,000 accounts
 *   (`npm run bench:admin-users`). Shorter ones match most accounts anyway and find a page of
 *   them in the listing's order.
 * - `users_status_username_idx`, `users_site_admin_username_idx`: the listing's order within
 *   one status and among Site Admins, so the status and Site Admin filters read a page of
 *   their few accounts instead of walking past every other one.
 *
 * Adding the stored column rewrites `users` once (seconds for 100,000 accounts).
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE FUNCTION dt_user_directory_text(username text, email text, display_name text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      RETURN lower(dt_unaccent(username || E'\\u001F' || email || E'\\u001F' || display_name));
    ALTER TABLE users ADD COLUMN directory_text text NOT NULL
      GENERATED ALWAYS AS (dt_user_directory_text(username, email, display_name)) STORED;
    CREATE INDEX users_directory_search_idx ON users USING gin (directory_text gin_trgm_ops);
    CREATE INDEX users_status_username_idx ON users (status, lower(username));
    CREATE INDEX users_site_admin_username_idx ON users (lower(username)) WHERE is_site_admin;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX users_status_username_idx, users_site_admin_username_idx;
    ALTER TABLE users DROP COLUMN directory_text;
    DROP FUNCTION dt_user_directory_text(text, text, text);
  `);
}
