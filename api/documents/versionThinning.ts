/**
 * Version thinning (spec, Limits): every version is kept for 90 days; after that, of the
 * automatic versions only the newest per page and UTC day stays. Manual and pre-restore
 * versions are never thinned. One set-based DELETE, run daily by the worker.
 *
 * The newest automatic version of a day is judged among all that day's automatic versions,
 * old or not, so a day that straddles the 90-day line never loses its last snapshot.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

export const VERSION_RETENTION_DAYS = 90;

/** Deletes the thinned versions; `now` is the clock the 90 days are counted from (tests pass one). */
export async function thinVersions(sequelize: Sequelize, options: { now?: Date } = {}): Promise<{ deleted: number }> {
  const rows = await sequelize.query<{ id: string }>(
    `WITH ranked AS (
       SELECT id, created_at,
              row_number() OVER (
                PARTITION BY page_id, (created_at AT TIME ZONE 'UTC')::date
                ORDER BY created_at DESC, id DESC
              ) AS newest_rank
         FROM page_versions
        WHERE trigger = 'auto'
          -- Every version of a day with one older than the cutoff is younger than cutoff + 1 day.
          AND created_at < CAST(:now AS timestamptz) - make_interval(days => :retentionDays - 1)
     )
     DELETE FROM page_versions v
      USING ranked r
      WHERE v.id = r.id
        AND r.newest_rank > 1
        AND r.created_at < CAST(:now AS timestamptz) - make_interval(days => :retentionDays)
     RETURNING v.id`,
    { replacements: { now: (options.now ?? new Date()).toISOString(), retentionDays: VERSION_RETENTION_DAYS }, type: QueryTypes.SELECT },
  );
  return { deleted: rows.length };
}
