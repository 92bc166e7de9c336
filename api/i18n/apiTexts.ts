/** Looks up the API's non-error texts (apiTexts.{de,en}.ts) in the caller's locale. */
import { apiTextsDe } from './apiTexts.de.ts';
import { apiTextsEn, type ApiTextKey } from './apiTexts.en.ts';
import type { Locale } from './locale.ts';

export type { ApiTextKey } from './apiTexts.en.ts';

const catalogs: Record<Locale, Record<ApiTextKey, string>> = { de: apiTextsDe, en: apiTextsEn };

export function apiText(key: ApiTextKey, locale: Locale): string {
  return catalogs[locale][key];
}
