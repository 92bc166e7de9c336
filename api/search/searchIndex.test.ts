/**
 * What search reads, kept in step with the pages: a 5 MB body indexes without error (its first
 * 100,000 characters), saved words reach the lexicon and the daily refresh drops words that
 * left every page, `pages.label_ids` follows the label assignments through every path
 * (assign, unassign, label deletion cascading), the highlight sentinels never enter a
 * vector, and ß stays apart from ss in the vectors and the lexicon.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes, type Sequelize } from 'sequelize';
import { saveDerivedData } from '../documents/derivedData.ts';
import { markdownToDocument } from '../../content-pipeline/index.ts';
import { Label, type Page } from '../models/index.ts';
import { seedLabel, seedPage, seedPageLabels, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { indexedSpellingSql, reindexPages, SEARCH_BODY_MAX_CHARS } from './pageSearchIndex.ts';
import { refreshSearchLexicon } from './searchLexicon.ts';

describe('the search index', () => {
  let instance: TestInstance;
  let pondId: string;
  const sequelize = (): Sequelize => instance.services.sequelize;

  async function sql<Row extends object>(text: string, replacements: Record<string, unknown> = {}): Promise<Row[]> {
    return sequelize().query<Row>(text, { replacements, type: QueryTypes.SELECT });
  }

  async function matches(pageId: string, word: string): Promise<boolean> {
    const [row] = await sql<{ hit: boolean }>(`SELECT search_vector @@ plainto_tsquery('dt_search', ${indexedSpellingSql(':word')}) AS hit FROM pages WHERE id = :pageId`, { pageId, word });
    return row?.hit === true;
  }

  async function inLexicon(lexeme: string): Promise<boolean> {
    return (await sql(`SELECT 1 FROM search_lexemes WHERE lexeme = :lexeme`, { lexeme })).length === 1;
  }

  async function labelIdsOf(page: Page): Promise<string[]> {
    const [row] = await sql<{ label_ids: string[] }>(`SELECT label_ids FROM pages WHERE id = :id`, { id: page.id });
    return [...row!.label_ids].sort();
  }

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    const owner = await createVerifiedUser(instance);
    pondId = (await seedSharedPond(owner.user.id)).id;
  });
  after(() => instance.close());

  test('a 5 MB body indexes without error: its first 100,000 characters are found, the rest is not', async () => {
    const page = await seedPage(pondId, 'Riesenseite');
    const filler = 'Blätter rauschen im Wind und Wasser fließt ruhig. ';
    const text = `Riesenanfang ${filler.repeat(Math.ceil((5 * 1024 * 1024) / filler.length))} Riesenende`;
    assert.ok(text.length > 5 * 1024 * 1024 && text.length > SEARCH_BODY_MAX_CHARS);
    await sql(`INSERT INTO page_contents (page_id, html, markdown, plain_text) VALUES (:id, '', '', :text)`, { id: page.id, text });
    await sequelize().transaction((transaction) => reindexPages([page.id], transaction));
    assert.equal(await matches(page.id, 'Riesenanfang'), true);
    assert.equal(await matches(page.id, 'blatter'), true, 'folded like every other word');
    assert.equal(await matches(page.id, 'FLIESST'), false, 'ß is not ss: the query finds it through its transliteration');
    assert.equal(await matches(page.id, 'FLIEẞT'), true);
    assert.equal(await matches(page.id, 'Riesenende'), false, 'beyond the indexed part');
    const [size] = await sql<{ bytes: number }>(`SELECT pg_column_size(search_vector) AS bytes FROM pages WHERE id = :id`, { id: page.id });
    assert.ok(size!.bytes < 1024 * 1024, `vector of ${size!.bytes} bytes`);
  });

  test('a save adds its words to the lexicon; the refresh drops words no page holds any more', async () => {
    const page = await seedPage(pondId, 'Lexikon');
    await saveDerivedData(sequelize(), { pageId: page.id, document: markdownToDocument('Quendelzauber und Ährenfeld am Fußweg.\n'), authorIds: [] });
    assert.equal(await inLexicon('quendelzauber'), true);
    assert.equal(await inLexicon('ahrenfeld'), true, 'folded');
    assert.equal(await inLexicon('fu\u01A8weg'), true, 'ß in the index spelling');
    assert.equal(await inLexicon('fussweg'), false);
    await saveDerivedData(sequelize(), { pageId: page.id, document: markdownToDocument('Nur noch Ährenfeld.\n'), authorIds: [] });
    assert.equal(await inLexicon('quendelzauber'), true, 'a save only adds');
    await sql(`DELETE FROM search_lexemes WHERE lexeme = 'ahrenfeld'`);
    const { added, removed } = await refreshSearchLexicon(sequelize());
    assert.ok(added >= 1 && removed >= 1, `added ${added}, removed ${removed}`);
    assert.equal(await inLexicon('quendelzauber'), false, 'stale words go');
    assert.equal(await inLexicon('ahrenfeld'), true, 'missing live words come back');
    assert.deepEqual(await refreshSearchLexicon(sequelize()), { added: 0, removed: 0 });
  });

  test('pages.label_ids follows assignment, unassignment and a label deleted with its subtree', async () => {
    const parent = await seedLabel(pondId, 'Eltern');
    const child = await seedLabel(pondId, 'Kind', { parentId: parent.id });
    const other = await seedLabel(pondId, 'Anderes');
    const page = await seedPage(pondId, 'Etiketten');
    assert.deepEqual(await labelIdsOf(page), []);
    await seedPageLabels(page, [child, other]);
    assert.deepEqual(await labelIdsOf(page), [child.id, other.id].sort());
    await sql(`DELETE FROM page_labels WHERE page_id = :pageId AND label_id = :labelId`, { pageId: page.id, labelId: other.id });
    assert.deepEqual(await labelIdsOf(page), [child.id]);
    await Label.destroy({ where: { id: parent.id } });
    assert.deepEqual(await labelIdsOf(page), [], 'the child went with its parent, and its assignment with it');
  });

  test('highlight sentinels in a title or body do not split words in the vector', async () => {
    const page = await seedPage(pondId, 'Sen\uE000tinel');
    await saveDerivedData(sequelize(), { pageId: page.id, document: markdownToDocument('Mark\uE001ierung im Text.\n'), authorIds: [] });
    assert.equal(await matches(page.id, 'Sentinel'), true);
    assert.equal(await matches(page.id, 'Markierung'), true);
    assert.equal(await matches(page.id, 'Mark'), false);
  });
});
