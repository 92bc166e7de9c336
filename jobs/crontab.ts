/**
 * The recurring jobs, in Graphile Worker's crontab format (UTC):
 * `minute hour day-of-month month day-of-week task ?options`. The runner schedules each line;
 * with several workers on one database each slot still runs once (Graphile records the last
 * execution per line in its own schema).
 *
 * Options used here:
 * - `fill=1h`: a worker that starts after a missed slot (it was down at the full hour) runs
 *   that slot at once, so a restart never skips a purge.
 * - `jobKey=…`: one pending job per line; a slot that comes while the previous job still
 *   waits for a retry replaces it instead of queueing a second copy.
 * - `max=5`: a failing purge retries a few times; the next hour tries again anyway.
 */
import { TRASH_PURGE } from './taskList.ts';

export const CRONTAB = [
  // Hourly: a page whose retention passed is gone within the hour.
  `0 * * * * ${TRASH_PURGE} ?fill=1h&jobKey=${TRASH_PURGE}&max=5`,
].join('\n');
