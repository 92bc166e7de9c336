/**
 * `npm run search:reindex`: rebuilds the search vectors of every live page from its stored
 * text, pond by pond (one transaction each), then makes the lexicon of the substring fallback
 * exact. Against DATABASE_URL, or the embedded Postgres under DATA_DIR when it is not set.
 *
 * Run it once after upgrading an instance across migration 0005 (migrations change schema
 * only: that one made the columns and leaves them empty) or 0013 (ß kept apart from ss: until
 * then, pages saved before rank 'Straße' and 'Strasse' alike), or after a change to what the
 * vectors hold. It is safe to run at any time, while the instance serves, and again.
 */
import { loadConfigOrExit } from '../api/config.ts';
import { createSequelize } from '../api/db/database.ts';
import { pendingMigrations } from '../api/db/migrator.ts';
import { reindexAllLivePages } from '../api/search/pageSearchIndex.ts';
import { refreshSearchLexicon } from '../api/search/searchLexicon.ts';
import { openInstanceDatabase } from './embeddedPostgres.ts';

const { databaseUrl, release } = await openInstanceDatabase(loadConfigOrExit());
const sequelize = createSequelize(databaseUrl, { poolMax: 2 });
try {
  const pending = await pendingMigrations(sequelize);
  if (pending.length > 0) {
    console.error(`migrations pending (${pending.join(', ')}): run npm run migrate first`);
    process.exitCode = 1;
  } else {
    const started = performance.now();
    let reported = 0;
    const pages = await reindexAllLivePages(sequelize, (done, total) => {
      // A line per tenth of the ponds, so a large instance shows progress without flooding.
      if (done === total || done - reported >= Math.max(1, Math.ceil(total / 10))) {
        reported = done;
        console.log(`  ponds ${done}/${total}`);
      }
    });
    const lexicon = await refreshSearchLexicon(sequelize);
    console.log(`reindexed ${pages} live pages in ${((performance.now() - started) / 1000).toFixed(1)} s; lexicon +${lexicon.added} −${lexicon.removed} words`);
  }
} finally {
  await sequelize.close();
  await release();
}
