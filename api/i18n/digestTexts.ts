/** Looks up a text of the digest mail or the unsubscribe pages (digestTexts.{de,en}.ts) and fills in its `{name}` placeholders. */
import { digestTextsDe } from './digestTexts.de.ts';
import { digestTextsEn, type DigestTextKey } from './digestTexts.en.ts';
import type { Locale } from './locale.ts';

export type { DigestTextKey } from './digestTexts.en.ts';

const catalogs: Record<Locale, Record<DigestTextKey, string>> = { de: digestTextsDe, en: digestTextsEn };

/** One pass, as mailText does: an inserted value (a page title holding `{count}`) is never expanded again. */
export function digestText(key: DigestTextKey, locale: Locale, values: Record<string, string | number> = {}): string {
  return catalogs[locale][key].replace(/\{(\w+)\}/g, (placeholder, name: string) => (values[name] === undefined ? placeholder : String(values[name])));
}
