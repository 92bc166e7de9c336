/**
 * `npm run migrate [-- down]`: applies pending migrations (or reverts the last one) against
 * DATABASE_URL, or against the embedded Postgres under DATA_DIR when it is not set.
 */
import { loadConfigOrExit } from '../api/config.ts';
import { createSequelize } from '../api/db/database.ts';
import { createMigrator, migrateToLatest } from '../api/db/migrator.ts';
import { openInstanceDatabase } from './embeddedPostgres.ts';

const { databaseUrl, release } = await openInstanceDatabase(loadConfigOrExit());
const sequelize = createSequelize(databaseUrl, { poolMax: 2 });
try {
  if (process.argv[2] === 'down') {
    const reverted = await createMigrator(sequelize).down();
    console.log(reverted.length ? `reverted: ${reverted.map((m) => m.name).join(', ')}` : 'nothing to revert');
  } else {
    const applied = await migrateToLatest(databaseUrl, sequelize);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema up to date');
  }
} finally {
  await sequelize.close();
  await release();
}
