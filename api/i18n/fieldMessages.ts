/**
 * Localized texts for field-level validation problems: zod's own German and English
 * locales, plus our wording where a rule needs explaining (usernames, passwords, slugs,
 * grants, labels) or where a rule's own message is English only.
 *
 * Our wording is looked up by the field's last path segment and the issue code alone, so an
 * entry must be right for every field of that name raising that code: `name:invalid_format`
 * comes only from the label name rule (pond and instance names have no format), and
 * `slug:invalid_format` from the one slug pattern pages and ponds share. Codes of our own
 * rules (`invalid_text`, `date_out_of_range`, `invalid_host`) have one wording for every field.
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
    'slug:invalid_format': 'Use only lowercase letters (a–z), digits and single hyphens, not at the start or end.',
    'slug:custom': 'This slug is reserved for the site. Please choose another one.',
    'role:custom': 'Pond admin can only be given to a single user, for the whole pond.',
    'subjectId:custom': 'Give subjectId exactly when subjectType is user, and leave it out otherwise.',
    'color:invalid_format': 'Use a colour in the form #rrggbb, such as #3366cc.',
    'name:invalid_format': 'A name cannot contain “/”.',
    // A rule on the whole body: every such rule asks for at least one change.
    ':custom': 'Change at least one field.',
    'before:custom': 'Give at most one of before, after and index.',
  },
  de: {
    'username:invalid_format': 'Verwende 3–32 Zeichen: Kleinbuchstaben, Ziffern, Punkt, Bindestrich oder Unterstrich; am Anfang ein Buchstabe oder eine Ziffer.',
    'password:too_small': 'Verwende mindestens 10 Zeichen.',
    'slug:invalid_format': 'Verwende nur Kleinbuchstaben (a–z), Ziffern und einzelne Bindestriche, nicht am Anfang oder Ende.',
    'slug:custom': 'Diese Kurzadresse ist für die Website reserviert. Bitte wähle eine andere.',
    'role:custom': 'Die Rolle Teich-Admin kannst du nur einer einzelnen Person für den ganzen Teich geben.',
    'subjectId:custom': 'Gib subjectId genau dann an, wenn subjectType user ist, und lass es sonst weg.',
    'color:invalid_format': 'Gib eine Farbe im Format #rrggbb an, etwa #3366cc.',
    'name:invalid_format': 'Ein Name darf kein „/“ enthalten.',
    ':custom': 'Ändere mindestens ein Feld.',
    'before:custom': 'Gib höchstens eines von before, after und index an.',
  },
};

/** Our wording for codes of our own rules (api/http/fieldSchemas.ts), whatever the field. */
const CODE_WORDING: Record<Locale, Record<string, string>> = {
  en: {
    invalid_text: 'This text contains a character that cannot be stored (a NUL character or a broken surrogate pair). Please remove it.',
    date_out_of_range: 'Use a date between the years 1 and 9999.',
    invalid_host: 'Enter the mail server\'s host name (such as mail.example.org) or IP address, without a port and without spaces or special characters.',
  },
  de: {
    invalid_text: 'Dieser Text enthält ein Zeichen, das nicht gespeichert werden kann (ein NUL-Zeichen oder ein kaputtes Surrogatpaar). Bitte entferne es.',
    date_out_of_range: 'Gib ein Datum zwischen den Jahren 1 und 9999 an.',
    invalid_host: 'Gib den Hostnamen (etwa mail.example.org) oder die IP-Adresse des Mailservers an, ohne Port und ohne Leer- oder Sonderzeichen.',
  },
};

/** Our wording for (last path segment, issue code), else for the code alone, if we have one. */
export function ourFieldMessage(path: readonly PropertyKey[], code: string, locale: Locale): string | undefined {
  const field = String(path.at(-1) ?? '');
  return OUR_WORDING[locale][`${field}:${code}`] ?? CODE_WORDING[locale][code];
}
