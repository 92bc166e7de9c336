/**
 * The nightly orphan-file sweep against a real database and a real data directory, one case
 * per rule: unclaimed uploads older than 24 h go with their bytes, younger ones and claimed
 * ones (embedded or not) stay; stray files without a row go after an hour's grace, stale
 * temporary files after 24 h; the hash backfill writes the right SHA-256, is bounded and does
 * nothing on a second run, and reports missing bytes without deleting the row; a claim in
 * progress wins over the sweep; a second concurrent run is skipped.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { initModels, User, type Page, type Pond } from '../models/index.ts';
import { seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { createTestDatabase } from '../testing/testDatabase.ts';
import { storedFilePath } from './fileStore.ts';
import { ORPHAN_SWEEP_LOCK_KEY, sweepOrphanFiles, type OrphanSweepOptions, type OrphanSweepOutcome } from './orphanSweep.ts';

const HOUR_MS = 60 * 60 * 1000;
const NOTHING_DONE = { skipped: false, unclaimedDeleted: 0, strayFilesDeleted: 0, staleTempFilesDeleted: 0, hashesBackfilled: 0, hashesMissingBytes: 0 };

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('orphan-file sweep', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let sequelize: Sequelize;
  let pond: Pond;
  let page: Page;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-orphan-sweep-'));
  /** The sweep's log lines (JSON), to check what a warning names. */
  const logLines: Record<string, unknown>[] = [];
  const logger = createLogger('warn', 'worker', new Writable({ write: (chunk, _encoding, done) => (logLines.push(JSON.parse(String(chunk))), done()) }));

  before(async () => {
    database = await createTestDatabase();
    sequelize = createSequelize(database.url, { poolMax: 6 });
    initModels(sequelize);
    const owner = await User.create({ username: 'uploader', email: 'uploader@example.org', displayName: 'Uploader', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    pond = await seedSharedPond(owner.id);
    page = await seedPage(pond.id, 'With attachments');
  });
  beforeEach(async () => {
    // The sweep looks at the whole table and the whole store: each case starts from neither.
    await sequelize.query('DELETE FROM files');
    rmSync(path.join(dataDir, 'files'), { recursive: true, force: true });
    logLines.length = 0;
  });
  after(async () => {
    await sequelize?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sweep = (options: Partial<OrphanSweepOptions> = {}): Promise<OrphanSweepOutcome> => sweepOrphanFiles(sequelize, { dataDir, logger, ...options });

  interface FileProps {
    ageHours?: number;
    /** The claiming page; omitted: unclaimed. */
    pageId?: string;
    embedded?: boolean;
    /** Stored bytes; null: none on disk. */
    bytes?: Buffer | string | null;
    /** Leave `sha256` null, as rows from before hashing have it. */
    unhashed?: boolean;
  }

  /** A `files` row as an upload (and a claiming save) writes it, with its bytes in the store. */
  async function insertFile(props: FileProps = {}): Promise<string> {
    const bytes = props.bytes === undefined ? `bytes ${randomUUID()}` : props.bytes;
    const [row] = await sequelize.query<{ id: string }>(
      `INSERT INTO files (pond_id, page_id, upload_page_id, embedded, extension, content_type, size_bytes, sha256, name, created_at)
       VALUES (:pondId, :pageId, :uploadPageId, :embedded, 'png', 'image/png', :size, :sha256, 'picture.png', now() - make_interval(secs => :ageSeconds))
       RETURNING id`,
      {
        replacements: {
          pondId: pond.id,
          pageId: props.pageId ?? null,
          uploadPageId: page.id,
          embedded: props.embedded ?? false,
          size: bytes === null ? 0 : Buffer.byteLength(bytes),
          sha256: props.unhashed || bytes === null ? null : sha256Of(bytes),
          ageSeconds: (props.ageHours ?? 0) * 3600,
        },
        type: QueryTypes.SELECT,
      },
    );
    if (bytes !== null) writeStored(row!.id, bytes);
    return row!.id;
  }

  function writeStored(fileId: string, bytes: Buffer | string, ageHours = 0): string {
    const filePath = storedFilePath(dataDir, fileId);
    mkdirSync(path.dirname(filePath), { recursive: true });
    writeFileSync(filePath, bytes);
    ageFile(filePath, ageHours);
    return filePath;
  }

  function writeTemp(name: string, ageHours: number): string {
    const filePath = path.join(dataDir, 'files', 'tmp', name);
    mkdirSync(path.dirname(filePath), { recursive: true });
    writeFileSync(filePath, 'half an upload');
    ageFile(filePath, ageHours);
    return filePath;
  }

  function ageFile(filePath: string, ageHours: number): void {
    const time = new Date(Date.now() - ageHours * HOUR_MS);
    utimesSync(filePath, time, time);
  }

  async function rowIds(): Promise<Set<string>> {
    const rows = await sequelize.query<{ id: string }>('SELECT id::text AS id FROM files', { type: QueryTypes.SELECT });
    return new Set(rows.map((row) => row.id));
  }

  async function hashOf(fileId: string): Promise<string | null> {
    const [row] = await sequelize.query<{ sha256: string | null }>('SELECT sha256 FROM files WHERE id = :fileId', { replacements: { fileId }, type: QueryTypes.SELECT });
    return row!.sha256;
  }

  const hasBytes = (fileId: string) => existsSync(storedFilePath(dataDir, fileId));

  test('an unclaimed upload older than 24 h goes, row and bytes; one younger than 24 h stays', async () => {
    const old = await insertFile({ ageHours: 25 });
    const young = await insertFile({ ageHours: 23 });
    assert.deepEqual(await sweep(), { ...NOTHING_DONE, unclaimedDeleted: 1 });
    assert.deepEqual(await rowIds(), new Set([young]));
    assert.equal(hasBytes(old), false);
    assert.equal(hasBytes(young), true);
  });

  test('a claimed attachment the page no longer embeds stays, however old', async () => {
    const unembedded = await insertFile({ ageHours: 24 * 400, pageId: page.id, embedded: false });
    assert.deepEqual(await sweep(), NOTHING_DONE);
    assert.deepEqual(await rowIds(), new Set([unembedded]));
    assert.equal(hasBytes(unembedded), true);
  });

  test('a claimed attachment the page embeds stays, however old', async () => {
    const embedded = await insertFile({ ageHours: 24 * 400, pageId: page.id, embedded: true });
    assert.deepEqual(await sweep(), NOTHING_DONE);
    assert.deepEqual(await rowIds(), new Set([embedded]));
    assert.equal(hasBytes(embedded), true);
  });

  test('a stray file without a row goes once older than an hour; a fresh one (an upload about to commit) and names of another shape stay', async () => {
    const oldStray = writeStored(randomUUID(), 'left behind', 2);
    const freshStray = writeStored(randomUUID(), 'renamed into place, row not yet committed', 0.5);
    // Old bytes of a row are not stray.
    const kept = await insertFile({ pageId: page.id, embedded: true });
    ageFile(storedFilePath(dataDir, kept), 24 * 30);
    const foreignName = path.join(dataDir, 'files', 'ab', 'notes.txt');
    mkdirSync(path.dirname(foreignName), { recursive: true });
    writeFileSync(foreignName, 'not ours to judge');
    ageFile(foreignName, 48);
    const misplaced = path.join(dataDir, 'files', 'ab', `cd${randomUUID().slice(2)}`);
    writeFileSync(misplaced, 'not where the store puts it');
    ageFile(misplaced, 48);

    assert.deepEqual(await sweep(), { ...NOTHING_DONE, strayFilesDeleted: 1 });
    assert.equal(existsSync(oldStray), false);
    assert.equal(existsSync(freshStray), true);
    assert.equal(hasBytes(kept), true);
    assert.equal(existsSync(foreignName), true);
    assert.equal(existsSync(misplaced), true);
  });

  test('a temporary upload file older than 24 h goes; a younger one stays', async () => {
    const stale = writeTemp('stale.part', 25);
    const fresh = writeTemp('fresh.part', 23);
    assert.deepEqual(await sweep(), { ...NOTHING_DONE, staleTempFilesDeleted: 1 });
    assert.equal(existsSync(stale), false);
    assert.equal(existsSync(fresh), true);
  });

  test('the backfill writes the SHA-256 of the stored bytes, oldest first, at most N rows a run; a later run does nothing new', async () => {
    // Larger than a read stream's chunk, so the hash is fed in pieces.
    const large = Buffer.alloc(1024 * 1024 + 7, 0x5a);
    const oldest = await insertFile({ ageHours: 3, bytes: large, unhashed: true });
    const middle = await insertFile({ ageHours: 2, bytes: 'middle', unhashed: true });
    const newest = await insertFile({ ageHours: 1, bytes: 'newest', unhashed: true });

    assert.deepEqual(await sweep({ hashBackfillLimit: 2 }), { ...NOTHING_DONE, hashesBackfilled: 2 });
    assert.equal(await hashOf(oldest), sha256Of(large));
    assert.equal(await hashOf(middle), sha256Of('middle'));
    assert.equal(await hashOf(newest), null, 'beyond the bound');

    assert.deepEqual(await sweep(), { ...NOTHING_DONE, hashesBackfilled: 1 });
    assert.equal(await hashOf(newest), sha256Of('newest'));
    assert.deepEqual(await sweep(), NOTHING_DONE);
    assert.deepEqual([await hashOf(oldest), await hashOf(middle), await hashOf(newest)], [sha256Of(large), sha256Of('middle'), sha256Of('newest')]);
  });

  test('an unhashed row whose bytes are missing is counted and logged, keeps its row, and does not hold up the rows after it', async () => {
    const lost = await insertFile({ ageHours: 5, pageId: page.id, embedded: true, bytes: null, unhashed: true });
    const readable = await insertFile({ ageHours: 1, pageId: page.id, embedded: true, bytes: 'still here', unhashed: true });

    assert.deepEqual(await sweep({ hashBackfillLimit: 1 }), { ...NOTHING_DONE, hashesBackfilled: 1, hashesMissingBytes: 1 });
    assert.deepEqual(await rowIds(), new Set([lost, readable]));
    assert.equal(await hashOf(lost), null);
    assert.equal(await hashOf(readable), sha256Of('still here'));
    const warnings = logLines.filter((line) => line.level === 40);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.fileId, lost);
    assert.equal(warnings[0]!.code, 'ENOENT');
    assert.doesNotMatch(JSON.stringify(warnings[0]), new RegExp(dataDir.replaceAll('\\', '\\\\')), 'no server paths in the log line');

    // Still missing on the next run: reported again, nothing else changes.
    assert.deepEqual(await sweep(), { ...NOTHING_DONE, hashesMissingBytes: 1 });
    assert.deepEqual(await rowIds(), new Set([lost, readable]));
  });

  test('an old unclaimed upload a save is claiming right now is passed over, and the claim wins', async () => {
    const claimed = await insertFile({ ageHours: 30 });
    const transaction = await sequelize.transaction();
    try {
      // As the save path claims: lock the row, then set its page.
      await sequelize.query('SELECT id FROM files WHERE id = :claimed AND page_id IS NULL FOR UPDATE', { replacements: { claimed }, transaction });
      assert.deepEqual(await sweep(), NOTHING_DONE);
      await sequelize.query('UPDATE files SET page_id = :pageId, embedded = true WHERE id = :claimed', { replacements: { claimed, pageId: page.id }, transaction });
      await transaction.commit();
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    assert.deepEqual(await sweep(), NOTHING_DONE);
    assert.deepEqual(await rowIds(), new Set([claimed]));
    assert.equal(hasBytes(claimed), true);
  });

  test('while another run holds the lock, a sweep is skipped with zero counts and changes nothing', async () => {
    const old = await insertFile({ ageHours: 25 });
    const transaction = await sequelize.transaction();
    try {
      await sequelize.query('SELECT pg_advisory_xact_lock(hashtext(:key))', { replacements: { key: ORPHAN_SWEEP_LOCK_KEY }, transaction });
      assert.deepEqual(await sweep(), { ...NOTHING_DONE, skipped: true });
      assert.deepEqual(await rowIds(), new Set([old]));
    } finally {
      await transaction.rollback();
    }
    assert.deepEqual(await sweep(), { ...NOTHING_DONE, unclaimedDeleted: 1 });
  });

  test('of two sweeps started together, one runs and the other is skipped', async () => {
    // Enough to hash that the first run is still going when the second asks for the lock.
    for (let i = 0; i < 20; i += 1) await insertFile({ ageHours: 2, bytes: Buffer.alloc(256 * 1024, i), unhashed: true });
    await insertFile({ ageHours: 25 });
    const outcomes = await Promise.all([sweep(), sweep()]);
    const skipped = outcomes.filter((outcome) => outcome.skipped);
    const ran = outcomes.filter((outcome) => !outcome.skipped);
    assert.equal(skipped.length, 1);
    assert.deepEqual(skipped[0], { ...NOTHING_DONE, skipped: true });
    assert.deepEqual(ran, [{ ...NOTHING_DONE, unclaimedDeleted: 1, hashesBackfilled: 20 }]);
  });
});
