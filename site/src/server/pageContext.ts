/**
 * What every page needs before it renders: who is signed in, the instance's setup state
 * and name, and the language to speak (the user's setting, then Accept-Language, then
 * the instance default, then English).
 */
import type { AstroGlobal } from 'astro';
import { resolveLocale, type Locale } from '../../../api/i18n/locale.ts';
import type { SetupStateView, UserView } from '../../../editor/src/api/apiViews.ts';
import { createTranslator, type Translate } from '../../../editor/src/i18n/translator.ts';
import { readApiForPage, type PageApiResult } from './apiForPage.ts';

export interface PageContext {
  locale: Locale;
  t: Translate;
  user: UserView | null;
  /** Null when the API could not be read; pages then render without instance details. */
  setup: SetupStateView | null;
  instanceName: string;
  registrationOpen: boolean;
}

const PRODUCT_NAME = 'Dorfteich';

export async function loadPageContext(astro: AstroGlobal): Promise<PageContext> {
  const [setupResult, sessionResult] = await Promise.all([
    readApiForPage<SetupStateView>(astro, '/setup'),
    readApiForPage<{ user: UserView | null }>(astro, '/auth/session'),
  ]);
  return pageContextFrom(astro, setupResult, sessionResult);
}

/** The context from the answers of `/setup` and `/auth/session`, however they were read. */
export function pageContextFrom(astro: AstroGlobal, setupResult: PageApiResult<SetupStateView>, sessionResult: PageApiResult<{ user: UserView | null }>): PageContext {
  // Pages show personal data; no shared cache may keep them.
  astro.response.headers.set('Cache-Control', 'private, no-store');
  const setup = setupResult.ok ? setupResult.data : null;
  const user = sessionResult.ok ? sessionResult.data.user : null;
  const locale = resolveLocale({
    userLocale: user?.locale,
    acceptLanguage: astro.request.headers.get('accept-language') ?? undefined,
    instanceDefault: setup?.instance.defaultLocale ?? 'en',
  });
  return {
    locale,
    t: createTranslator(locale),
    user,
    setup,
    instanceName: setup?.instance.name || PRODUCT_NAME,
    registrationOpen: setup?.registrationMode === 'open',
  };
}
