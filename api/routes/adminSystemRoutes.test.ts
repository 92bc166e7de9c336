/**
 * `GET /admin/system` and `GET /admin/overview`: Site Admins only (401 anonymous, 403 for
 * others). Every maintenance job is listed in MAINTENANCE_JOB_TASKS' order with the body's
 * exact fields; a job not built yet is `unavailable`; `nextRunAt` is its crontab line's next
 * fire time. A manual run done by a real worker shows its start and duration, with the status
 * `running` while the run-mutex holds it (a second trigger then is 409); a failing run (in a
 * real worker, and through the wrapper directly) is recorded as failed with its error code
 * and no message, and thrown on for Graphile's retry; the largest ponds come by stored
 * bytes with their file counts, at most ten; the overview counts accounts by status, live
 * ponds and pages, and the stored bytes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { QueryTypes } from 'sequelize';
import { startWorker, type RunningWorker } from '../../jobs/worker.ts';
import { recordingRuns } from '../../jobs/maintenanceRunRecords.ts';
import { MAINTENANCE_JOB_TASKS } from '../commands/maintenanceJobRuns.ts';
import { Mailer } from '../mail/mailer.ts';
import { User } from '../models/index.ts';
import { seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { assertError } from '../testing/pondTestSetup.ts';
import { waitFor } from '../testing/polling.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

interface JobView {
  name: string;
  lastRunAt: string | null;
  lastDurationMs: number | null;
  lastOutcome: string | null;
  status: string;
  nextRunAt: string | null;
}

interface RunRecord {
  task: string;
  trigger: string;
  outcome: string;
  errorCode: string | null;
  durationMs: number;
}

const HOUR = 3_600_000;
const silent = pino({ level: 'silent' });

describe('the system panel', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await User.findOne({ where: { username: 'admin' }, rejectOnEmpty: true })).id;
  });
  after(() => instance.close());

  const panel = async () => {
    const response = await admin.get('/admin/system');
    assert.equal(response.status, 200, response.text);
    return response.body as { jobs: JobView[]; largestPonds: { id: string; slug: string; name: string; bytes: number; files: number }[] };
  };
  const jobOf = async (name: string) => (await panel()).jobs.find((job) => job.name === name)!;
  const records = (task: string) =>
    instance.services.sequelize.query<RunRecord>(
      `SELECT task, trigger, outcome, error_code AS "errorCode", duration_ms AS "durationMs" FROM maintenance_job_runs WHERE task = :task ORDER BY id`,
      { replacements: { task }, type: QueryTypes.SELECT },
    );
  async function withWorker(work: () => Promise<unknown>): Promise<void> {
    const { config, sequelize } = instance.services;
    let worker: RunningWorker | null = null;
    try {
      worker = await startWorker({ databaseUrl: config.databaseUrl!, sequelize, dataDir: config.dataDir, logger: silent, mailer: new Mailer({ fallback: config.smtpFallback, logger: silent }), baseUrl: config.baseUrl, sessionSecret: config.sessionSecret });
      await work();
    } finally {
      await worker?.stop();
    }
  }
  const queuedJobs = async () => Number((await instance.services.sequelize.query<{ count: string }>('SELECT count(*) AS count FROM graphile_worker._private_jobs', { type: QueryTypes.SELECT }))[0]!.count);

  test('Site Admins only: 401 without a session, 403 for a signed-in user', async () => {
    const { client } = await createVerifiedUser(instance);
    for (const path of ['/admin/system', '/admin/overview']) {
      assertError(await new TestClient(instance.baseUrl).get(path), 401, 'unauthenticated');
      assertError(await client.get(path), 403, 'forbidden');
    }
  });

  test('every job in order with exactly its fields; jobs not built yet are unavailable; nextRunAt from the crontab', async () => {
    const before = Date.now();
    const body = await panel();
    const after = Date.now();
    assert.deepEqual(Object.keys(body).sort(), ['jobs', 'largestPonds']);
    assert.deepEqual(body.jobs.map((job) => job.name), Object.keys(MAINTENANCE_JOB_TASKS));
    for (const job of body.jobs) assert.deepEqual(Object.keys(job).sort(), ['lastDurationMs', 'lastOutcome', 'lastRunAt', 'name', 'nextRunAt', 'status'], job.name);
    for (const name of ['conversion-payload-prune', 'data-export-purge']) {
      assert.deepEqual(body.jobs.find((job) => job.name === name), { name, lastRunAt: null, lastDurationMs: null, lastOutcome: null, status: 'unavailable', nextRunAt: null });
    }
    const byName = new Map(body.jobs.map((job) => [job.name, job]));
    // Hourly at :00: the next full hour after the request.
    const nextFullHour = (at: number) => Math.floor(at / HOUR) * HOUR + HOUR;
    assert.ok([nextFullHour(before), nextFullHour(after)].includes(Date.parse(byName.get('trash-purge')!.nextRunAt!)));
    // Daily at 02:30 UTC: within the next day, at 02:30.
    const sweep = new Date(byName.get('orphan-file-sweep')!.nextRunAt!);
    assert.deepEqual([sweep.getUTCHours(), sweep.getUTCMinutes()], [2, 30]);
    assert.ok(sweep.getTime() > before && sweep.getTime() <= after + 24 * HOUR);
    // Every 15 minutes.
    const digest = Date.parse(byName.get('notification-digest')!.nextRunAt!);
    assert.ok(digest > before && digest <= after + 15 * 60_000 && new Date(digest).getUTCMinutes() % 15 === 0);
    assert.equal(new Date(byName.get('update-log-compaction')!.nextRunAt!).getUTCMinutes(), 20);
    for (const job of body.jobs.filter((entry) => entry.status !== 'unavailable')) {
      assert.equal(job.status, 'idle', job.name);
      assert.equal(job.lastRunAt, null, `${job.name}: no run yet`);
    }
  });

  test('a manual run: running while queued (a second trigger is 409), then its start and duration once a worker did it', async () => {
    await instance.services.sequelize.query('DELETE FROM graphile_worker._private_jobs');
    const triggered = Date.now();
    assert.equal((await admin.post('/admin/system/jobs/trash-purge/run')).status, 202);
    assert.equal((await jobOf('trash-purge')).status, 'running');
    assertError(await admin.post('/admin/system/jobs/trash-purge/run'), 409, 'job_already_running');
    assert.equal((await jobOf('version-thinning')).status, 'idle', 'other jobs are not held');

    await withWorker(() => waitFor(async () => ((await records('trash-purge')).length > 0 && (await queuedJobs()) === 0 ? true : undefined), 20_000, 'the run to finish'));
    const [record] = await records('trash-purge');
    assert.deepEqual({ trigger: record!.trigger, outcome: record!.outcome, errorCode: record!.errorCode }, { trigger: 'manual', outcome: 'succeeded', errorCode: null });
    const job = await jobOf('trash-purge');
    assert.equal(job.status, 'idle');
    assert.ok(job.lastRunAt && Date.parse(job.lastRunAt) >= triggered - 1_000 && Date.parse(job.lastRunAt) <= Date.now(), `lastRunAt ${job.lastRunAt}`);
    assert.equal(job.lastDurationMs, record!.durationMs);
    assert.equal(job.lastOutcome, 'succeeded');
    assert.ok(Number.isInteger(job.lastDurationMs) && job.lastDurationMs! >= 0);
  });

  test('a run that fails in a real worker is recorded as failed with the SQLSTATE, and stays queued for its retry', async () => {
    await instance.services.sequelize.query('DELETE FROM graphile_worker._private_jobs');
    assert.equal((await admin.post('/admin/system/jobs/search-lexicon/run')).status, 202);
    // The task's table gone for the moment: its query fails with 42P01 (undefined table).
    await instance.services.sequelize.query('ALTER TABLE search_lexemes RENAME TO search_lexemes_away');
    try {
      await withWorker(() => waitFor(async () => ((await records('search-lexicon-refresh')).length > 0 ? true : undefined), 20_000, 'the failed run'));
    } finally {
      await instance.services.sequelize.query('ALTER TABLE search_lexemes_away RENAME TO search_lexemes');
    }
    const [record] = await records('search-lexicon-refresh');
    assert.deepEqual({ trigger: record!.trigger, outcome: record!.outcome, errorCode: record!.errorCode }, { trigger: 'manual', outcome: 'failed', errorCode: '42P01' });
    const [job] = await instance.services.sequelize.query<{ attempts: number; lastError: string }>(
      `SELECT attempts, last_error AS "lastError" FROM graphile_worker._private_jobs jobs JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id WHERE tasks.identifier = 'search-lexicon-refresh'`,
      { type: QueryTypes.SELECT },
    );
    assert.equal(job?.attempts, 1, 'Graphile saw the failure and keeps the job for a retry');
    const view = await jobOf('search-lexicon');
    assert.ok(view.lastRunAt && Date.now() - Date.parse(view.lastRunAt) < 20_000);
    assert.equal(view.lastDurationMs, record!.durationMs);
    assert.equal(view.lastOutcome, 'failed', 'the panel says the last run failed');
    await instance.services.sequelize.query('DELETE FROM graphile_worker._private_jobs');
  });

  test('a failing run is recorded as failed with its code, never its message, and thrown on for the retry; it is the last run', async () => {
    const failing = recordingRuns(
      'version-thinning',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        throw Object.assign(new Error('could not reach postgres://secret@db.internal/dorfteich'), { code: 'ECONNREFUSED' });
      },
      instance.services.sequelize,
      silent,
    );
    const helpers = { logger: silent } as unknown as Parameters<typeof failing>[1];
    await assert.rejects(async () => failing({ _cron: { ts: new Date().toISOString(), backfilled: false } }, helpers), /could not reach/);
    const noCode = recordingRuns('version-thinning', async () => { throw new Error('/var/lib/dorfteich/files/secret.pdf: permission denied'); }, instance.services.sequelize, silent);
    await assert.rejects(async () => noCode({}, helpers));
    const rows = await records('version-thinning');
    assert.deepEqual(rows.map((row) => [row.trigger, row.outcome, row.errorCode]), [['scheduled', 'failed', 'ECONNREFUSED'], ['manual', 'failed', 'Error']]);
    assert.ok(rows[0]!.durationMs >= 25, `duration ${rows[0]!.durationMs}`);
    const stored = JSON.stringify(await instance.services.sequelize.query('SELECT * FROM maintenance_job_runs', { type: QueryTypes.SELECT }));
    assert.ok(!stored.includes('secret'), 'no message is stored');
    const job = await jobOf('version-thinning');
    assert.ok(job.lastRunAt && Date.now() - Date.parse(job.lastRunAt) < 10_000);
    assert.equal(job.lastDurationMs, rows[1]!.durationMs, 'the newest run');
  });

  test('largest ponds: by stored bytes, with file counts, ten at most; ponds without files are left out', async () => {
    const addFiles = (pondId: string, sizes: number[]) =>
      Promise.all(sizes.map((size) => instance.services.sequelize.query(`INSERT INTO files (pond_id, extension, content_type, size_bytes) VALUES (:pondId, 'png', 'image/png', :size)`, { replacements: { pondId, size } })));
    const small = await seedSharedPond(adminId, 'Small pond');
    const big = await seedSharedPond(adminId, 'Big pond');
    const empty = await seedSharedPond(adminId, 'Empty pond');
    await addFiles(small.id, [100, 200, 300]);
    await addFiles(big.id, [5_000_000_000]);
    let list = (await panel()).largestPonds;
    assert.deepEqual(list, [
      { id: big.id, slug: big.slug, name: 'Big pond', bytes: 5_000_000_000, files: 1 },
      { id: small.id, slug: small.slug, name: 'Small pond', bytes: 600, files: 3 },
    ]);
    assert.ok(!list.some((pond) => pond.id === empty.id));
    for (let index = 0; index < 10; index += 1) await addFiles((await seedSharedPond(adminId, `Mid pond ${index}`)).id, [1_000 + index]);
    list = (await panel()).largestPonds;
    assert.equal(list.length, 10);
    assert.deepEqual(list.slice(0, 3).map((pond) => pond.bytes), [5_000_000_000, 1_009, 1_008]);
    assert.ok(!list.some((pond) => pond.id === small.id), 'the smallest falls off');
  });

  test('overview: accounts by status, live ponds and pages, stored bytes', async () => {
    const before = (await admin.get('/admin/overview')).body;
    assert.deepEqual(Object.keys(before).sort(), ['pages', 'ponds', 'storage', 'users']);
    await User.create({ username: 'overview-off', email: 'overview-off@example.org', displayName: 'Off', locale: null, status: 'disabled', passwordHash: null });
    const pond = await seedSharedPond(adminId, 'Overview pond');
    await seedPage(pond.id, 'Counted');
    await seedPage(pond.id, 'Trashed', { trashed: true });
    await instance.services.sequelize.query(`INSERT INTO files (pond_id, extension, content_type, size_bytes) VALUES (:pondId, 'png', 'image/png', 1234)`, { replacements: { pondId: pond.id } });
    const response = await admin.get('/admin/overview');
    assert.equal(response.status, 200);
    const now = response.body;
    assert.equal(now.users.disabled, before.users.disabled + 1);
    assert.equal(now.users.ACTIVE, before.users.ACTIVE);
    assert.ok(now.users.ACTIVE >= 1);
    assert.equal(now.ponds, before.ponds + 1);
    assert.equal(now.pages, before.pages + 1, 'the trashed page is not counted');
    assert.deepEqual(now.storage, { bytes: before.storage.bytes + 1234, files: before.storage.files + 1 });
  });
});
