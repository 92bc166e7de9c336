/**
 * Every run of a maintenance task, scheduled or manual, leaves a record (migration 0015):
 * when it started, how long it took, and whether it succeeded or failed with which error code.
 * One wrapper around the task list's maintenance tasks (createTaskList), not code in each task.
 * A failing run is recorded and its error thrown on, so Graphile retries it as before; a
 * record that cannot be written is logged and never fails the run itself.
 *
 * Graphile puts `_cron` into the payload of the jobs its crontab adds; a manual trigger
 * (api/commands/maintenanceJobRuns.ts) adds `{}`.
 */
import type { Task, TaskList } from 'graphile-worker';
import type { Sequelize } from 'sequelize';
import { MAINTENANCE_JOB_TASKS } from '../api/commands/maintenanceJobRuns.ts';
import type { Logger } from '../api/logger.ts';

/** Records older than this go with the next run of their task: the panel shows the last run. */
const RECORD_RETENTION = '90 days';

const MAINTENANCE_TASKS = new Set<string>(Object.values(MAINTENANCE_JOB_TASKS).filter((task) => task !== null));

/** A code that names the failure without quoting anything: ApiError codes, SQLSTATEs, `ENOENT`, else the error's class name. */
const SAFE_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$|^[0-9A-Z]{5}$/;

export function errorCodeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown_error';
  const candidates = [(error as { code?: unknown }).code, (error as { parent?: { code?: unknown } }).parent?.code, (error as { name?: unknown }).name];
  for (const candidate of candidates) if (typeof candidate === 'string' && SAFE_CODE.test(candidate)) return candidate;
  return 'unknown_error';
}

function triggerOf(payload: unknown): 'scheduled' | 'manual' {
  return typeof payload === 'object' && payload !== null && '_cron' in payload ? 'scheduled' : 'manual';
}

export function recordingRuns(task: string, run: Task, sequelize: Sequelize, logger: Logger): Task {
  return async (payload, helpers) => {
    const startedAt = new Date();
    const started = performance.now();
    let failure: unknown = null;
    try {
      await run(payload, helpers);
    } catch (error) {
      failure = error ?? new Error('task failed');
    }
    const durationMs = Math.max(0, Math.round(performance.now() - started));
    try {
      await sequelize.query('INSERT INTO maintenance_job_runs (task, trigger, started_at, duration_ms, outcome, error_code) VALUES (:task, :trigger, :startedAt, :durationMs, :outcome, :errorCode)', {
        replacements: {
          task,
          trigger: triggerOf(payload),
          startedAt,
          durationMs,
          outcome: failure === null ? 'succeeded' : 'failed',
          errorCode: failure === null ? null : errorCodeOf(failure),
        },
      });
      await sequelize.query(`DELETE FROM maintenance_job_runs WHERE task = :task AND started_at < now() - interval '${RECORD_RETENTION}'`, { replacements: { task } });
    } catch (error) {
      logger.warn({ err: error, task }, 'the maintenance run could not be recorded');
    }
    if (failure !== null) throw failure;
  };
}

/** The task list with each maintenance task recording its runs; the other tasks as they are. */
export function withMaintenanceRunRecords(tasks: TaskList, sequelize: Sequelize, logger: Logger): TaskList {
  return Object.fromEntries(Object.entries(tasks).map(([identifier, task]) => [identifier, task && MAINTENANCE_TASKS.has(identifier) ? recordingRuns(identifier, task, sequelize, logger) : task]));
}
