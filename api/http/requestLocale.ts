import type { Request } from 'express';
import { knownActor } from '../auth/authenticateRequest.ts';
import { isLocale, localeFromAcceptLanguage, type Locale } from '../i18n/locale.ts';
import { getSetting } from '../settings/instanceSettings.ts';

/** User setting → `Accept-Language` → instance default. */
export async function resolveRequestLocale(req: Request): Promise<Locale> {
  const userLocale = knownActor(req)?.user.locale;
  if (isLocale(userLocale)) return userLocale;
  const fromHeader = localeFromAcceptLanguage(req.headers['accept-language']);
  if (fromHeader) return fromHeader;
  try {
    return await getSetting('instance.defaultLocale');
  } catch {
    return 'en'; // the database may be why we are answering with an error at all
  }
}
