/**
 * The rendered mails, word for word, in both languages: their texts live in the catalogues
 * (api/i18n/mailTexts.*), and moving or rewording them must not change a mail by accident.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locale } from '../i18n/locale.ts';
import { renderMail, type MailTemplate } from './templates.ts';

const verify: MailTemplate = { kind: 'verify_email', displayName: 'Eve', instanceName: 'Teich', link: 'https://teich.example/verify-email?token=abc' };
const reset: MailTemplate = { kind: 'reset_password', displayName: 'Eve', instanceName: 'Teich', link: 'https://teich.example/reset-password?token=abc' };
const smtpTest: MailTemplate = { kind: 'smtp_test', instanceName: 'Teich' };

const expected: Array<{ template: MailTemplate; locale: Locale; subject: string; text: string[] }> = [
  {
    template: verify,
    locale: 'en',
    subject: 'Please confirm your e-mail address for Teich',
    text: ['Hello Eve,', 'please confirm your e-mail address so you can sign in. The link is valid for 24 hours.', verify.link, '', 'If you did not sign up, you can ignore this e-mail.'],
  },
  {
    template: verify,
    locale: 'de',
    subject: 'Bitte bestätige deine E-Mail-Adresse für Teich',
    text: ['Hallo Eve,', 'bitte bestätige deine E-Mail-Adresse, damit du dich anmelden kannst. Der Link ist 24 Stunden gültig.', verify.link, '', 'Wenn du dich nicht registriert hast, kannst du diese E-Mail ignorieren.'],
  },
  {
    template: reset,
    locale: 'en',
    subject: 'Reset your password for Teich',
    text: ['Hello Eve,', 'use this link to choose a new password. It is valid for one hour; afterwards you are signed out everywhere.', reset.link, '', 'If you did not ask for this, ignore this e-mail; your password stays unchanged.'],
  },
  {
    template: reset,
    locale: 'de',
    subject: 'Passwort zurücksetzen für Teich',
    text: ['Hallo Eve,', 'mit diesem Link kannst du ein neues Passwort festlegen. Er ist eine Stunde gültig; danach bist du überall abgemeldet.', reset.link, '', 'Wenn du das nicht angefordert hast, kannst du diese E-Mail ignorieren; dein Passwort bleibt unverändert.'],
  },
  { template: smtpTest, locale: 'en', subject: 'Test e-mail from Teich', text: ['Sending e-mail works.', '', 'Dorfteich'] },
  { template: smtpTest, locale: 'de', subject: 'Test-E-Mail von Teich', text: ['Der E-Mail-Versand funktioniert.', '', 'Dorfteich'] },
];

const frame = '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1d2433">';
const small = '<p style="color:#555;font-size:13px">';

describe('rendered mails', () => {
  for (const { template, locale, subject, text } of expected) {
    test(`${template.kind} in ${locale}: subject and plain text as pinned`, () => {
      const mail = renderMail(template, locale);
      assert.equal(mail.subject, subject);
      assert.equal(mail.text, text.join('\n\n'));
    });
  }

  test('the HTML part of a mail with a link, in German', () => {
    assert.equal(
      renderMail(verify, 'de').html,
      `${frame}<p>Hallo Eve,</p><p>bitte bestätige deine E-Mail-Adresse, damit du dich anmelden kannst. Der Link ist 24 Stunden gültig.</p>` +
        `<p><a href="https://teich.example/verify-email?token=abc">E-Mail-Adresse bestätigen</a></p>${small}https://teich.example/verify-email?token=abc</p>` +
        `${small}Wenn du dich nicht registriert hast, kannst du diese E-Mail ignorieren.</p></body></html>`,
    );
  });

  test('the HTML part of the reset mail and of a mail without greeting or link, in English', () => {
    assert.equal(
      renderMail(reset, 'en').html,
      `${frame}<p>Hello Eve,</p><p>use this link to choose a new password. It is valid for one hour; afterwards you are signed out everywhere.</p>` +
        `<p><a href="https://teich.example/reset-password?token=abc">Choose a new password</a></p>${small}https://teich.example/reset-password?token=abc</p>` +
        `${small}If you did not ask for this, ignore this e-mail; your password stays unchanged.</p></body></html>`,
    );
    assert.equal(renderMail(smtpTest, 'en').html, `${frame}<p>Sending e-mail works.</p>${small}Dorfteich</p></body></html>`);
  });

  test('a value that looks like a placeholder is inserted as it is, never filled in again', () => {
    const mail = renderMail({ ...verify, displayName: '{instanceName} $& $1', instanceName: '{displayName}' }, 'en');
    assert.equal(mail.subject, 'Please confirm your e-mail address for {displayName}');
    assert.match(mail.text, /^Hello \{instanceName\} \$& \$1,\n/);
  });
});
