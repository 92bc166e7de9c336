/**
 * The lexicon (`search_lexemes`) the substring fallback looks words up in. Saves only ever add
 * to it (api/search/pageSearchIndex.ts), so words that left every page stay behind and take
 * the places of live words among the few a partial word stands for. The daily refresh makes
 * it exactly the lexemes of the live vectors again: stale ones go, and any a save raced past
 * come back. ~6 s for 100,000 pages (one pass over the vectors, ts_stat).
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { LEXICON_MAX_LEXEME_CHARS } from './pageSearchIndex.ts';

export async function refreshSearchLexicon(sequelize: Sequelize): Promise<{ added: number; removed: number }> {
  const [row] = await sequelize.query<{ added: number; removed: number }>(
    `WITH live AS MATERIALIZED (
       SELECT word AS lexeme FROM ts_stat('SELECT search_vector FROM pages WHERE search_vector IS NOT NULL')
        WHERE length(word) <= ${LEXICON_MAX_LEXEME_CHARS}
     ),
     removed AS (
       DELETE FROM search_lexemes l WHERE NOT EXISTS (SELECT 1 FROM live WHERE live.lexeme = l.lexeme) RETURNING 1
     ),
     added AS (
       INSERT INTO search_lexemes (lexeme) SELECT lexeme FROM live ORDER BY lexeme ON CONFLICT DO NOTHING RETURNING 1
     )
     SELECT (SELECT count(*) FROM added)::int AS added, (SELECT count(*) FROM removed)::int AS removed`,
    { type: QueryTypes.SELECT },
  );
  return row!;
}
