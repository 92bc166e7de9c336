/** Looks up a mail text (mailTexts.{de,en}.ts) in a locale and fills in its `{name}` placeholders. */
import type { Locale } from './locale.ts';
import { mailTextsDe } from './mailTexts.de.ts';
import { mailTextsEn, type MailTextKey } from './mailTexts.en.ts';

export type { MailTextKey } from './mailTexts.en.ts';

const catalogs: Record<Locale, Record<MailTextKey, string>> = { de: mailTextsDe, en: mailTextsEn };

/**
 * One pass over the catalogue text: a value is inserted as it is, so a display name that
 * contains `{instanceName}` or `$&` is never filled in or expanded again.
 */
export function mailText(key: MailTextKey, locale: Locale, values: Record<string, string> = {}): string {
  return catalogs[locale][key].replace(/\{(\w+)\}/g, (placeholder, name: string) => values[name] ?? placeholder);
}
