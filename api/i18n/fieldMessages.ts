/**
 * Localized texts for field-level validation problems: zod's own German and English
 * locales, plus our wording where a rule needs explaining (usernames, passwords).
 */
import { z } from 'zod';
import type { Locale } from './locale.ts';

const zodLocales = { de: z.locales.de().localeError, en: z.locales.en().localeError } as const;

/** Zod's error map for the locale, passed to `safeParse`. */
export function zodErrorMap(locale: Locale) {
  return zodLocales[locale];
}

const OUR_WORDING: Record<Locale, Record<string, string>> = {
  en: {
    'username:invalid_format': 'Use 3–32 characters: lowercase letters, digits, dot, dash or underscore, starting with a letter or digit.',
    'password:too_small': 'Use at least 10 characters.',
  },
  de: {
    'username:invalid_format': 'Verwende 3–32 Zeichen: Kleinbuchstaben, Ziffern, Punkt, Bindestrich oder Unterstrich; am Anfang ein Buchstabe oder eine Ziffer.',
    'password:too_small': 'Verwende mindestens 10 Zeichen.',
  },
};

/** Our wording for (last path segment, issue code), if we have one. */
export function ourFieldMessage(path: readonly PropertyKey[], code: string, locale: Locale): string | undefined {
  const field = String(path.at(-1) ?? '');
  return OUR_WORDING[locale][`${field}:${code}`];
}
