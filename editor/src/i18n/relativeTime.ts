/**
 * How long ago something happened, in the reader's language: "3 minutes ago", "yesterday",
 * "vor 2 Stunden"; under a minute Intl's "now" / "jetzt". Rounded down to the largest whole
 * unit. A time slightly ahead of this clock (the server's) counts as now, never as the future.
 * Shared by the comment panel and the notification panel.
 */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

export function relativeTime(when: Date | string, now: Date, locale: string): string {
  const seconds = Math.max(0, (now.getTime() - new Date(when).getTime()) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (seconds >= size) return format.format(-Math.floor(seconds / size), unit);
  }
  return format.format(0, 'second');
}
