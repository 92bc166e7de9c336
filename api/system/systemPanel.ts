/**
 * The system panel's data (ARCHITECTURE.md: `GET /admin/system` → `{ jobs: [{ name, lastRunAt,
 * lastDurationMs, status, nextRunAt }], largestPonds: [{ id, slug, name, bytes, files }] }`),
 * each job also with `lastOutcome` (`succeeded` | `failed` | null), so a failed last run shows.
 *
 * - `jobs`: every job of MAINTENANCE_JOB_TASKS, in that order. The last run is the newest
 *   record the worker wrote (jobs/maintenanceRunRecords.ts), failed or not; `status` is
 *   `running` while the run-mutex holds the job (the check a manual trigger makes), else
 *   `idle`; a job not built yet is `unavailable` with nulls. `nextRunAt` is the crontab line's
 *   next fire time (api/system/jobSchedule.ts), null for a job without a line.
 * - `largestPonds`: the ten ponds whose stored files take the most bytes (the sum the storage
 *   quota counts), with their file counts; ponds without files are not listed. A trashed pond
 *   is listed too: its files still take the space until it is purged.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { busyMaintenanceTasks, MAINTENANCE_JOB_TASKS } from '../commands/maintenanceJobRuns.ts';
import { nextScheduledRuns } from './jobSchedule.ts';

export type JobStatus = 'idle' | 'running' | 'unavailable';

export interface SystemJobView {
  name: string;
  lastRunAt: string | null;
  lastDurationMs: number | null;
  /** How the last run ended; null before the first. */
  lastOutcome: 'succeeded' | 'failed' | null;
  status: JobStatus;
  nextRunAt: string | null;
}

export interface LargestPondView {
  id: string;
  slug: string;
  name: string;
  bytes: number;
  files: number;
}

export interface SystemPanelView {
  jobs: SystemJobView[];
  largestPonds: LargestPondView[];
}

const LARGEST_PONDS = 10;

interface LastRunRow {
  task: string;
  started_at: Date;
  duration_ms: number;
  outcome: 'succeeded' | 'failed';
}

export async function systemJobs(sequelize: Sequelize, now = new Date()): Promise<SystemJobView[]> {
  const tasks = Object.values(MAINTENANCE_JOB_TASKS).filter((task): task is NonNullable<typeof task> => task !== null);
  const [lastRuns, busy] = await Promise.all([
    // One index probe per task (maintenance_job_runs_task_idx), not a scan of all records.
    sequelize.query<LastRunRow>(
      `SELECT t.task, r.started_at, r.duration_ms, r.outcome
         FROM unnest(ARRAY[:tasks]::text[]) AS t(task)
         JOIN LATERAL (SELECT started_at, duration_ms, outcome FROM maintenance_job_runs WHERE task = t.task ORDER BY started_at DESC LIMIT 1) r ON true`,
      { replacements: { tasks }, type: QueryTypes.SELECT },
    ),
    busyMaintenanceTasks(sequelize, tasks),
  ]);
  const lastByTask = new Map(lastRuns.map((row) => [row.task, row]));
  const schedule = nextScheduledRuns(now);
  return Object.entries(MAINTENANCE_JOB_TASKS).map(([name, task]): SystemJobView => {
    if (task === null) return { name, lastRunAt: null, lastDurationMs: null, lastOutcome: null, status: 'unavailable', nextRunAt: null };
    const last = lastByTask.get(task);
    return {
      name,
      lastRunAt: last ? new Date(last.started_at).toISOString() : null,
      lastDurationMs: last ? Number(last.duration_ms) : null,
      lastOutcome: last?.outcome ?? null,
      status: busy.has(task) ? 'running' : 'idle',
      nextRunAt: schedule.get(task)?.toISOString() ?? null,
    };
  });
}

export async function largestPonds(sequelize: Sequelize): Promise<LargestPondView[]> {
  const rows = await sequelize.query<{ id: string; slug: string; name: string; bytes: string; files: string }>(
    `SELECT p.id, p.slug, p.name, sums.bytes, sums.files
       FROM (SELECT pond_id, sum(size_bytes) AS bytes, count(*) AS files FROM files GROUP BY pond_id) sums
       JOIN ponds p ON p.id = sums.pond_id
      ORDER BY sums.bytes DESC, p.slug
      LIMIT ${LARGEST_PONDS}`,
    { type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({ id: row.id, slug: row.slug, name: row.name, bytes: Number(row.bytes), files: Number(row.files) }));
}

export async function systemPanel(sequelize: Sequelize): Promise<SystemPanelView> {
  const [jobs, ponds] = await Promise.all([systemJobs(sequelize), largestPonds(sequelize)]);
  return { jobs, largestPonds: ponds };
}
