/**
 * A Site Admin runs a maintenance job by hand (`POST /admin/system/jobs/:name/run`): the job
 * is added to the worker's queue now, exactly as its crontab line adds it, so the run does
 * what a scheduled one does (the digest applies the same cadence rules).
 *
 * The run-mutex: one run per job at a time. A job of that task the worker holds (locked, and
 * younger than Graphile's 4-hour lock expiry) or one already due and waiting for a worker
 * refuses the trigger (409 `job_already_running`). Otherwise the job is added under the
 * crontab line's own `job_key`: a job of that line waiting for a later retry is replaced and
 * runs now, instead of a second copy being queued. Triggers of one job are serialized by an
 * advisory lock, so two admins clicking at once get one run. The check and the trigger's
 * audit entry share one transaction with the enqueue.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { recordAudit, type AuditActor } from '../audit/auditLog.ts';
import { ApiError } from '../http/apiError.ts';

/**
 * The job names of the system panel (ARCHITECTURE.md) and the worker task each runs
 * (jobs/taskList.ts; jobs/worker.test.ts checks they exist and match the crontab's job keys).
 * Null: the job is not built yet.
 */
export const MAINTENANCE_JOB_TASKS = {
  'notification-digest': 'notification-digest',
  'orphan-file-sweep': 'orphan-file-sweep',
  'conversion-payload-prune': null,
  'version-thinning': 'version-thinning',
  'trash-purge': 'trash-purge',
  'update-log-compaction': 'log-compaction',
  'data-export-purge': null,
  'search-lexicon': 'search-lexicon-refresh',
} as const satisfies Record<string, string | null>;

export type MaintenanceJobName = keyof typeof MAINTENANCE_JOB_TASKS;

/** Attempts of a manual run, as the crontab lines give theirs (`max=5`). */
const MANUAL_RUN_MAX_ATTEMPTS = 5;
/** Graphile treats a lock older than this as left by a crashed worker and takes the job again. */
const STALE_LOCK = '4 hours';

function taskOf(name: string): string {
  const task = Object.hasOwn(MAINTENANCE_JOB_TASKS, name) ? MAINTENANCE_JOB_TASKS[name as MaintenanceJobName] : undefined;
  if (task === undefined) throw new ApiError('job_not_found', 404, { name, reason: 'unknown' });
  if (task === null) throw new ApiError('job_not_found', 404, { name, reason: 'not_available' });
  return task;
}

/** The run-mutex: a job of the task held by a live worker, or due and waiting for one. */
const BUSY_CONDITION = `
  jobs.locked_at > now() - interval '${STALE_LOCK}'
  OR (jobs.locked_at IS NULL AND jobs.attempts < jobs.max_attempts AND jobs.run_at <= now())`;

const BUSY_SQL = `
  SELECT EXISTS (
    SELECT 1 FROM graphile_worker._private_jobs jobs
      JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
     WHERE tasks.identifier = :task AND (${BUSY_CONDITION})
  ) AS busy`;

/** The tasks of `tasks` the run-mutex holds now: the check a trigger makes, for the system panel's status. */
export async function busyMaintenanceTasks(sequelize: Sequelize, tasks: string[]): Promise<Set<string>> {
  if (tasks.length === 0) return new Set();
  const rows = await sequelize.query<{ task: string }>(
    `SELECT DISTINCT tasks.identifier AS task FROM graphile_worker._private_jobs jobs
       JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
      WHERE tasks.identifier IN (:tasks) AND (${BUSY_CONDITION})`,
    { replacements: { tasks }, type: QueryTypes.SELECT },
  );
  return new Set(rows.map((row) => row.task));
}

export interface TriggeredRun {
  name: string;
  jobId: string;
}

export async function triggerMaintenanceJob(sequelize: Sequelize, input: { name: string; actor: AuditActor; ip: string | null | undefined }): Promise<TriggeredRun> {
  const task = taskOf(input.name);
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(hashtext(:key))', { replacements: { key: `job-trigger:${task}` }, transaction });
    const [state] = await sequelize.query<{ busy: boolean }>(BUSY_SQL, { replacements: { task }, type: QueryTypes.SELECT, transaction });
    if (state?.busy) throw new ApiError('job_already_running', 409, { name: input.name });
    // The crontab lines use the task identifier as their job key (jobs/crontab.ts).
    const [job] = await sequelize.query<{ id: number | string }>(
      `SELECT id FROM graphile_worker.add_job(:task, '{}'::json, max_attempts => :maxAttempts, job_key => :task)`,
      { replacements: { task, maxAttempts: MANUAL_RUN_MAX_ATTEMPTS }, type: QueryTypes.SELECT, transaction },
    );
    const jobId = String(job!.id);
    await recordAudit({ actor: input.actor, action: 'admin.job_run', details: { name: input.name, task, jobId }, ip: input.ip }, transaction);
    return { name: input.name, jobId };
  });
}
