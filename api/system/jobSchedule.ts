/**
 * When each crontab line (jobs/crontab.ts) fires next. Graphile's own parser and matcher read
 * the lines, so the time shown is the one the runner will use (UTC, minute resolution, its
 * reading of day-of-month and day-of-week). The next fire time is the first whole minute
 * after `now` that the line matches, searched minute by minute: our lines fire at least daily,
 * and the search gives up after a year.
 */
import { parseCrontab } from 'graphile-worker';
import { CRONTAB } from '../../jobs/crontab.ts';

const MINUTE = 60_000;
const SEARCH_LIMIT_MINUTES = 366 * 24 * 60;

type CronMatcher = ReturnType<typeof parseCrontab>[number]['match'];

function matches(match: CronMatcher, at: Date): boolean {
  return match({ min: at.getUTCMinutes(), hour: at.getUTCHours(), date: at.getUTCDate(), month: at.getUTCMonth() + 1, dow: at.getUTCDay() });
}

export function nextFireTime(match: CronMatcher, now: Date): Date | null {
  let at = Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE;
  for (let step = 0; step < SEARCH_LIMIT_MINUTES; step += 1, at += MINUTE) {
    if (matches(match, new Date(at))) return new Date(at);
  }
  return null;
}

/** The next scheduled run of each task the crontab names, by task identifier. */
export function nextScheduledRuns(now: Date, crontab = CRONTAB): Map<string, Date | null> {
  const next = new Map<string, Date | null>();
  for (const item of parseCrontab(crontab)) {
    const fire = nextFireTime(item.match, now);
    const known = next.get(item.task);
    if (known === undefined || known === null || (fire !== null && fire < known)) next.set(item.task, fire);
  }
  return next;
}
