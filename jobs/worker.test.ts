/**
 * The worker: its crontab names only tasks it has and runs the trash purge and the log
 * compaction hourly, the version thinning and the orphan-file sweep daily; the real Graphile runner against a real
 * database schedules the crontab, runs an enqueued purge that honours `trash.retentionDays`
 * and the enqueued maintenance jobs; the process exits non-zero without a database (so the
 * supervisor restarts it) and zero on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { addJobAdhoc, parseCrontab } from 'graphile-worker';
import { QueryTypes, type Sequelize } from 'sequelize';
import * as Y from 'yjs';
import { createSequelize } from '../api/db/database.ts';
import { appendUpdates, transactionClient } from '../api/documents/documentLog.ts';
import { queueCompactionAfterSession } from '../api/documents/logCompaction.ts';
import { storedFilePath } from '../api/files/fileStore.ts';
import { createLogger } from '../api/logger.ts';
import { Mailer } from '../api/mail/mailer.ts';
import { initModels, User, type Page } from '../api/models/index.ts';
import { setSetting } from '../api/settings/instanceSettings.ts';
import { seedPage, seedSharedPond } from '../api/testing/accessFixtures.ts';
import { freePort } from '../api/testing/freePort.ts';
import { waitFor } from '../api/testing/polling.ts';
import { createTestDatabase } from '../api/testing/testDatabase.ts';
import { CRONTAB } from './crontab.ts';
import { MAINTENANCE_JOB_TASKS } from '../api/commands/maintenanceJobRuns.ts';
import { createTaskList, LOG_COMPACTION, NOTIFICATION_DIGEST, ORPHAN_FILE_SWEEP, PAGE_LOG_COMPACTION_JOB, SEARCH_LEXICON_REFRESH, TRASH_PURGE, VERSION_THINNING } from './taskList.ts';
import { graphileLoggerFor, startWorker, type RunningWorker } from './worker.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const logger = createLogger(process.env.DT_TEST_LOG_LEVEL ?? 'silent', 'worker');
const mail = { mailer: new Mailer({ fallback: null, logger }), baseUrl: 'http://127.0.0.1:3000', sessionSecret: 'worker-test-session-secret-0123456789abcdef' };

/** Jobs run in the worker's own time: poll the database or its output for a while. */
const JOB_PATIENCE_MS = 20_000;

describe('worker', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let sequelize: Sequelize;
  let worker: RunningWorker;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-worker-data-'));
  /** Finished jobs by id, with the error they ended with (null: success). */
  const finished = new Map<string, unknown>();

  before(async () => {
    database = await createTestDatabase();
    sequelize = createSequelize(database.url, { poolMax: 4 });
    initModels(sequelize);
    worker = await startWorker({ databaseUrl: database.url, sequelize, dataDir, logger, ...mail });
    worker.runner.events.on('job:complete', ({ job, error }) => finished.set(String(job.id), error ?? null));
  });
  after(async () => {
    await worker?.stop();
    await sequelize?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Enqueues a job as another process would (its own connection) and waits for the runner to finish it. */
  async function runJob(task: string, payload: object = {}): Promise<void> {
    const job = await addJobAdhoc({ connectionString: database.url, logger: graphileLoggerFor(logger) }, task, payload);
    // Compared as text: this process parses bigints (job ids) as numbers outside the worker's pool.
    await jobFinished(String(job.id), task);
  }

  /** Waits for the runner to finish the job; fails when the job ended with an error. */
  async function jobFinished(jobId: string, task: string): Promise<void> {
    const outcome = await waitFor(() => (finished.has(jobId) ? { error: finished.get(jobId) } : undefined), JOB_PATIENCE_MS, `job ${jobId}`, { intervalMs: 50 });
    assert.equal(outcome.error, null, `the ${task} job failed: ${String(outcome.error)}`);
  }
  const runPurge = () => runJob(TRASH_PURGE);

  async function trashedDaysAgo(page: Page, days: number): Promise<void> {
    await sequelize.query(`UPDATE pages SET trashed_at = now() - make_interval(days => :days) WHERE id = :id`, { replacements: { days, id: page.id } });
  }

  async function existing(pages: Page[]): Promise<Set<string>> {
    const rows = await sequelize.query<{ id: string }>('SELECT id FROM pages WHERE id IN (:ids)', {
      replacements: { ids: pages.map((page) => page.id) },
      type: QueryTypes.SELECT,
    });
    return new Set(rows.map((row) => row.id));
  }

  test('the crontab parses, names only tasks the worker has, runs the purge and the compaction hourly, the thinning, the lexicon refresh and the orphan-file sweep daily, the digest every 15 minutes', () => {
    const items = parseCrontab(CRONTAB);
    const tasks = Object.keys(createTaskList({ sequelize, dataDir, logger, ...mail }));
    assert.ok(items.length > 0);
    for (const item of items) assert.ok(tasks.includes(item.task), `crontab names unknown task ${item.task}`);

    const purge = items.find((item) => item.task === TRASH_PURGE);
    assert.ok(purge, 'the trash purge is scheduled');
    assert.equal(purge.match({ min: 0, hour: 13, date: 9, month: 5, dow: 2 }), true);
    assert.equal(purge.match({ min: 30, hour: 13, date: 9, month: 5, dow: 2 }), false);

    const compaction = items.find((item) => item.task === LOG_COMPACTION);
    assert.ok(compaction, 'the log compaction is scheduled');
    assert.equal(compaction.match({ min: 20, hour: 13, date: 9, month: 5, dow: 2 }), true);
    assert.equal(compaction.match({ min: 20, hour: 14, date: 9, month: 5, dow: 2 }), true, 'hourly');
    const thinning = items.find((item) => item.task === VERSION_THINNING);
    assert.ok(thinning, 'the version thinning is scheduled');
    const thinningSlots = Array.from({ length: 24 * 60 }, (_, minute) => ({ min: minute % 60, hour: Math.floor(minute / 60), date: 9, month: 5, dow: 2 })).filter((slot) => thinning.match(slot));
    assert.equal(thinningSlots.length, 1, 'once a day');
    const lexicon = items.find((item) => item.task === SEARCH_LEXICON_REFRESH);
    assert.ok(lexicon, 'the search lexicon refresh is scheduled');
    const lexiconSlots = Array.from({ length: 24 * 60 }, (_, minute) => ({ min: minute % 60, hour: Math.floor(minute / 60), date: 9, month: 5, dow: 2 })).filter((slot) => lexicon.match(slot));
    assert.equal(lexiconSlots.length, 1, 'once a day');
    const sweep = items.find((item) => item.task === ORPHAN_FILE_SWEEP);
    assert.ok(sweep, 'the orphan-file sweep is scheduled');
    const sweepSlots = Array.from({ length: 24 * 60 }, (_, minute) => ({ min: minute % 60, hour: Math.floor(minute / 60), date: 9, month: 5, dow: 2 })).filter((slot) => sweep.match(slot));
    assert.equal(sweepSlots.length, 1, 'once a day');
    const digest = items.find((item) => item.task === NOTIFICATION_DIGEST);
    assert.ok(digest, 'the notification digest is scheduled');
    const digestSlots = Array.from({ length: 60 }, (_, minute) => ({ min: minute, hour: 13, date: 9, month: 5, dow: 2 })).filter((slot) => digest.match(slot));
    assert.deepEqual(digestSlots.map((slot) => slot.min), [0, 15, 30, 45], 'every 15 minutes');
    for (const line of CRONTAB.split('\n')) {
      const task = line.split(' ')[5];
      assert.match(line, new RegExp(`[?&]jobKey=${task}(&|$)`), `${task} keeps one pending job`);
    }
  });

  test('the runner schedules the crontab in the database', async () => {
    const identifiers = await waitFor(async () => {
      const rows = await sequelize.query<{ identifier: string }>('SELECT identifier FROM graphile_worker._private_known_crontabs', { type: QueryTypes.SELECT });
      return rows.length > 0 ? rows.map((row) => row.identifier) : undefined;
    }, JOB_PATIENCE_MS, 'the crontab to be registered', { intervalMs: 50 });
    assert.deepEqual(identifiers.sort(), [LOG_COMPACTION, NOTIFICATION_DIGEST, ORPHAN_FILE_SWEEP, SEARCH_LEXICON_REFRESH, TRASH_PURGE, VERSION_THINNING].sort());
  });

  test('every maintenance job an admin can run names a task of the worker and the job key of its crontab line', () => {
    const tasks = Object.keys(createTaskList({ sequelize, dataDir, logger, ...mail }));
    const items = parseCrontab(CRONTAB);
    for (const [name, task] of Object.entries(MAINTENANCE_JOB_TASKS)) {
      if (task === null) continue;
      assert.ok(tasks.includes(task), `${name} runs the unknown task ${task}`);
      const line = items.find((item) => item.task === task);
      assert.ok(line, `${name} has a crontab line`);
      // The manual trigger enqueues under the task identifier as job key (api/commands/maintenanceJobRuns.ts).
      assert.equal(line.options.jobKey, task, `${name}: the crontab line's job key is its task`);
    }
  });

  test('a purge job removes pages trashed longer than the retention and keeps the rest', async () => {
    const owner = await User.create({ username: 'keeper', email: 'keeper@example.org', displayName: 'Keeper', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    const pond = await seedSharedPond(owner.id);
    const live = await seedPage(pond.id, 'Live');
    const monthOld = await seedPage(pond.id, 'Trashed 31 days ago', { trashed: true });
    const twoDaysOld = await seedPage(pond.id, 'Trashed 2 days ago', { trashed: true });
    const dayOld = await seedPage(pond.id, 'Trashed 1 day ago', { trashed: true });
    const fresh = await seedPage(pond.id, 'Trashed just now', { trashed: true });
    await trashedDaysAgo(monthOld, 31);
    await trashedDaysAgo(twoDaysOld, 2);
    await trashedDaysAgo(dayOld, 1);

    // The default retention is 30 days.
    await runPurge();
    assert.deepEqual(await existing([live, monthOld, twoDaysOld, dayOld, fresh]), new Set([live.id, twoDaysOld.id, dayOld.id, fresh.id]));

    await sequelize.transaction((transaction) => setSetting('trash.retentionDays', 1, { actorId: null, transaction }));
    await runPurge();
    const left = await existing([live, twoDaysOld, fresh]);
    assert.deepEqual(left, new Set([live.id, fresh.id]), 'a retention of 1 day purges the page trashed 2 days ago');
  });

  test('enqueued maintenance jobs thin old automatic versions and compact idle update logs', async () => {
    const owner = await User.create({ username: 'maintainer', email: 'maintainer@example.org', displayName: 'Maintainer', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    const pond = await seedSharedPond(owner.id);
    const page = await seedPage(pond.id, 'Maintained');
    const state = Buffer.from(Y.encodeStateAsUpdate(new Y.Doc()));
    const insertVersion = (createdAt: string) =>
      sequelize.query<{ id: string }>(`INSERT INTO page_versions (page_id, trigger, state, created_at) VALUES (:pageId, 'auto', :state, :createdAt) RETURNING id`, {
        replacements: { pageId: page.id, state, createdAt },
        type: QueryTypes.SELECT,
      });
    await insertVersion('2020-03-01T08:00:00Z');
    const [newest] = await insertVersion('2020-03-01T20:00:00Z');
    await runJob(VERSION_THINNING);
    const versions = await sequelize.query<{ id: string }>(`SELECT id FROM page_versions WHERE page_id = :pageId`, { replacements: { pageId: page.id }, type: QueryTypes.SELECT });
    assert.deepEqual(versions, [{ id: newest!.id }]);

    // 501 rows of someone typing; no session.
    const ydoc = new Y.Doc();
    const updates: Uint8Array[] = [];
    ydoc.on('update', (update: Uint8Array) => updates.push(update));
    const text = ydoc.getText('typed');
    for (let i = 0; i < 501; i += 1) text.insert(i, 'x');
    await sequelize.transaction((transaction) => appendUpdates(transactionClient(transaction), updates.map((update) => ({ pageId: page.id, update }))));
    await runJob(LOG_COMPACTION);
    const rows = await sequelize.query<{ update: Buffer }>(`SELECT update FROM page_updates WHERE page_id = :pageId`, { replacements: { pageId: page.id }, type: QueryTypes.SELECT });
    assert.equal(rows.length, 1);
    const merged = new Y.Doc();
    Y.applyUpdate(merged, rows[0]!.update);
    assert.equal(merged.getText('typed').toString(), 'x'.repeat(501));
  });

  test('an enqueued orphan-file sweep deletes an unclaimed upload older than 24 h, row and bytes', async () => {
    const owner = await User.create({ username: 'sweeper', email: 'sweeper@example.org', displayName: 'Sweeper', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    const pond = await seedSharedPond(owner.id);
    const [file] = await sequelize.query<{ id: string }>(
      `INSERT INTO files (pond_id, extension, content_type, size_bytes, created_at) VALUES (:pondId, 'txt', 'text/plain', 5, now() - interval '25 hours') RETURNING id`,
      { replacements: { pondId: pond.id }, type: QueryTypes.SELECT },
    );
    const bytesPath = storedFilePath(dataDir, file!.id);
    mkdirSync(path.dirname(bytesPath), { recursive: true });
    writeFileSync(bytesPath, 'bytes');
    await runJob(ORPHAN_FILE_SWEEP);
    const rows = await sequelize.query('SELECT id FROM files WHERE id = :id', { replacements: { id: file!.id }, type: QueryTypes.SELECT });
    assert.deepEqual(rows, []);
    assert.equal(existsSync(bytesPath), false);
  });

  test('the job the collaboration server queues when a page\'s last participant left merges that page\'s log of 60 rows', async () => {
    const owner = await User.create({ username: 'leaver', email: 'leaver@example.org', displayName: 'Leaver', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    const pond = await seedSharedPond(owner.id);
    const page = await seedPage(pond.id, 'Left');
    const ydoc = new Y.Doc();
    const updates: Uint8Array[] = [];
    ydoc.on('update', (update: Uint8Array) => updates.push(update));
    for (let i = 0; i < 60; i += 1) ydoc.getText('typed').insert(i, 'y');
    await sequelize.transaction((transaction) => appendUpdates(transactionClient(transaction), updates.map((update) => ({ pageId: page.id, update }))));
    // Queued as the collaboration server queues it, without its wait.
    const jobId = await sequelize.transaction((transaction) => queueCompactionAfterSession(transactionClient(transaction), page.id, 0));
    await jobFinished(jobId, PAGE_LOG_COMPACTION_JOB);
    const rows = await sequelize.query<{ update: Buffer }>(`SELECT update FROM page_updates WHERE page_id = :pageId`, { replacements: { pageId: page.id }, type: QueryTypes.SELECT });
    assert.equal(rows.length, 1);
    const merged = new Y.Doc();
    Y.applyUpdate(merged, rows[0]!.update);
    assert.equal(merged.getText('typed').toString(), 'y'.repeat(60));
  });

  test('a page-log-compaction job without a readable page id ends at once, without an error to retry', async () => {
    // Finishing without an error: no retry for a payload that will never be readable.
    await runJob(PAGE_LOG_COMPACTION_JOB, { pageId: 'not-a-page' });
  });
});

describe('worker process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-worker-process-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  function startProcess(databaseUrl: string, logLevel = 'silent') {
    return spawn(process.execPath, [path.join(root, 'jobs/worker.ts')], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: logLevel, SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  }

  function exitOf(child: ReturnType<typeof startProcess>): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  test('exits non-zero when the database is unreachable at start, so the supervisor restarts it', { timeout: 30_000 }, async () => {
    const child = startProcess(`postgres://postgres@127.0.0.1:${await freePort()}/nowhere`);
    const { code } = await exitOf(child);
    assert.equal(code, 1);
  });

  test('stops cleanly on SIGTERM', { timeout: 60_000 }, async () => {
    const database = await createTestDatabase();
    try {
      const child = startProcess(database.url, 'info');
      const exited = exitOf(child);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await waitFor(() => output.includes('"msg":"worker running"'), 30_000, 'the worker to start', { intervalMs: 50 });
      child.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 0, signal: null });
    } finally {
      await database.drop();
    }
  });
});
