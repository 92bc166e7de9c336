/**
 * Migrations change schema only: migration 0005 makes the search columns, indexes and lexicon
 * but computes no vectors for the pages already there; `npm run search:reindex` does, for
 * live pages only, and fills the lexicon. (`label_ids` is the exception the migration fills:
 * the read policy depends on it.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize } from '../db/database.ts';
import { createMigrator } from '../db/migrator.ts';
import { createTestDatabase } from '../testing/testDatabase.ts';
import { reindexAllLivePages } from './pageSearchIndex.ts';

describe('search vectors of pages older than migration 0005', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let sequelize: Sequelize;
  const ids = { live: '', trashed: '', inTrashedPond: '', label: '' };

  async function rows<Row extends object>(sql: string, replacements: Record<string, unknown> = {}): Promise<Row[]> {
    return sequelize.query<Row>(sql, { replacements, type: QueryTypes.SELECT });
  }

  async function vectorOf(pageId: string) {
    const [row] = await rows<{ head: string | null; vector: string | null; label_ids: string[] }>(
      `SELECT search_head::text AS head, search_vector::text AS vector, label_ids FROM pages WHERE id = :pageId`,
      { pageId },
    );
    return row!;
  }

  before(async () => {
    database = await createTestDatabase();
    sequelize = createSequelize(database.url, { poolMax: 2 });
    // Back to the schema before search, with pages written then.
    await createMigrator(sequelize).down({ to: '0005-search' });
    const [user] = await rows<{ id: string }>(`INSERT INTO users (username, email, display_name, status) VALUES ('old', 'old@example.org', 'Old', 'ACTIVE') RETURNING id`);
    const ponds = await rows<{ id: string; slug: string }>(
      `INSERT INTO ponds (slug, name, kind, owner_id, trashed_at) VALUES ('alt', 'Alt', 'shared', :owner, NULL), ('weg', 'Weg', 'shared', :owner, now()) RETURNING id, slug`,
      { owner: user!.id },
    );
    const pondOf = (slug: string) => ponds.find((pond) => pond.slug === slug)!.id;
    const page = async (pondId: string, slug: string, title: string, text: string, trashed = false) => {
      const [row] = await rows<{ id: string }>(
        `INSERT INTO pages (pond_id, slug, title, position, trashed_at) VALUES (:pondId, :slug, :title, :slug, ${trashed ? 'now()' : 'NULL'}) RETURNING id`,
        { pondId, slug, title },
      );
      await sequelize.query(`INSERT INTO page_contents (page_id, html, markdown, plain_text, word_count) VALUES (:id, '', :text, :text, 2)`, { replacements: { id: row!.id, text } });
      return row!.id;
    };
    ids.live = await page(pondOf('alt'), 'eins', 'Altbestand', 'Ein Wacholderstrauch wächst hier.');
    ids.trashed = await page(pondOf('alt'), 'zwei', 'Papierkorb', 'Ein Wacholderstrauch im Papierkorb.', true);
    ids.inTrashedPond = await page(pondOf('weg'), 'drei', 'Weggeworfen', 'Ein Wacholderstrauch im weggeworfenen Teich.');
    const [label] = await rows<{ id: string }>(`INSERT INTO labels (pond_id, name, color) VALUES (:pondId, 'Gehölz', '#336699') RETURNING id`, { pondId: pondOf('alt') });
    ids.label = label!.id;
    await sequelize.query(`INSERT INTO page_labels (page_id, label_id, pond_id) VALUES (:page, :label, :pond)`, { replacements: { page: ids.live, label: ids.label, pond: pondOf('alt') } });
    await createMigrator(sequelize).up({ to: '0005-search' });
  });

  after(async () => {
    await sequelize?.close();
    await database?.drop();
  });

  test('the migration computes no vectors and fills no lexicon; it does fill label_ids', async () => {
    const live = await vectorOf(ids.live);
    assert.equal(live.head, null);
    assert.equal(live.vector, null);
    assert.deepEqual(live.label_ids, [ids.label]);
    assert.deepEqual(await rows(`SELECT lexeme FROM search_lexemes`), []);
  });

  test('the reindex gives live pages their vectors and the lexicon their words, and nothing to trashed ones', async () => {
    assert.equal(await reindexAllLivePages(sequelize), 1);
    const live = await vectorOf(ids.live);
    assert.match(live.head ?? '', /'altbestand':1A/);
    assert.match(live.head ?? '', /'geholz':2B/, 'label names are in the head, folded');
    assert.match(live.vector ?? '', /'wacholderstrauch'/);
    for (const pageId of [ids.trashed, ids.inTrashedPond]) {
      const other = await vectorOf(pageId);
      assert.equal(other.vector, null);
      assert.equal(other.head, null);
    }
    assert.deepEqual((await rows<{ lexeme: string }>(`SELECT lexeme FROM search_lexemes WHERE lexeme = 'wacholderstrauch'`)).length, 1);
    assert.equal(await reindexAllLivePages(sequelize), 1, 'running it again changes nothing');
  });

  test('npm run search:reindex runs it against DATABASE_URL', async () => {
    await sequelize.query(`UPDATE pages SET search_head = NULL, search_vector = NULL`);
    await createMigrator(sequelize).up();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-reindex-'));
    try {
      const root = path.resolve(import.meta.dirname, '../..');
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'scripts/search-reindex.ts')], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, SESSION_SECRET: 'x'.repeat(40) },
      });
      assert.match(stdout, /reindexed 1 live pages/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    assert.match((await vectorOf(ids.live)).vector ?? '', /'wacholderstrauch'/);
  });
});
