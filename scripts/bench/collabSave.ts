/**
 * (e) of bench:collab: the save path of a 5,000-word page — saveDerivedData, rendering
 * included — with where its time goes: the three renders, and the write alone with the
 * search vector Postgres computes in it.
 */
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { renderDocument, saveDerivedData, saveRenderedData } from '../../api/documents/derivedData.ts';
import { documentToHtml, documentToMarkdown, extract } from '../../content-pipeline/index.ts';
import { generateWordPage } from './collabDocuments.ts';
import { measureAlternating, type Timing } from './timing.ts';

export interface SaveFigures {
  save: Timing;
  render: Timing;
  html: Timing;
  markdown: Timing;
  extract: Timing;
  writeOnly: Timing;
  searchVector: Timing;
  words: number;
  links: number;
  mentions: number;
  htmlChars: number;
  plainTextChars: number;
}

/**
 * Saves alternate between two versions of the page (one word apart), so each is a change.
 * Link targets `seite-0` … `seite-199` are created in the pond, so links resolve to pages.
 */
export async function measureSave(sequelize: Sequelize, databaseUrl: string, page: { pondId: string; pageId: string; userIds: string[] }, runs: number): Promise<SaveFigures> {
  await sequelize.query(
    `INSERT INTO pages (pond_id, slug, title, position) SELECT $1, 'seite-' || n, 'Seite ' || n, 'z' || lpad(n::text, 4, '0') FROM generate_series(0, 199) AS n`,
    { bind: [page.pondId] },
  );
  const variants = [0, 1].map((variant) => generateWordPage(5000, page.userIds, variant));
  const rendered = variants.map(renderDocument);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  let saves = 0;
  let writes = 0;
  let vectors = 0;
  try {
    const timings = await measureAlternating(
      {
        save: () => saveDerivedData(sequelize, { pageId: page.pageId, document: variants[saves++ % 2]!, authorIds: [page.userIds[0]!] }),
        render: async () => renderDocument(variants[0]!),
        html: async () => documentToHtml(variants[0]!),
        markdown: async () => documentToMarkdown(variants[0]!),
        extract: async () => extract(variants[0]!),
        writeOnly: () => saveRenderedData(sequelize, { pageId: page.pageId, rendered: rendered[writes++ % 2]!, authorIds: [page.userIds[0]!] }),
        searchVector: () => pool.query(`SELECT setweight(to_tsvector('simple', dt_unaccent(lower($1))), 'C')`, [rendered[vectors++ % 2]!.plainText]),
      },
      { warmup: 3, runs },
    );
    const sample = rendered[0]!;
    return {
      ...timings,
      words: sample.wordCount,
      links: sample.links.length,
      mentions: sample.mentionIds.length,
      htmlChars: sample.html.length,
      plainTextChars: sample.plainText.length,
    };
  } finally {
    await pool.end();
  }
}
