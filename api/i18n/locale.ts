/**
 * The caller's locale: the signed-in user's setting, then `Accept-Language`, then the
 * instance default.
 */
import type { ErrorCode, MessageVariant } from '../http/errorCodes.ts';
import { errorMessagesDe, messageVariantsDe } from './errorMessages.de.ts';
import { errorMessagesEn, messageVariantsEn } from './errorMessages.en.ts';

export const LOCALES = ['de', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

export function isLocale(value: unknown): value is Locale {
  return value === 'de' || value === 'en';
}

/** Picks the best supported language from an `Accept-Language` header, honouring q-values. */
export function localeFromAcceptLanguage(header: string | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { language: tag.toLowerCase().split('-')[0] ?? '', quality: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality);
  return ranked.map((entry) => entry.language).find(isLocale) ?? null;
}

export function resolveLocale(input: {
  userLocale?: string | null | undefined;
  acceptLanguage?: string | undefined;
  instanceDefault: Locale;
}): Locale {
  if (isLocale(input.userLocale)) return input.userLocale;
  return localeFromAcceptLanguage(input.acceptLanguage) ?? input.instanceDefault;
}

const errorCatalogs: Record<Locale, Record<ErrorCode, string>> = { de: errorMessagesDe, en: errorMessagesEn };

const variantCatalogs: Record<Locale, Record<MessageVariant, string>> = { de: messageVariantsDe, en: messageVariantsEn };

/** The code's text, or the variant's where the error carries one (MESSAGE_VARIANTS). */
export function errorMessage(code: ErrorCode, locale: Locale, variant?: MessageVariant): string {
  return variant === undefined ? errorCatalogs[locale][code] : variantCatalogs[locale][variant];
}
