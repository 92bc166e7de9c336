/**
 * The recurring jobs, in Graphile Worker's crontab format (UTC):
 * `minute hour day-of-month month day-of-week task ?options`. The runner schedules each line;
 * with several workers on one database each slot still runs once (Graphile records the last
 * execution per line in its own schema).
 *
 * Options used here:
 * - `fill=15m` / `fill=1h` / `fill=1d`: a worker that starts after a missed slot (it was down at that
 *   time) runs that slot at once, so a restart never skips a run.
 * - `jobKey=…`: one pending job per line; a slot that comes while the previous job still
 *   waits for a retry replaces it instead of queueing a second copy.
 * - `max=5`: a failing run retries a few times; the next slot tries again anyway.
 */
import { LOG_COMPACTION, NOTIFICATION_DIGEST, ORPHAN_FILE_SWEEP, SEARCH_LEXICON_REFRESH, TRASH_PURGE, VERSION_THINNING } from './taskList.ts';

export const CRONTAB = [
  // Hourly: a page whose retention passed is gone within the hour.
  `0 * * * * ${TRASH_PURGE} ?fill=1h&jobKey=${TRASH_PURGE}&max=5`,
  // Hourly, off the full hour so it does not start together with the purge.
  `20 * * * * ${LOG_COMPACTION} ?fill=1h&jobKey=${LOG_COMPACTION}&max=5`,
  // Daily at night (UTC); a worker that was down catches up within the day.
  `30 2 * * * ${ORPHAN_FILE_SWEEP} ?fill=1d&jobKey=${ORPHAN_FILE_SWEEP}&max=5`,
  `40 3 * * * ${VERSION_THINNING} ?fill=1d&jobKey=${VERSION_THINNING}&max=5`,
  `10 4 * * * ${SEARCH_LEXICON_REFRESH} ?fill=1d&jobKey=${SEARCH_LEXICON_REFRESH}&max=5`,
  // Every 15 minutes (spec: digest job cadence); a missed slot is made up once, not once per slot.
  `*/15 * * * * ${NOTIFICATION_DIGEST} ?fill=15m&jobKey=${NOTIFICATION_DIGEST}&max=5`,
].join('\n');
