/**
 * The account directory's walk reads its index alone (api/users/accountListing.ts).
 *
 * A search that matches many accounts finds its page by walking the listing's order,
 * `lower(username)`, and testing each account's folded text. Through 0016's indexes every step
 * of that walk fetched the row from the table; these indexes carry what the walk tests
 * (`directory_text`, `status`, `is_site_admin`) and `username` itself (without it Postgres does
 * not read an index on `lower(username)` alone), so the walk is an index-only scan: passing the 2,251
 * accounts before a page of 'kruger' took 0.5 ms from the index, 1.5 ms through the table
 * (`npm run bench:admin-users`).
 * - `users_directory_walk_idx`: the whole directory's order;
 * - `users_directory_status_walk_idx`, `users_directory_admin_walk_idx`: the order within one
 *   status and among Site Admins, replacing 0016's `users_status_username_idx` and
 *   `users_site_admin_username_idx`, which held the order but not the text.
 *
 * `users_directory_text_sample`: statistics on `lower(directory_text)` (the same text: it is
 * folded already) from a sample of 500 values instead of the column's 100. The listing asks
 * the planner how many accounts a search matches to choose its read; from 100 values a surname
 * held by 4 % of 100,000 accounts was guessed at 10 or at 1,000, depending on the sample. Kept
 * on an expression the reads do not filter on, so only that estimate pays for the larger sample
 * when it is planned (every pattern on a column is tested against its whole sample: 1,000
 * values on the column itself made each read's planning 0.8 ms slower).
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE INDEX users_directory_walk_idx ON users (lower(username), id) INCLUDE (username, directory_text, status, is_site_admin);
    CREATE INDEX users_directory_status_walk_idx ON users (status, lower(username), id) INCLUDE (username, directory_text, is_site_admin);
    CREATE INDEX users_directory_admin_walk_idx ON users (lower(username), id) INCLUDE (username, directory_text, status) WHERE is_site_admin;
    DROP INDEX users_status_username_idx, users_site_admin_username_idx;
    CREATE STATISTICS users_directory_text_sample ON (lower(directory_text)) FROM users;
    ALTER STATISTICS users_directory_text_sample SET STATISTICS 500;
    ANALYZE users;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP STATISTICS users_directory_text_sample;
    CREATE INDEX users_status_username_idx ON users (status, lower(username));
    CREATE INDEX users_site_admin_username_idx ON users (lower(username)) WHERE is_site_admin;
    DROP INDEX users_directory_walk_idx, users_directory_status_walk_idx, users_directory_admin_walk_idx;
  `);
}
