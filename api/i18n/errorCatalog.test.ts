import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES, ERROR_STATUS, MESSAGE_VARIANTS } from '../http/errorCodes.ts';
import { errorMessagesDe, messageVariantsDe } from './errorMessages.de.ts';
import { errorMessagesEn, messageVariantsEn } from './errorMessages.en.ts';
import { errorMessage, localeFromAcceptLanguage, resolveLocale } from './locale.ts';

/** Every code the product specification names (its errors table, states, enforcement order), built or not. */
const SPEC_ERROR_CODES = [
  'setup_required', 'maintenance_mode', 'page_cycle', 'page_depth_exceeded', 'page_trashed', 'plugin_not_optional',
  'scope_required', 'upload_type_not_allowed', 'attachment_integrity_failure', 'account_disabled', 'cannot_modify_self',
  'last_site_admin', 'converter_unavailable', 'converter_timeout', 'conversion_failed', 'renderer_unavailable',
  'render_failed', 'quota_exceeded', 'import_unsupported_format', 'import_vault_invalid_zip', 'import_vault_too_large',
  'oidc_failed', 'oidc_cancelled', 'oidc_state_invalid', 'oidc_exchange_failed', 'oidc_token_invalid',
  'oidc_discovery_failed', 'oidc_email_missing', 'oidc_email_unverified', 'oidc_link_required', 'oidc_identity_taken',
];
/** Codes of the API's own conventions (docs/architecture.md). */
const CONVENTION_CODES = ['invalid_request', 'validation_failed', 'not_found', 'payload_too_large', 'internal_error', 'csrf_failed', 'setup_completed', 'rate_limited'];

test('every spec and convention error code is known', () => {
  for (const code of [...SPEC_ERROR_CODES, ...CONVENTION_CODES]) {
    assert.ok((ERROR_CODES as string[]).includes(code), `${code} is missing from ERROR_STATUS`);
  }
});

test('every error code has a German and an English text', () => {
  for (const code of ERROR_CODES) {
    assert.ok(errorMessagesEn[code]?.trim(), `${code} lacks an English text`);
    assert.ok(errorMessagesDe[code]?.trim(), `${code} lacks a German text`);
    assert.notEqual(errorMessagesDe[code], errorMessagesEn[code], `${code}: the German text is the English one`);
  }
  assert.deepEqual(Object.keys(errorMessagesDe).sort(), [...ERROR_CODES].sort(), 'German catalog has extra or missing codes');
  assert.deepEqual(Object.keys(errorMessagesEn).sort(), [...ERROR_CODES].sort(), 'English catalog has extra or missing codes');
});

test('every message variant has a German and an English text of its own, used instead of its code\'s', () => {
  const variants = Object.keys(MESSAGE_VARIANTS) as (keyof typeof MESSAGE_VARIANTS)[];
  assert.deepEqual(Object.keys(messageVariantsEn).sort(), [...variants].sort());
  assert.deepEqual(Object.keys(messageVariantsDe).sort(), [...variants].sort());
  for (const variant of variants) {
    const code = MESSAGE_VARIANTS[variant];
    assert.ok(messageVariantsEn[variant].trim() && messageVariantsDe[variant].trim(), `${variant} lacks a text`);
    assert.notEqual(messageVariantsDe[variant], messageVariantsEn[variant], `${variant}: the German text is the English one`);
    assert.notEqual(messageVariantsEn[variant], errorMessagesEn[code], `${variant} says no more than ${code}`);
    assert.equal(errorMessage(code, 'de', variant), messageVariantsDe[variant]);
    assert.equal(errorMessage(code, 'de'), errorMessagesDe[code]);
  }
});

test('statuses the spec fixes', () => {
  assert.equal(ERROR_STATUS.setup_required, 503);
  assert.equal(ERROR_STATUS.maintenance_mode, 503);
  assert.equal(ERROR_STATUS.setup_completed, 410);
  assert.equal(ERROR_STATUS.page_cycle, 409);
  assert.equal(ERROR_STATUS.scope_required, 403);
  assert.equal(ERROR_STATUS.rate_limited, 429);
  assert.equal(ERROR_STATUS.page_trashed, 404);
});

test('Accept-Language picks the best supported language by quality', () => {
  assert.equal(localeFromAcceptLanguage('de-DE,de;q=0.9,en;q=0.8'), 'de');
  assert.equal(localeFromAcceptLanguage('fr-FR, en;q=0.5, de;q=0.7'), 'de');
  assert.equal(localeFromAcceptLanguage('en-GB'), 'en');
  assert.equal(localeFromAcceptLanguage('fr, es'), null);
  assert.equal(localeFromAcceptLanguage('de;q=0, en;q=0.1'), 'en');
  assert.equal(localeFromAcceptLanguage(undefined), null);
});

test('the user setting beats Accept-Language, which beats the instance default', () => {
  assert.equal(resolveLocale({ userLocale: 'de', acceptLanguage: 'en', instanceDefault: 'en' }), 'de');
  assert.equal(resolveLocale({ userLocale: null, acceptLanguage: 'en', instanceDefault: 'de' }), 'en');
  assert.equal(resolveLocale({ userLocale: null, acceptLanguage: 'fr', instanceDefault: 'de' }), 'de');
  assert.equal(errorMessage('setup_required', 'de'), 'Diese Instanz ist noch nicht eingerichtet.');
});
