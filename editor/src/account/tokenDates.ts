/**
 * Dates of personal access tokens as the settings page shows and sends them. The expiry is
 * chosen as a calendar day (a date input) and means "works through that day" in the reader's
 * own time zone, so the API gets the last second of that local day.
 */

/** `YYYY-MM-DD` of a date input → the end of that day in the browser's zone; null for an empty or unreadable value. */
export function endOfLocalDay(day: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const end = new Date(year, month - 1, date, 23, 59, 59);
  // new Date rolls 2026-02-31 over into March; a day that does not exist is no day.
  return end.getFullYear() === year && end.getMonth() === month - 1 && end.getDate() === date ? end : null;
}

/** Today as a date input writes it (`YYYY-MM-DD`, local), for its `min`. */
export function localDayOf(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * A moment in the reader's zone once the island runs. The server does not know that zone and
 * hydration must match its text, so the server render (and the first client render) names UTC.
 */
export function formatMoment(iso: string, locale: string, inBrowser: boolean): string {
  const date = new Date(iso);
  if (inBrowser) return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
  // dateStyle cannot be combined with timeZoneName: the zone is named by hand.
  return `${new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date)} UTC`;
}
