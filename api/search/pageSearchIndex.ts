/**
 * Page search vectors: the one definition of what a page's vectors hold, and the hooks that
 * keep them in step with the trash. A trashed page or a page of a trashed pond has no vectors;
 * restoring rebuilds the vectors of the pages that are live.
 *
 * Two vectors per page, both through the `dt_search` configuration (migration 0005: `simple`,
 * no stemming, behind the `unaccent` dictionary, so case and diacritics fold: 'Baume' finds
 * 'Bäume', 'Strasse' finds 'Straße'):
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

function weighted(text: string, weight: 'A' | 'B' | 'C'): string {
  return `setweight(to_tsvector('${SEARCH_CONFIG}', ${text}), '${weight}')`;
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
 * the columns but fills nothing, or after a change to what the vectors hold). Pages of
 * trashed ponds and trashed pages keep no vectors. Returns the pages indexed.
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
