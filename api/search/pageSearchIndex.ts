/**
 * Page search vectors: the one definition of what a page's vectors hold, and the hooks that
 * keep them in step with the trash. A trashed page or a page of a trashed pond has no vectors;
 * restoring rebuilds the vectors of the pages that are live.
 *
 * Two vectors per page, both through the `dt_search` configuration (migration 0005: `simple`,
 * no stemming, behind the `unaccent` dictionary, so case and diacritics fold: 'Baume' finds
 * 'Bäume'), of the text with ß spelled as the index spells it (`indexedSpellingSql`), so
 * 'Straße' and 'Strasse' stay two words, as 'Bäume' and 'Baeume' are; the query finds either
 * through its transliteration tier (searchStatements.ts):
 * - `search_head`: the title (weight A) and the names of the page's labels (B). Small, kept in
 *   the row: title and label hits are found and ranked without reading the body.
 * - `search_vector`: the head plus the body's plain text from the last save (C).
 * Every lexeme written also goes to `search_lexemes`, where the substring fallback finds words
 * by their parts. The save path (api/documents/derivedData.ts) uses the same expressions,
 * handing the fresh plain text in directly.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

export const SEARCH_CONFIG = 'dt_search';

/**
 * A tsvector must stay under 1 MB, or building it fails. Each distinct lexeme costs its bytes
 * plus about 8 bytes of header and position: text of two-character words of four-byte
 * characters costs up to ~5.4 bytes per input character, so 100,000 characters stay below
 * ~550 kB whatever the text. The rest of a longer body is not indexed; the save never fails.
 */
export const SEARCH_BODY_MAX_CHARS = 100_000;

/** Longer tokens (URLs, hashes, base64) are not worth finding by a part of them. */
export const LEXICON_MAX_LEXEME_CHARS = 64;

/**
 * `text` (an SQL expression) without search's highlight sentinels (U+E000, U+E001): they are
 * not text, would split a word in a vector and would fake a highlight in a snippet.
 */
export function withoutSentinelsSql(text: string): string {
  return `translate(${text}, E'\\uE000\\uE001', '')`;
}

/**
 * How the index spells ß: `unaccent` folds ß (and ẞ) to ss, which would make 'Straße' and
 * 'Strasse' one lexeme, found and ranked alike. Before any text or query reaches the
 * configuration, ß and ẞ become ƨ (U+01A8, LATIN SMALL LETTER TONE TWO): a letter to the
 * parser, left alone by `unaccent` and by lower(), one character for one (positions stay), and
 * absent from German text, so no word written otherwise ('Szene', 'Strasse') meets a ß-word.
 * Everything that hands text to `to_tsvector` or a `*_tsquery` function goes through this.
 */
export function indexedSpellingSql(text: string): string {
  return `translate(${text}, E'\\u00DF\\u1E9E', E'\\u01A8\\u01A8')`;
}

/** ß as lexemes spell it (`indexedSpellingSql`). */
export const INDEXED_SHARP_S = '\u01A8';

/**
 * `lexeme` (a lexicon entry) with ß read as ss again, as the substring fallback compares words:
 * 'stras' and 'straß' find 'straße' as well as 'strasse'. Character for character the
 * expression of the lexicon's indexes (migration 0013), or they are not used.
 */
export function lexiconSpellingSql(lexeme: string): string {
  return `replace(${lexeme}, E'\\u01A8', 'ss')`;
}

/**
 * `ts_headline` of `text` for `query` (a tsquery of the index's spelling) that marks ß-words
 * ('Straße' for the lexeme 'straƨe') and gives the text back as written. ẞ goes to the capital
 * Ƨ on the way in (the parser lowers it to ƨ), so the way back can tell the two apart; a text
 * holding a real ƨ or Ƨ, which German never does, would show ß or ẞ in their place.
 */
export function headlineSql(text: string, query: string, options: string): string {
  const spelled = `translate(${text}, E'\\u00DF\\u1E9E', E'\\u01A8\\u01A7')`;
  return `translate(ts_headline('${SEARCH_CONFIG}', ${spelled}, ${query}, '${options}'), E'\\u01A8\\u01A7', E'\\u00DF\\u1E9E')`;
}

function weighted(text: string, weight: 'A' | 'B' | 'C'): string {
  return `setweight(to_tsvector('${SEARCH_CONFIG}', ${indexedSpellingSql(text)}), '${weight}')`;
}

/** The head vector of the `pages` row aliased `page`: title and label names. */
function headSql(page: string): string {
  const labelNames = `(SELECT string_agg(l.name, ' ') FROM page_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.page_id = ${page}.id)`;
  return `${weighted(withoutSentinelsSql(`coalesce(${page}.title, '')`), 'A')} || ${weighted(`coalesce(${labelNames}, '')`, 'B')}`;
}

/**
 * `(search_head, search_vector) = …` for an UPDATE of the `pages` row aliased `page`, with
 * `body` (an SQL expression yielding text or null) as the body text.
 */
export function pageSearchVectorsAssignment(page: string, body: string): string {
  const text = withoutSentinelsSql(`left(coalesce(${body}, ''), ${SEARCH_BODY_MAX_CHARS})`);
  return `(search_head, search_vector) = (SELECT head, head || ${weighted(text, 'C')} FROM (SELECT ${headSql(page)} AS head) AS h)`;
}

/**
 * An INSERT adding the lexemes of the vectors in column `vector` of `source` (a CTE) to the
 * lexicon. In lexeme order, so two saves adding the same new words never deadlock.
 */
export function registerLexemesSql(source: string): string {
  return `INSERT INTO search_lexemes (lexeme)
    SELECT DISTINCT lexeme FROM ${source}, unnest(tsvector_to_array(${source}.vector)) AS lexeme
     WHERE length(lexeme) <= ${LEXICON_MAX_LEXEME_CHARS} ORDER BY lexeme
    ON CONFLICT DO NOTHING`;
}

/** Rebuilds the vectors of the live pages `where` selects (on `pages p`) from what is stored. */
function reindexSql(where: string): string {
  return `WITH indexed AS (
      UPDATE pages p SET ${pageSearchVectorsAssignment('p', '(SELECT c.plain_text FROM page_contents c WHERE c.page_id = p.id)')}
       WHERE ${where} AND p.trashed_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM ponds po WHERE po.id = p.pond_id AND po.trashed_at IS NOT NULL)
      RETURNING p.search_vector AS vector
    )
    ${registerLexemesSql('indexed')}`;
}

function sequelizeOf(transaction: Transaction): Sequelize {
  return (transaction as unknown as { sequelize: Sequelize }).sequelize;
}

/** Trashing a pond: no page of it may be found any more. */
export async function clearPondSearchVectors(pondId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(`UPDATE pages SET search_head = NULL, search_vector = NULL WHERE pond_id = :pondId`, { replacements: { pondId }, transaction });
}

/** Restoring a pond: only the pages that were live (not in the page trash) are indexed again. */
export async function reindexLivePondPages(pondId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(reindexSql('p.pond_id = :pondId'), { replacements: { pondId }, transaction });
}

/** Trashing pages (promote: the page; subtree: all of it): a trashed page cannot be found. */
export async function clearPageSearchVectors(pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelizeOf(transaction).query(`UPDATE pages SET search_head = NULL, search_vector = NULL WHERE id IN (:pageIds)`, { replacements: { pageIds: [...pageIds] }, transaction });
}

/** After a page is created, restored, or its title or its labels change (live pages only). */
export async function reindexPages(pageIds: readonly string[], transaction: Transaction): Promise<void> {
  if (pageIds.length === 0) return;
  await sequelizeOf(transaction).query(reindexSql('p.id IN (:pageIds)'), { replacements: { pageIds: [...pageIds] }, transaction });
}

/**
 * Every live page of every live pond indexed afresh from what is stored, one pond per
 * transaction (`npm run search:reindex`: after an upgrade across migration 0005, which made
 * the columns but fills nothing, across 0013, after which ß is spelled apart from ss, or after
 * another change to what the vectors hold). Pages of trashed ponds and trashed pages keep no
 * vectors. Returns the pages indexed.
 */
export async function reindexAllLivePages(sequelize: Sequelize, onPond: (done: number, total: number) => void = () => undefined): Promise<number> {
  const ponds = await sequelize.query<{ id: string }>(`SELECT id FROM ponds WHERE trashed_at IS NULL ORDER BY id`, { type: QueryTypes.SELECT });
  for (const [index, pond] of ponds.entries()) {
    await sequelize.transaction((transaction) => reindexLivePondPages(pond.id, transaction));
    onPond(index + 1, ponds.length);
  }
  const [row] = await sequelize.query<{ pages: number }>(
    `SELECT count(*)::int AS pages FROM pages p JOIN ponds po ON po.id = p.pond_id WHERE p.trashed_at IS NULL AND po.trashed_at IS NULL`,
    { type: QueryTypes.SELECT },
  );
  return row?.pages ?? 0;
}

/** After a label is renamed: every live page carrying it gets the new name in its head. */
export async function reindexPagesLabelled(labelId: string, transaction: Transaction): Promise<void> {
  await sequelizeOf(transaction).query(reindexSql('p.id IN (SELECT pl.page_id FROM page_labels pl WHERE pl.label_id = :labelId)'), { replacements: { labelId }, transaction });
}
