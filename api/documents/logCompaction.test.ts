/**
 * The update-log compaction job (spec, Limits): a page with more than 500 log rows and no live
 * collaboration session gets one merged row holding the same document; a live session, a
 * short log or a stale session's leftovers decide as the spec says; and rows appended while a
 * compaction runs survive it. After a session, one page's log of more than 50 rows is merged
 * the same way. Logs are real Yjs updates of someone typing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import * as Y from 'yjs';
import { YJS_FRAGMENT_NAME, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { createSequelize } from '../db/database.ts';
import { initModels, User, type Pond } from '../models/index.ts';
import { seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { createTestDatabase } from '../testing/testDatabase.ts';
import { appendUpdates, loadDocumentState, loadPageUpdates, type Queryable } from './documentLog.ts';
import { COMPACTION_MIN_ROWS, compactIdleLogs, compactLogAfterSession, SESSION_END_COMPACTION_MIN_ROWS, withClientOf, type WithClient } from './logCompaction.ts';

/** Someone typing into one paragraph, one character per update, as an editor would send them. */
class Typist {
  readonly ydoc = new Y.Doc();
  readonly text = new Y.XmlText();
  private pending: Uint8Array[] = [];
  typed = '';

  constructor() {
    this.ydoc.on('update', (update: Uint8Array) => this.pending.push(update));
    const paragraph = new Y.XmlElement('paragraph');
    paragraph.insert(0, [this.text]);
    this.ydoc.getXmlFragment(YJS_FRAGMENT_NAME).insert(0, [paragraph]);
  }

  /** Types `count` characters; returns the updates made since the last call. */
  type(count: number): Uint8Array[] {
    for (let i = 0; i < count; i += 1) {
      const character = String.fromCharCode(97 + ((this.typed.length + i) % 26));
      this.text.insert(this.text.length, character);
    }
    this.typed = this.text.toString();
    const updates = this.pending;
    this.pending = [];
    return updates;
  }
}

describe('update-log compaction', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let sequelize: Sequelize;
  let pool: pg.Pool;
  let pond: Pond;
  let userId: string;
  const withPool: WithClient = (work) => withClientOf(pool)(work);

  before(async () => {
    database = await createTestDatabase();
    sequelize = createSequelize(database.url, { poolMax: 2 });
    initModels(sequelize);
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    // As the worker's and the collab server's pools do: an idle connection the server ends
    // (seen once in a loaded CI run: "terminating connection due to administrator command")
    // is replaced by the pool, not an uncaught error that fails the file after its tests passed.
    pool.on('error', () => undefined);
    const owner = await User.create({ username: 'compactor', email: 'compactor@example.org', displayName: 'Compactor', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    userId = owner.id;
    pond = await seedSharedPond(owner.id);
  });
  after(async () => {
    await pool?.end();
    await sequelize?.close();
    await database?.drop();
  });

  /** A page whose log holds `rows` rows typed by one typist (the first row creates the paragraph). */
  async function pageWithLog(rows: number): Promise<{ pageId: string; typist: Typist }> {
    const page = await seedPage(pond.id, `Log of ${rows}`);
    const typist = new Typist();
    const updates = typist.type(rows - 1);
    // The paragraph's creation was made in the constructor: it is the first pending update.
    assert.equal(updates.length, rows);
    await appendUpdates(pool, updates.map((update) => ({ pageId: page.id, update })));
    return { pageId: page.id, typist };
  }

  async function logRowCount(pageId: string): Promise<number> {
    const rows = await sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM page_updates WHERE page_id = :pageId`, {
      replacements: { pageId },
      type: QueryTypes.SELECT,
    });
    return rows[0]!.count;
  }

  async function session(pageId: string, heartbeatSecondsAgo: number): Promise<void> {
    await sequelize.query(
      `INSERT INTO collab_sessions (id, page_id, user_id, instance_id, mode, connected_at, heartbeat_at)
       VALUES (:id, :pageId, :userId, 'test:1:1', 'rw', now() - interval '1 hour', now() - make_interval(secs => :ago))`,
      { replacements: { id: randomUUID(), pageId, userId, ago: heartbeatSecondsAgo } },
    );
  }

  function textOf(state: Uint8Array): string {
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, state);
    const text = ydoc.getXmlFragment(YJS_FRAGMENT_NAME).toString();
    ydoc.destroy();
    return text;
  }

  test('a page with 600 rows and no session is merged into one row holding the same document', async () => {
    assert.equal(COMPACTION_MIN_ROWS, 500);
    const { pageId, typist } = await pageWithLog(600);
    const before = await loadPageUpdates(pool, pageId);
    assert.equal(before.length, 600);
    const expected = Y.mergeUpdates(before.map((row) => row.update));

    const compacted = await compactIdleLogs(withPool);
    const mine = compacted.find((log) => log.pageId === pageId);
    assert.ok(mine, 'the page was compacted');
    assert.equal(mine.mergedRows, 600);
    assert.ok(mine.bytesAfter < mine.bytesBefore, `${mine.bytesAfter} < ${mine.bytesBefore}`);

    const after = await loadPageUpdates(pool, pageId);
    assert.equal(after.length, 1);
    // The merged row keeps the newest id, so later rows still sort after it.
    assert.equal(after[0]!.id, before[before.length - 1]!.id);
    assert.deepEqual(yjsUpdateToDocument(after[0]!.update), yjsUpdateToDocument(expected));
    assert.equal(textOf(after[0]!.update), `<paragraph>${typist.typed}</paragraph>`);
    assert.equal(typist.typed.length, 599);

    // Nothing of the typist's history is missing from the merged row.
    assert.deepEqual(Y.encodeStateVectorFromUpdate(after[0]!.update), Y.encodeStateVector(typist.ydoc));
  });

  test('a page with a live session is left alone, however long its log', async () => {
    const { pageId } = await pageWithLog(600);
    await session(pageId, 10);
    const compacted = await compactIdleLogs(withPool);
    assert.ok(!compacted.some((log) => log.pageId === pageId));
    assert.equal(await logRowCount(pageId), 600);
  });

  test('a page with 500 rows or fewer is left alone; 501 is compacted', async () => {
    const short = await pageWithLog(400);
    const atLimit = await pageWithLog(500);
    const overLimit = await pageWithLog(501);
    const compacted = (await compactIdleLogs(withPool)).map((log) => log.pageId);
    assert.ok(!compacted.includes(short.pageId));
    assert.ok(!compacted.includes(atLimit.pageId));
    assert.ok(compacted.includes(overLimit.pageId));
    assert.equal(await logRowCount(short.pageId), 400);
    assert.equal(await logRowCount(atLimit.pageId), 500);
    assert.equal(await logRowCount(overLimit.pageId), 1);
  });

  test('a stale session (heartbeat older than 90 s, its process crashed) does not block compaction', async () => {
    const { pageId, typist } = await pageWithLog(600);
    await session(pageId, 120);
    const compacted = await compactIdleLogs(withPool);
    assert.ok(compacted.some((log) => log.pageId === pageId));
    assert.equal(await logRowCount(pageId), 1);
    assert.equal(textOf((await loadDocumentState(pool, pageId)).state), `<paragraph>${typist.typed}</paragraph>`);
  });

  test('rows appended while a compaction runs survive it: the document keeps every edit', async () => {
    const { pageId, typist } = await pageWithLog(600);
    const typedBefore = typist.typed;
    let appendedIds: number[] = [];
    // The compaction's connection, with a hook: right after it has read and locked the rows it
    // merges, another connection appends 50 edits (and commits) before the merge is written.
    const interleaving: WithClient = (work) =>
      withPool((client) => {
        const hooked: Queryable = {
          query: async (text: string, values?: unknown[]) => {
            const result = await client.query(text, values);
            if (/FOR UPDATE/.test(text) && appendedIds.length === 0) {
              appendedIds = await appendUpdates(pool, typist.type(50).map((update) => ({ pageId, update })));
            }
            return result as any;
          },
        };
        return work(hooked);
      });

    const compacted = await compactIdleLogs(interleaving);
    assert.ok(compacted.some((log) => log.pageId === pageId && log.mergedRows === 600));
    assert.equal(appendedIds.length, 50, 'the concurrent edits were appended during the compaction');

    const rows = await loadPageUpdates(pool, pageId);
    assert.equal(rows.length, 51, 'one merged row and the 50 appended rows');
    assert.deepEqual(rows.slice(1).map((row) => row.id), appendedIds);
    const { state } = await loadDocumentState(pool, pageId);
    assert.equal(typist.typed.length, typedBefore.length + 50);
    assert.equal(textOf(state), `<paragraph>${typist.typed}</paragraph>`);
    assert.deepEqual(yjsUpdateToDocument(state), yjsUpdateToDocument(Y.encodeStateAsUpdate(typist.ydoc)));

    // A second run merges those too, still without losing anything.
    await compactIdleLogs(withPool, { minRows: 10 });
    assert.equal(await logRowCount(pageId), 1);
    assert.equal(textOf((await loadDocumentState(pool, pageId)).state), `<paragraph>${typist.typed}</paragraph>`);
  });

  describe('after a session (the page-log-compaction job)', () => {
    test('a page whose log has more than 50 rows and nobody editing it gets one row holding the same document', async () => {
      assert.equal(SESSION_END_COMPACTION_MIN_ROWS, 50);
      const { pageId, typist } = await pageWithLog(51);
      const before = await loadPageUpdates(pool, pageId);
      const compacted = await compactLogAfterSession(withPool, pageId);
      assert.equal(compacted?.pageId, pageId);
      assert.equal(compacted?.mergedRows, 51);
      const after = await loadPageUpdates(pool, pageId);
      assert.equal(after.length, 1);
      assert.equal(after[0]!.id, before.at(-1)!.id);
      assert.equal(textOf(after[0]!.update), `<paragraph>${typist.typed}</paragraph>`);
      assert.deepEqual(Y.encodeStateVectorFromUpdate(after[0]!.update), Y.encodeStateVector(typist.ydoc));
    });

    test('a log of 50 rows or fewer is left as it is', async () => {
      const { pageId } = await pageWithLog(50);
      assert.equal(await compactLogAfterSession(withPool, pageId), null);
      assert.equal(await logRowCount(pageId), 50);
    });

    test('a page someone opened again meanwhile (a live session) is left alone', async () => {
      const { pageId } = await pageWithLog(300);
      await session(pageId, 5);
      assert.equal(await compactLogAfterSession(withPool, pageId), null);
      assert.equal(await logRowCount(pageId), 300);
    });
  });
});
