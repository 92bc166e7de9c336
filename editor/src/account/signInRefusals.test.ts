import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES } from '../../../api/http/errorCodes.ts';
import { createTranslator } from '../i18n/translator.ts';
import { linkRefusalText, SIGN_IN_REFUSAL_CODES, signInRefusalCode, signInRefusalText } from './signInRefusals.ts';

const en = createTranslator('en');
const de = createTranslator('de');

test('every oidc_* code of the API, and account_disabled, is a refusal the login page knows', () => {
  const oidcCodes = ERROR_CODES.filter((code) => code.startsWith('oidc_'));
  assert.equal(oidcCodes.length, 10, 'the ten codes of the spec');
  for (const code of [...oidcCodes, 'account_disabled']) assert.equal(signInRefusalCode(code), code, code);
  // And nothing the API does not answer with.
  for (const code of SIGN_IN_REFUSAL_CODES) assert.ok((ERROR_CODES as string[]).includes(code), `${code} is an API code`);
});

test('a missing, unknown or crafted ?error= value shows nothing', () => {
  for (const value of [null, undefined, '', 'oidc_', 'OIDC_FAILED', 'oidc_failed ', 'validation_failed', '<script>', 'oidc_made_up']) {
    assert.equal(signInRefusalCode(value), null, String(value));
    assert.equal(linkRefusalText(value, 'Keycloak', en), null, String(value));
  }
});

test('each refusal is its own text in both languages, naming the provider and never the code', () => {
  for (const t of [en, de]) {
    const texts = SIGN_IN_REFUSAL_CODES.map((code) => signInRefusalText(code, 'Pondcloak', t));
    assert.equal(new Set(texts).size, texts.length, 'no two refusals read the same');
    for (const [index, text] of texts.entries()) {
      const code = SIGN_IN_REFUSAL_CODES[index]!;
      assert.ok(!text.includes(code), `${code}: the code is not shown`);
      assert.ok(!/\{\w+\}/.test(text), `${code}: no placeholder left: ${text}`);
      if (code !== 'account_disabled') assert.ok(text.includes('Pondcloak'), `${code} names the provider: ${text}`);
    }
  }
  assert.notEqual(signInRefusalText('oidc_cancelled', 'X', en), signInRefusalText('oidc_cancelled', 'X', de));
});

test('link_required says what to do, as the issue words it', () => {
  assert.equal(
    signInRefusalText('oidc_link_required', 'Keycloak', en),
    'An account with this e-mail address exists. Sign in with your password, then link Keycloak in your settings.',
  );
  assert.equal(
    signInRefusalText('oidc_link_required', 'Keycloak', de),
    'Es gibt schon ein Konto mit dieser E-Mail-Adresse. Melde dich mit deinem Passwort an und verknüpfe dann Keycloak in deinen Einstellungen.',
  );
});

test('without a configured label the texts name single sign-on', () => {
  assert.match(signInRefusalText('oidc_discovery_failed', null, en), /^Single sign-on cannot be reached/);
  assert.match(signInRefusalText('oidc_discovery_failed', '  ', de), /^Single Sign-on ist gerade nicht erreichbar/);
});

test('the settings page speaks of linking: identity taken as the issue words it, anything else as a failed link', () => {
  assert.match(linkRefusalText('oidc_identity_taken', 'Authentik', en)!, /^This Authentik account is already linked to another Dorfteich account\./);
  assert.match(linkRefusalText('oidc_identity_taken', 'Authentik', de)!, /^Dieses Authentik-Konto ist schon mit einem anderen Dorfteich-Konto verknüpft\./);
  assert.equal(linkRefusalText('oidc_cancelled', 'Authentik', en), 'Linking Authentik was cancelled; nothing changed.');
  const general = en('sso.link.failed', { label: 'Authentik' });
  for (const code of ['oidc_failed', 'oidc_exchange_failed', 'oidc_token_invalid', 'oidc_email_missing']) assert.equal(linkRefusalText(code, 'Authentik', en), general, code);
});
