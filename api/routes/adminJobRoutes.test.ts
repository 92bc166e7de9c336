/**
 * `POST /admin/system/jobs/:name/run`: Site Admins only (401 anonymous, 403 for others), 404
 * `job_not_found` for unknown names and jobs not built yet, 202 `{ name, jobId }` with the job
 * queued under its crontab line's key and the trigger audited, 409 `job_already_running` while
 * a run is under way or waiting to start (the run-mutex), and a job waiting for a retry pulled
 * forward instead of doubled. With a real worker and a real SMTP server, a manual digest run
 * mails only the users its cadence makes due.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { MAINTENANCE_JOB_TASKS } from '../commands/maintenanceJobRuns.ts';
import { AuditEntry, User } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { startMailRelay } from '../testing/mailRelay.ts';
import { assertError } from '../testing/pondTestSetup.ts';
import { waitFor } from '../testing/polling.ts';
import { mailParts } from '../testing/smtpTestServer.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

interface QueuedJob {
  id: string;
  task: string;
  key: string | null;
  runAt: Date;
  lockedAt: Date | null;
}

describe('manual maintenance job runs', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await User.findOne({ where: { username: 'admin' }, rejectOnEmpty: true })).id;
  });
  beforeEach(async () => {
    await instance.services.sequelize.query('DELETE FROM graphile_worker._private_jobs');
  });
  after(() => instance.close());

  const run = (client: TestClient, name: string) => client.post(`/admin/system/jobs/${encodeURIComponent(name)}/run`);

  async function queued(): Promise<QueuedJob[]> {
    return instance.services.sequelize.query<QueuedJob>(
      `SELECT jobs.id::text AS id, tasks.identifier AS task, jobs.key, jobs.run_at AS "runAt", jobs.locked_at AS "lockedAt"
         FROM graphile_worker._private_jobs jobs JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id ORDER BY jobs.id`,
      { type: QueryTypes.SELECT },
    );
  }

  test('only Site Admins: 401 without a session, 403 for a signed-in user; nothing is queued or audited', async () => {
    assertError(await run(new TestClient(instance.baseUrl), 'trash-purge'), 401, 'unauthenticated');
    const { client } = await createVerifiedUser(instance);
    assertError(await run(client, 'trash-purge'), 403, 'forbidden');
    assert.deepEqual(await queued(), []);
    assert.equal(await AuditEntry.count({ where: { action: 'admin.job_run' } }), 0);
  });

  test('unknown names and jobs not built yet answer 404 job_not_found', async () => {
    for (const name of ['no-such-job', 'log-compaction', 'TRASH-PURGE', '__proto__', 'constructor']) {
      const response = await run(admin, name);
      assertError(response, 404, 'job_not_found');
      assert.equal(response.body.error.details.reason, 'unknown', name);
    }
    for (const name of ['conversion-payload-prune', 'data-export-purge']) {
      const response = await run(admin, name);
      assertError(response, 404, 'job_not_found');
      assert.equal(response.body.error.details.reason, 'not_available', name);
      assert.match(response.body.error.message, /not available on this instance yet/);
    }
    assert.deepEqual(await queued(), []);
  });

  test('202 queues the job under its crontab key and audits the trigger; a second trigger while it waits or runs is 409', async () => {
    // The audit log is append-only: count what this test adds.
    const auditedBefore = await AuditEntry.count({ where: { action: 'admin.job_run' } });
    const response = await run(admin, 'update-log-compaction');
    assert.equal(response.status, 202, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['jobId', 'name']);
    assert.equal(response.body.name, 'update-log-compaction');
    const [job] = await queued();
    assert.deepEqual({ id: job?.id, task: job?.task, key: job?.key }, { id: response.body.jobId, task: 'log-compaction', key: 'log-compaction' });
    const audit = await AuditEntry.findAll({ where: { action: 'admin.job_run' }, order: [['id', 'ASC']] });
    assert.equal(audit.length, auditedBefore + 1);
    audit.splice(0, auditedBefore);
    assert.equal(audit[0]!.actorId, adminId);
    assert.deepEqual(audit[0]!.details, { name: 'update-log-compaction', task: 'log-compaction', jobId: response.body.jobId });

    // Waiting for a worker: already queued.
    assertError(await run(admin, 'update-log-compaction'), 409, 'job_already_running');
    // Taken by a worker: running.
    await instance.services.sequelize.query(`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'test-worker' WHERE id = :id`, { replacements: { id: job!.id } });
    const refused = await run(admin, 'update-log-compaction');
    assertError(refused, 409, 'job_already_running');
    assert.equal(refused.body.error.details.name, 'update-log-compaction');
    assert.equal((await queued()).length, 1, 'no second job');
    assert.equal(await AuditEntry.count({ where: { action: 'admin.job_run' } }), auditedBefore + 1, 'refusals are not audited');
    // Another job is not held up by it.
    assert.equal((await run(admin, 'trash-purge')).status, 202);
    // A lock older than Graphile's expiry belongs to a crashed worker: the job runs again.
    await instance.services.sequelize.query(`UPDATE graphile_worker._private_jobs SET locked_at = now() - interval '5 hours' WHERE id = :id`, { replacements: { id: job!.id } });
    assert.equal((await run(admin, 'update-log-compaction')).status, 202);
  });

  test('a job waiting for a later retry is pulled forward to run now, not doubled', async () => {
    const first = await run(admin, 'version-thinning');
    assert.equal(first.status, 202);
    await instance.services.sequelize.query(`UPDATE graphile_worker._private_jobs SET run_at = now() + interval '40 minutes', attempts = 2 WHERE id = :id`, { replacements: { id: first.body.jobId } });
    const second = await run(admin, 'version-thinning');
    assert.equal(second.status, 202, second.text);
    const jobs = await queued();
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0]!.id, second.body.jobId);
    assert.ok(jobs[0]!.runAt.getTime() <= Date.now() + 1_000, 'it runs now');
  });

  test('every job that exists can be triggered', async () => {
    for (const [name, task] of Object.entries(MAINTENANCE_JOB_TASKS)) {
      const response = await run(admin, name);
      if (task === null) assertError(response, 404, 'job_not_found');
      else assert.equal(response.status, 202, `${name}: ${response.text}`);
    }
    assert.deepEqual((await queued()).map((job) => job.task).sort(), ['log-compaction', 'notification-digest', 'orphan-file-sweep', 'search-lexicon-refresh', 'trash-purge', 'version-thinning']);
  });

  test('a manual digest run, done by a real worker, applies the cadence: a due user gets mail, one not yet due does not', async () => {
    const relay = await startMailRelay(instance);
    try {
      const due = await User.create({ username: 'manualdue', email: 'manualdue@example.org', displayName: 'Due', locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date() });
      const early = await User.create({ username: 'manualearly', email: 'manualearly@example.org', displayName: 'Early', locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date(), digestFrequency: 'daily' });
      const pond = await seedSharedPond(adminId, 'Manual pond');
      for (const user of [due, early]) await seedGrant(pond.id, { subject: { type: 'user', id: user.id }, role: 'reader' });
      const page = await seedPage(pond.id, 'Manually digested');
      const payload = JSON.stringify({ pondName: pond.name, pondSlug: pond.slug, pageTitle: page.title, pageSlug: page.slug, actors: [{ id: adminId, displayName: 'Ada Admin' }], changeCount: 1, commentCount: 0 });
      await instance.services.sequelize.query(
        `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at)
         VALUES (:due, 'page_changed', :pondId, :pageId, :payload, now() - interval '2 hours'), (:early, 'page_changed', :pondId, :pageId, :payload, now() - interval '2 hours')`,
        { replacements: { due: due.id, early: early.id, pondId: pond.id, pageId: page.id, payload } },
      );
      const response = await run(admin, 'notification-digest');
      assert.equal(response.status, 202, response.text);
      const mail = await waitFor(() => relay.smtp.messages.find((message) => message.to.includes(due.email)), 20_000, 'the digest mail');
      assert.match(mailParts(mail.raw).text ?? '', /Changed once by Ada Admin/);
      await waitFor(async () => ((await queued()).length === 0 ? true : undefined), 20_000, 'the job to finish');
      assert.equal(relay.smtp.messages.filter((message) => message.to.includes(early.email)).length, 0, 'the daily user is not due yet');
    } finally {
      await relay.close();
    }
  });
});
