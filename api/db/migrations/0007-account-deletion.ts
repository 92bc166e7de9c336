/**
 * A Site Admin's delete keeps the account row (authored pages, versions and audit entries
 * still point at it) but scrubs it: `users.status` gains `deleted`
 * (api/commands/accountDeletion.ts).
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    ALTER TABLE users DROP CONSTRAINT users_status_check;
    ALTER TABLE users ADD CONSTRAINT users_status_check CHECK (status IN ('unconfirmed', 'ACTIVE', 'disabled', 'deleted'));
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  // NOT VALID: accounts deleted meanwhile keep their status; new rows are checked.
  await sequelize.query(`
    ALTER TABLE users DROP CONSTRAINT users_status_check;
    ALTER TABLE users ADD CONSTRAINT users_status_check CHECK (status IN ('unconfirmed', 'ACTIVE', 'disabled')) NOT VALID;
  `);
}
