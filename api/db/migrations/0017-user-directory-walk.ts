/**
 * The account directory's walk reads its window from the index alone (api/users/accountListing.ts):
 * each index the listing's order walks carries the folded text and the filtered columns, so a
 * search that many accounts match is filtered on index entries (an index-only scan), without a
 * visit to the table for each account passed over. (`username` is included because the planner
 * reads `lower(username)` off an index only when the column itself is there too.)
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE INDEX users_directory_walk_idx ON users (lower(username), id) INCLUDE (username, directory_text, status, is_site_admin);
    DROP INDEX users_status_username_idx, users_site_admin_username_idx;
    CREATE INDEX users_status_username_idx ON users (status, lower(username), id) INCLUDE (username, directory_text, is_site_admin);
    CREATE INDEX users_site_admin_username_idx ON users (lower(username), id) INCLUDE (username, directory_text, status) WHERE is_site_admin;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX users_directory_walk_idx, users_status_username_idx, users_site_admin_username_idx;
    CREATE INDEX users_status_username_idx ON users (status, lower(username));
    CREATE INDEX users_site_admin_username_idx ON users (lower(username)) WHERE is_site_admin;
  `);
}
