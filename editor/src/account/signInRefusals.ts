/**
 * The refusals an external sign-in (OpenID Connect) can bring back, in words. The API's
 * callback cannot answer with a JSON error: it redirects the browser to `/login?error=<code>`
 * (or, for the link flow, to `/settings?error=<code>`), so the page turns the code into text
 * that says what happened and what to do. Only known codes are shown: the parameter is part of
 * a URL anyone can craft, so an unknown value is ignored rather than echoed.
 */
import type { MessageKey, Translate } from '../i18n/translator.ts';

/** Every `oidc_*` code of the spec, plus `account_disabled` (a linked but disabled account). */
export const SIGN_IN_REFUSAL_CODES = [
  'oidc_failed',
  'oidc_cancelled',
  'oidc_state_invalid',
  'oidc_exchange_failed',
  'oidc_token_invalid',
  'oidc_discovery_failed',
  'oidc_email_missing',
  'oidc_email_unverified',
  'oidc_link_required',
  'oidc_identity_taken',
  'account_disabled',
  'registration_closed',
] as const;

export type SignInRefusalCode = (typeof SIGN_IN_REFUSAL_CODES)[number];

/** The refusal a `?error=` value names, or null for none or one this page does not know. */
export function signInRefusalCode(value: string | null | undefined): SignInRefusalCode | null {
  return (SIGN_IN_REFUSAL_CODES as readonly string[]).includes(value ?? '') ? (value as SignInRefusalCode) : null;
}

/** The provider's name as the texts use it: the configured label, or a neutral phrase when the instance has none (any more). */
export function providerName(label: string | null | undefined, t: Translate): string {
  return label?.trim() || t('sso.providerFallback');
}

/** What the login page says for `code`: what happened and what to do. */
export function signInRefusalText(code: SignInRefusalCode, label: string | null | undefined, t: Translate): string {
  return t(`sso.login.${code}` satisfies MessageKey, { label: providerName(label, t) });
}

/** The codes the link flow has texts of its own for; any other refusal there is said with the general one. */
const LINK_REFUSALS = ['oidc_identity_taken', 'oidc_cancelled', 'oidc_state_invalid', 'oidc_discovery_failed'] as const;
type LinkRefusalCode = (typeof LINK_REFUSALS)[number];

/**
 * What the settings page says when linking came back with `?error=<value>`: linking, not
 * signing in, failed, so the texts speak of linking (nothing changed, the account stays as it
 * was). Null for a value that is no refusal code.
 */
export function linkRefusalText(value: string | null | undefined, label: string | null | undefined, t: Translate): string | null {
  const code = signInRefusalCode(value);
  if (!code) return null;
  const name = providerName(label, t);
  if ((LINK_REFUSALS as readonly string[]).includes(code)) return t(`sso.link.${code as LinkRefusalCode}` satisfies MessageKey, { label: name });
  return t('sso.link.failed', { label: name });
}
