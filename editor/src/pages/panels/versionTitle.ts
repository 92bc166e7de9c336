/**
 * What a version is called in the history. A named version is its name; an unnamed one is
 * when it was saved and who had written it, "2 Dec, 14:05 · Vera, Tom +1", so automatic
 * versions tell themselves apart instead of all reading "Unnamed version".
 */
import type { Locale, Translate } from '../../i18n/translator.ts';
import type { VersionView } from './panelViews.ts';

/** Names in a title; the rest are counted ("+N"). */
export const TITLE_NAMES = 2;

export interface VersionTitle {
  /** The version's name, or null for an unnamed one. */
  label: string | null;
  /** When it was saved, short ("2 Dec, 14:05"; with the year when not this year's). */
  time: string;
  /** Who wrote it, cut to TITLE_NAMES and "+N"; empty when nobody is known. */
  people: string;
  /** The whole title as one line (the option text of the compare lists, the dialog's heading). */
  text: string;
}

function shortTime(iso: string, locale: Locale, now: Date, timeZone?: string): string {
  const date = new Date(iso);
  const zone = timeZone ? { timeZone } : {};
  const year = (value: Date) => new Intl.DateTimeFormat('en', { year: 'numeric', ...zone }).format(value);
  const format = new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-GB', {
    day: 'numeric',
    month: 'short',
    ...(year(date) === year(now) ? {} : { year: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
    ...zone,
  });
  return format.format(date);
}

/** The contributors (else the creator), the first TITLE_NAMES by name and "+N" for the others. */
export function peopleOf(version: Pick<VersionView, 'contributors' | 'createdBy'>, t: Translate): string {
  const names = version.contributors.length > 0 ? version.contributors.map((person) => person.displayName) : version.createdBy ? [version.createdBy.displayName] : [];
  const shown = names.slice(0, TITLE_NAMES).join(', ');
  return names.length > TITLE_NAMES ? t('history.titleMore', { names: shown, count: names.length - TITLE_NAMES }) : shown;
}

export function versionTitle(version: VersionView, context: { t: Translate; locale: Locale; now?: Date; timeZone?: string }): VersionTitle {
  const time = shortTime(version.createdAt, context.locale, context.now ?? new Date(), context.timeZone);
  const people = peopleOf(version, context.t);
  const unnamed = people ? `${time} · ${people}` : time;
  return { label: version.label, time, people, text: version.label ? `${version.label} (${time})` : unnamed };
}
