/**
 * Search keeps ß apart from ss (api/search/pageSearchIndex.ts, `indexedSpellingSql`): text
 * reaches `dt_search` with ß and ẞ as ƨ (U+01A8), which `unaccent` leaves alone, so 'Straße'
 * is the lexeme 'straƨe' and no longer 'strasse'. The query finds the other spelling in its
 * transliteration tier, below the spelling as typed, as 'Baeume' finds 'Bäume'.
 *
 * The lexicon's indexes change here: the substring fallback compares entries with ƨ read as ss
 * again ('stras' and 'straß' find both 'strasse' and 'straƨe'), so its trigram index and a
 * btree for prefixes (1–2 characters) are on that expression, the one `lexiconSpellingSql`
 * writes. The primary key stays for the saves' inserts.
 *
 * The vectors are derived data and stay as they are: `npm run search:reindex` rebuilds them in
 * the new spelling and makes the lexicon exact (one pass, while the instance serves). Until it
 * has run, a vector saved before holds 'strasse' for 'Straße', and each page gets the new one at
 * its next save. Nothing is lost meanwhile: such a page is found by 'Strasse' as a match of the
 * word as typed and by 'Straße' through its transliteration ('straƨe' | 'strasse'), and the
 * fallback reads 'strasse' as before; only the order of the two spellings is as it was (equal).
 * Recomputing every vector here instead would hold the migration, and so the start, for as long
 * as that pass takes on a large instance.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX search_lexemes_trgm_idx;
    CREATE INDEX search_lexemes_trgm_idx ON search_lexemes USING gin (replace(lexeme, E'\\u01A8', 'ss') gin_trgm_ops);
    CREATE INDEX search_lexemes_prefix_idx ON search_lexemes (replace(lexeme, E'\\u01A8', 'ss'));
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX search_lexemes_trgm_idx, search_lexemes_prefix_idx;
    CREATE INDEX search_lexemes_trgm_idx ON search_lexemes USING gin (lexeme gin_trgm_ops);
  `);
}
