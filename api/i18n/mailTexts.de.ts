/** German texts of the mails the instance sends; keys and placeholders as in mailTexts.en.ts. */
import type { MailTextKey } from './mailTexts.en.ts';

export const mailTextsDe: Record<MailTextKey, string> = {
  greeting: 'Hallo {displayName},',
  'verify_email.subject': 'Bitte bestätige deine E-Mail-Adresse für {instanceName}',
  'verify_email.body': 'bitte bestätige deine E-Mail-Adresse, damit du dich anmelden kannst. Der Link ist 24 Stunden gültig.',
  'verify_email.link': 'E-Mail-Adresse bestätigen',
  'verify_email.footer': 'Wenn du dich nicht registriert hast, kannst du diese E-Mail ignorieren.',
  'reset_password.subject': 'Passwort zurücksetzen für {instanceName}',
  'reset_password.body': 'mit diesem Link kannst du ein neues Passwort festlegen. Er ist eine Stunde gültig; danach bist du überall abgemeldet.',
  'reset_password.link': 'Neues Passwort festlegen',
  'reset_password.footer': 'Wenn du das nicht angefordert hast, kannst du diese E-Mail ignorieren; dein Passwort bleibt unverändert.',
  'smtp_test.subject': 'Test-E-Mail von {instanceName}',
  'smtp_test.body': 'Der E-Mail-Versand funktioniert.',
};
