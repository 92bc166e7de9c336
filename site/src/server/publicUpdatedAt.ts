/**
 * The "last updated" text of a generated public document. Deterministic: the instance locale
 * and UTC, never the machine's zone. One formatter per locale for the process: building an
 * `Intl.DateTimeFormat` costs far more than formatting with it, and each one holds ICU memory
 * outside the JS heap until a major collection, which every generated document would add to.
 */
const formatters = new Map<'de' | 'en', Intl.DateTimeFormat>();

function formatterFor(locale: 'de' | 'en'): Intl.DateTimeFormat {
  let formatter = formatters.get(locale);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-US', {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZone: 'UTC',
      timeZoneName: 'short',
    });
    formatters.set(locale, formatter);
  }
  return formatter;
}

export function formatUpdatedAt(iso: string | null, locale: 'de' | 'en'): { iso: string; text: string } | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return { iso: date.toISOString(), text: formatterFor(locale).format(date) };
}
