/**
 * Search (issue 7): the text search configuration, the indexes, and the lexicon the substring
 * fallback looks words up in.
 *
 * - `dt_search`: the `simple` configuration (no stemming, so neither German nor English words
 *   are cut to a wrong stem) with the `unaccent` dictionary in front, so 'Bäume', 'BAUME' and
 *   'baume' are one lexeme and 'Straße' is 'strasse' (since 0013, text reaches it with ß spelled
 *   apart, so that 'Straße' is not 'Strasse'). Because the folding happens in the dictionary,
 *   `ts_headline` with this configuration highlights the original words.
 * - `pages.search_head`: title (weight A) and label names (B) alone, small and kept in the row,
 *   so title hits are found and ranked without reading the body's vector.
 * - `pages.search_vector`: title, labels and body (C). Kept out of the row (`toast_tuple_target`)
 *   so scanning the rows a common word matches does not read every vector.
 * - `pages.label_ids`: the page's label ids, kept in step with `page_labels` by a trigger.
 * - `search_lexemes`: every lexeme some vector holds (and, until pruned, held). A partial word
 *   ('wiss') is looked up here through a trigram index (3+ characters) or as a prefix (1–2),
 *   and the words found are searched in the vectors' index: nothing scans page text.
 *
 * Schema only: the vectors and the lexicon are derived data, filled by the pages' saves and by
 * `npm run search:reindex` (scripts/search-reindex.ts), which an instance upgrading across this
 * migration runs once (until then, pages saved before it are not found). `label_ids` is filled
 * here: the read policy tests label rules on it (a label deny included), so it must be right
 * from the moment the column exists, not once a script has run.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE TEXT SEARCH CONFIGURATION dt_search (COPY = pg_catalog.simple);
    ALTER TEXT SEARCH CONFIGURATION dt_search
      ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart
      WITH public.unaccent, pg_catalog.simple;

    ALTER TABLE pages ADD COLUMN search_head tsvector;
    ALTER TABLE pages SET (toast_tuple_target = 256);

    CREATE TABLE search_lexemes (
      lexeme text COLLATE "C" PRIMARY KEY
    );
    CREATE INDEX search_lexemes_trgm_idx ON search_lexemes USING gin (lexeme gin_trgm_ops);

    -- The ids of a page's labels on its row, kept by a trigger on page_labels (so also through
    -- cascades): the read policy in SQL tests a label rule on the row it already has
    -- (api/policies/readablePagesSql.ts) instead of joining the assignments.
    ALTER TABLE pages ADD COLUMN label_ids uuid[] NOT NULL DEFAULT '{}';
    UPDATE pages p SET label_ids = ARRAY(SELECT pl.label_id FROM page_labels pl WHERE pl.page_id = p.id ORDER BY pl.label_id)
     WHERE EXISTS (SELECT 1 FROM page_labels pl WHERE pl.page_id = p.id);
    CREATE FUNCTION dt_sync_page_label_ids() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE pages p SET label_ids = ARRAY(SELECT pl.label_id FROM page_labels pl WHERE pl.page_id = p.id ORDER BY pl.label_id)
       WHERE p.id IN (SELECT page_id FROM changed);
      RETURN NULL;
    END $$;
    CREATE TRIGGER page_labels_added AFTER INSERT ON page_labels
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION dt_sync_page_label_ids();
    CREATE TRIGGER page_labels_removed AFTER DELETE ON page_labels
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION dt_sync_page_label_ids();
  `);
  await sequelize.query(`
    CREATE INDEX pages_search_vector_idx ON pages USING gin (search_vector);
    CREATE INDEX pages_search_head_idx ON pages USING gin (search_head);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX pages_search_vector_idx, pages_search_head_idx;
    DROP TABLE search_lexemes;
    DROP TRIGGER page_labels_added ON page_labels;
    DROP TRIGGER page_labels_removed ON page_labels;
    DROP FUNCTION dt_sync_page_label_ids();
    ALTER TABLE pages DROP COLUMN label_ids;
    ALTER TABLE pages RESET (toast_tuple_target);
    ALTER TABLE pages DROP COLUMN search_head;
    DROP TEXT SEARCH CONFIGURATION dt_search;
  `);
}
