/**
 * The system panel's job records (issue 36; spec: Maintenance job): one row per run of a
 * maintenance task, scheduled or manual, written by the worker around the task
 * (jobs/maintenanceRunRecords.ts). `task` is the worker's task identifier (what ran), not the
 * panel's job name; api/commands/maintenanceJobRuns.ts maps one to the other. `error_code` is a
 * code only (an ApiError code, an SQLSTATE, an error class name), never a message: messages
 * may quote paths, host names or values. Rows older than the retention go with each new run.
 *
 * The audit list's filters page newest first by (created_at, id); the indexes of 0001/0011 end
 * at created_at, so a filtered page had to sort each timestamp's ties by id. These end in id as
 * well, so a filtered page is read off the index in order and stops after `limit` rows
 * (`npm run bench:admin-audit`: 1,000,000 entries). The exact-action index goes: the prefix
 * index's text_pattern_ops also serves equality.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE TABLE maintenance_job_runs (
      id bigserial PRIMARY KEY,
      task text NOT NULL,
      trigger text NOT NULL CHECK (trigger IN ('scheduled', 'manual')),
      started_at timestamptz NOT NULL,
      duration_ms integer NOT NULL CHECK (duration_ms >= 0),
      outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
      error_code text CHECK (char_length(error_code) <= 100),
      CHECK ((outcome = 'failed') = (error_code IS NOT NULL))
    );
    CREATE INDEX maintenance_job_runs_task_idx ON maintenance_job_runs (task, started_at DESC);

    DROP INDEX audit_entries_action_idx, audit_entries_actor_idx, audit_entries_actor_name_idx, audit_entries_action_prefix_idx;
    -- text_pattern_ops also serves equality: one index for the exact action and the prefix.
    CREATE INDEX audit_entries_action_prefix_idx ON audit_entries (action text_pattern_ops, created_at DESC, id DESC);
    CREATE INDEX audit_entries_actor_idx ON audit_entries (actor_id, created_at DESC, id DESC);
    CREATE INDEX audit_entries_actor_name_idx ON audit_entries (lower(actor_name), created_at DESC, id DESC);
    -- Actor and action together: an exact action reads the page off these in order; without them
    -- Postgres intersects every entry of the actor with every entry of the action.
    CREATE INDEX audit_entries_actor_action_idx ON audit_entries (actor_id, action text_pattern_ops, created_at DESC, id DESC);
    CREATE INDEX audit_entries_actor_name_action_idx ON audit_entries (lower(actor_name), action text_pattern_ops, created_at DESC, id DESC);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX audit_entries_actor_idx, audit_entries_actor_name_idx, audit_entries_action_prefix_idx, audit_entries_actor_action_idx, audit_entries_actor_name_action_idx;
    CREATE INDEX audit_entries_action_idx ON audit_entries (action, created_at DESC);
    CREATE INDEX audit_entries_actor_idx ON audit_entries (actor_id, created_at DESC);
    CREATE INDEX audit_entries_action_prefix_idx ON audit_entries (action text_pattern_ops, created_at DESC);
    CREATE INDEX audit_entries_actor_name_idx ON audit_entries (lower(actor_name), created_at DESC);
    DROP TABLE IF EXISTS maintenance_job_runs;
  `);
}
