/**
 * How the admin screens word a maintenance job's figures: its name (the catalog's
 * `adminSystem.job.*`, else the code name), a run's duration, and its status.
 */
import type { MessageKey, Translate } from '../i18n/translator.ts';

export interface SystemJob {
  name: string;
  lastRunAt: string | null;
  lastDurationMs: number | null;
  lastOutcome: 'succeeded' | 'failed' | null;
  status: 'idle' | 'running' | 'unavailable';
  nextRunAt: string | null;
}

export function jobTitle(t: Translate, name: string): string {
  const key = `adminSystem.job.${name}` as MessageKey;
  const text = t(key);
  // A job the catalog does not know yet (added on the API side first) shows its code name.
  return text === undefined ? name : text;
}

/** `350 ms`, `4.2 s`, `75 s`: milliseconds below a second, seconds with one decimal below ten. */
export function durationInWords(t: Translate, ms: number | null, locale: string): string {
  if (ms === null) return t('adminSystem.noDuration');
  if (ms < 1000) return t('adminSystem.durationMs', { ms });
  const seconds = ms / 1000;
  const number = new Intl.NumberFormat(locale === 'de' ? 'de-DE' : 'en-US', { maximumFractionDigits: seconds < 10 ? 1 : 0 }).format(seconds);
  return t('adminSystem.durationS', { s: number });
}

export function statusInWords(t: Translate, status: SystemJob['status']): string {
  return t(`adminSystem.status.${status}`);
}

/**
 * A run's moment, short enough for the job table: day, month and time, the year only when it
 * is not this year. In UTC (and saying so) until the island runs, then in the reader's zone:
 * the server does not know that zone, and hydration must match the server's text.
 */
export function runMoment(iso: string, locale: string, inBrowser: boolean, now = new Date()): string {
  const date = new Date(iso);
  const timeZone = inBrowser ? undefined : 'UTC';
  const yearOf = (value: Date) => new Intl.DateTimeFormat('en', { year: 'numeric', timeZone }).format(value);
  const options: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone };
  if (yearOf(date) !== yearOf(now)) options.year = 'numeric';
  const text = new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-US', options).format(date);
  return inBrowser ? text : `${text} UTC`;
}
