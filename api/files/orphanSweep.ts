/**
 * The nightly orphan-file sweep (spec, Limits: "Orphan-file sweep", "Integrity hash backfill"),
 * run by the worker's `orphan-file-sweep` task. The `files` row is the truth; the sweep removes
 * what no page will ever use and fills in hashes rows pre-dating hashing lack:
 *
 * - Unclaimed rows older than 24 h (an upload no save ever claimed) go, in batches; their
 *   bytes are removed after each batch's transaction committed (api/files/fileStore.ts).
 * - Stray files under `DATA_DIR/files/<2 hex>/` without a row go once their mtime is older
 *   than an hour: an upload is renamed into place just before its row commits, so a young
 *   file without a row may be one about to get it.
 * - Temporary upload files under `DATA_DIR/files/tmp/` older than 24 h go (a crashed upload).
 * - Claimed rows stay, embedded or not: a page that dropped an image may get it back by undo
 *   or by restoring a version.
 * - Up to `hashBackfillLimit` rows without `sha256` are hashed, oldest first. A row whose
 *   bytes are missing is reported, never deleted: losing bytes is for an admin to look into.
 *
 * One run at a time: the sweep holds a transaction-level advisory lock on a transaction of
 * its own for the whole run; a second run finds it taken and returns `skipped`.
 */
import { createHash } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../logger.ts';
import { removeStoredFiles, storedFilePath } from './fileStore.ts';

/** The advisory lock key of a run (`hashtext` of it), as the digest keys its own run lock. */
export const ORPHAN_SWEEP_LOCK_KEY = 'job-run:orphan-file-sweep';
export const UNCLAIMED_RETENTION_MS = 24 * 60 * 60 * 1000;
export const STRAY_FILE_GRACE_MS = 60 * 60 * 1000;
export const TEMP_FILE_RETENTION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_HASH_BACKFILL_LIMIT = 500;

/** Rows per delete transaction, and file ids per existence query. */
const BATCH_SIZE = 500;
/** Missing bytes get one warning each up to this many per run, then one summary line. */
const MISSING_BYTES_WARNINGS = 20;

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PREFIX_DIRECTORY = /^[0-9a-f]{2}$/;

export interface OrphanSweepOptions {
  dataDir: string;
  logger: Logger;
  /** The clock the ages are measured against (tests pass one); default: now. */
  now?: Date;
  /** Most rows hashed by one run; default 500. */
  hashBackfillLimit?: number;
}

export interface OrphanSweepOutcome {
  /** True when another run held the lock; every count is then zero. */
  skipped: boolean;
  unclaimedDeleted: number;
  strayFilesDeleted: number;
  staleTempFilesDeleted: number;
  hashesBackfilled: number;
  /** Unhashed rows whose bytes could not be read; they stay as they are. */
  hashesMissingBytes: number;
}

function emptyOutcome(skipped: boolean): OrphanSweepOutcome {
  return { skipped, unclaimedDeleted: 0, strayFilesDeleted: 0, staleTempFilesDeleted: 0, hashesBackfilled: 0, hashesMissingBytes: 0 };
}

/** Runs the sweep once, unless another run holds the lock. */
export async function sweepOrphanFiles(sequelize: Sequelize, options: OrphanSweepOptions): Promise<OrphanSweepOutcome> {
  const lock = await sequelize.transaction();
  try {
    const [row] = await sequelize.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext(:key)) AS locked', {
      replacements: { key: ORPHAN_SWEEP_LOCK_KEY },
      type: QueryTypes.SELECT,
      transaction: lock,
    });
    if (!row?.locked) return emptyOutcome(true);
    const now = options.now ?? new Date();
    const outcome = emptyOutcome(false);
    outcome.unclaimedDeleted = await deleteUnclaimedFiles(sequelize, options, now);
    outcome.staleTempFilesDeleted = await deleteStaleTempFiles(options, now);
    outcome.strayFilesDeleted = await deleteStrayFiles(sequelize, options, now);
    const backfill = await backfillHashes(sequelize, options);
    outcome.hashesBackfilled = backfill.hashed;
    outcome.hashesMissingBytes = backfill.missingBytes;
    return outcome;
  } finally {
    // Nothing was written in it: ending it only releases the lock.
    await lock.rollback();
  }
}

/**
 * One transaction per batch. SKIP LOCKED passes over a row a save is claiming right now, so
 * the claim wins; a claim that comes after the delete finds no row and does not claim it.
 */
async function deleteUnclaimedFiles(sequelize: Sequelize, options: OrphanSweepOptions, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - UNCLAIMED_RETENTION_MS).toISOString();
  let deleted = 0;
  for (;;) {
    const ids = await sequelize.transaction(async (transaction) => {
      const rows = await sequelize.query<{ id: string }>(
        `DELETE FROM files
          WHERE id IN (SELECT id FROM files
                        WHERE page_id IS NULL AND created_at < CAST(:cutoff AS timestamptz)
                        ORDER BY created_at
                        LIMIT :batch
                          FOR UPDATE SKIP LOCKED)
         RETURNING id::text AS id`,
        { replacements: { cutoff, batch: BATCH_SIZE }, type: QueryTypes.SELECT, transaction },
      );
      return rows.map((row) => row.id);
    });
    await removeStoredFiles(options.dataDir, ids, options.logger);
    deleted += ids.length;
    if (ids.length < BATCH_SIZE) return deleted;
  }
}

function filesDirectory(dataDir: string): string {
  return path.join(dataDir, 'files');
}

/** The entries of a directory; none when it does not exist (nothing was ever uploaded). */
async function entriesOf(directory: string): Promise<Dirent[]> {
  try {
    return await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Whether the file's last write is before `cutoff`; false when it is gone meanwhile. */
async function modifiedBefore(filePath: string, cutoff: number): Promise<boolean> {
  try {
    return (await lstat(filePath)).mtimeMs < cutoff;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Removes one file; a failure is logged (the next run tries again), not thrown. */
async function removeFile(filePath: string, logger: Logger, context: Record<string, string>): Promise<boolean> {
  try {
    await rm(filePath, { force: true });
    return true;
  } catch (error) {
    logger.warn({ ...context, err: error }, 'orphan sweep could not remove a file; the next run retries');
    return false;
  }
}

async function deleteStaleTempFiles(options: OrphanSweepOptions, now: Date): Promise<number> {
  const directory = path.join(filesDirectory(options.dataDir), 'tmp');
  const cutoff = now.getTime() - TEMP_FILE_RETENTION_MS;
  let deleted = 0;
  for (const entry of await entriesOf(directory)) {
    if (!entry.isFile()) continue;
    const filePath = path.join(directory, entry.name);
    if (!(await modifiedBefore(filePath, cutoff))) continue;
    if (await removeFile(filePath, options.logger, { tempFile: entry.name })) deleted += 1;
  }
  return deleted;
}

/** The file ids stored on disk, one prefix directory at a time; names of any other shape are left alone. */
async function* storedFileIds(dataDir: string): AsyncGenerator<string> {
  const root = filesDirectory(dataDir);
  for (const prefix of await entriesOf(root)) {
    if (!prefix.isDirectory() || !PREFIX_DIRECTORY.test(prefix.name)) continue;
    for (const entry of await entriesOf(path.join(root, prefix.name))) {
      if (entry.isFile() && FILE_ID.test(entry.name) && entry.name.startsWith(prefix.name)) yield entry.name;
    }
  }
}

async function deleteStrayFiles(sequelize: Sequelize, options: OrphanSweepOptions, now: Date): Promise<number> {
  const cutoff = now.getTime() - STRAY_FILE_GRACE_MS;
  let deleted = 0;
  const sweepBatch = async (ids: string[]) => {
    const rows = await sequelize.query<{ id: string }>('SELECT id::text AS id FROM files WHERE id = ANY(CAST(ARRAY[:ids] AS uuid[]))', {
      replacements: { ids },
      type: QueryTypes.SELECT,
    });
    const known = new Set(rows.map((row) => row.id));
    for (const id of ids) {
      if (known.has(id)) continue;
      // Checked after the row lookup: an upload that commits meanwhile was renamed into place moments ago, so it is young.
      const filePath = storedFilePath(options.dataDir, id);
      if (!(await modifiedBefore(filePath, cutoff))) continue;
      if (await removeFile(filePath, options.logger, { fileId: id })) deleted += 1;
    }
  };
  let batch: string[] = [];
  for await (const id of storedFileIds(options.dataDir)) {
    batch.push(id);
    if (batch.length < BATCH_SIZE) continue;
    await sweepBatch(batch);
    batch = [];
  }
  if (batch.length > 0) await sweepBatch(batch);
  return deleted;
}

/** The SHA-256 of the stored bytes, streamed; the error code when they cannot be read. */
async function hashStoredFile(dataDir: string, fileId: string): Promise<{ sha256: string } | { errorCode: string }> {
  const hash = createHash('sha256');
  try {
    await pipeline(createReadStream(storedFilePath(dataDir, fileId)), hash);
  } catch (error) {
    return { errorCode: (error as NodeJS.ErrnoException).code ?? 'unknown' };
  }
  return { sha256: hash.digest('hex') };
}

interface UnhashedRow {
  id: string;
  createdAt: string;
}

/**
 * Hashes at most `hashBackfillLimit` unhashed rows, oldest first. Rows whose bytes are missing
 * do not count against the limit and the scan goes on past them: they keep their null hash, so
 * counting them would let a few hundred lost files block the backfill for good.
 */
async function backfillHashes(sequelize: Sequelize, options: OrphanSweepOptions): Promise<{ hashed: number; missingBytes: number }> {
  const limit = options.hashBackfillLimit ?? DEFAULT_HASH_BACKFILL_LIMIT;
  let hashed = 0;
  let missingBytes = 0;
  // The keyset's time as Postgres wrote it: a JS Date would drop the microseconds and read the last row again.
  let after: UnhashedRow | null = null;
  while (hashed < limit) {
    const rows: UnhashedRow[] = await sequelize.query<UnhashedRow>(
      `SELECT id::text AS id, created_at::text AS "createdAt" FROM files
        WHERE sha256 IS NULL AND (CAST(:afterTime AS timestamptz) IS NULL OR (created_at, id) > (CAST(:afterTime AS timestamptz), CAST(:afterId AS uuid)))
        ORDER BY created_at, id
        LIMIT :batch`,
      { replacements: { afterTime: after?.createdAt ?? null, afterId: after?.id ?? null, batch: limit - hashed }, type: QueryTypes.SELECT },
    );
    for (const row of rows) {
      const result = await hashStoredFile(options.dataDir, row.id);
      if ('sha256' in result) {
        hashed += await recordHash(sequelize, row.id, result.sha256);
        continue;
      }
      // A row deleted since the select (a purge) has no bytes by design: not worth a warning.
      if (!(await fileRowExists(sequelize, row.id))) continue;
      missingBytes += 1;
      if (missingBytes <= MISSING_BYTES_WARNINGS) options.logger.warn({ fileId: row.id, code: result.errorCode }, 'attachment bytes missing: its hash cannot be backfilled');
    }
    const last = rows.at(-1);
    if (!last) break;
    after = last;
  }
  if (missingBytes > MISSING_BYTES_WARNINGS) options.logger.warn({ missingBytes }, 'more attachments have missing bytes than were listed one by one');
  return { hashed, missingBytes };
}

/** 1 when the hash was written; 0 when the row is gone or got its hash meanwhile. */
async function recordHash(sequelize: Sequelize, fileId: string, sha256: string): Promise<number> {
  const rows = await sequelize.query<{ id: string }>('UPDATE files SET sha256 = $1 WHERE id = $2 AND sha256 IS NULL RETURNING id', {
    bind: [sha256, fileId],
    type: QueryTypes.SELECT,
  });
  return rows.length;
}

async function fileRowExists(sequelize: Sequelize, fileId: string): Promise<boolean> {
  const rows = await sequelize.query('SELECT 1 FROM files WHERE id = :fileId', { replacements: { fileId }, type: QueryTypes.SELECT });
  return rows.length > 0;
}
